// The catalog of event types (docs/api.md "Events and webhooks"), without TypeBox: the CLI's `trigger`, `listen
// --events` and `events list --type` load it at start-up. The schemas are in events.ts.

/** Every event type, the object its `data.object` is, and when it is recorded. */
export const EVENT_TYPES = {
  // Payments: the live service's names.
  'payment.requires_action': {
    object: 'payment',
    when: 'a confirm needs 3-D Secure: the payment waits for the customer',
  },
  'payment.authorized': { object: 'payment', when: 'a payment is authorized and waits for a manual capture' },
  'payment.captured': {
    object: 'payment',
    when: 'money is captured: automatic or manual capture, or an ACH debit settling',
  },
  'payment.failed': {
    object: 'payment',
    when: 'a payment fails: declined, every processor failed, 3DS failed, or an ACH debit returned',
  },
  'payment.canceled': { object: 'payment', when: 'an authorized payment is canceled (voided)' },
  'refund.succeeded': {
    object: 'payment',
    when: 'a refund succeeds (data.object is the payment; `refund` holds the refund)',
  },
  'refund.failed': {
    object: 'payment',
    when: 'a refund is refused by the processor (test card tok_refundFail): the payment is unchanged; `refund` holds the failed refund',
  },
  // Sessions
  'payment_session.created': { object: 'payment_session', when: 'a payment session is created' },
  'payment_session.updated': {
    object: 'payment_session',
    when: 'a session is updated before it is paid (PATCH /sessions/{id}; an update that changes nothing records nothing)',
  },
  'payment_session.succeeded': {
    object: 'payment_session',
    when: "a session's payment is captured (at confirm, on a manual capture, or when an ACH debit settles)",
  },
  'payment_session.failed': { object: 'payment_session', when: "a session's payment fails for good" },
  'payment_session.canceled': { object: 'payment_session', when: 'a session is canceled' },
  'payment_session.expired': { object: 'payment_session', when: 'a session passes its expiry unpaid' },
  // Bank accounts, network tokens
  'bank_account.created': { object: 'bank_account', when: 'a bank account is added' },
  'bank_account.updated': {
    object: 'bank_account',
    when: 'a bank account changes: nickname, metadata, default (also when another account of the customer becomes the default), micro-deposits sent, a wrong amount entered',
  },
  'bank_account.verified': {
    object: 'bank_account',
    when: 'a bank account is verified with the right micro-deposit amounts',
  },
  'bank_account.verification_failed': {
    object: 'bank_account',
    when: 'a bank account fails verification (its last attempt had wrong amounts)',
  },
  'bank_account.deleted': { object: 'bank_account', when: 'a bank account is removed' },
  'network_token.created': { object: 'network_token', when: 'a network token is provisioned' },
  'network_token.deleted': { object: 'network_token', when: 'a network token is deleted' },
  // Billing
  'customer.created': { object: 'customer', when: 'a customer is created (also by a checkout session that had none)' },
  'customer.updated': {
    object: 'customer',
    when: 'a customer changes (PATCH, a checkout or the portal setting its default card)',
  },
  'customer.deleted': { object: 'customer', when: 'a customer is deleted (data.object: the customer as it was)' },
  'product.created': { object: 'product', when: "a product is created (also through a price's product_data)" },
  'product.updated': {
    object: 'product',
    when: 'a product changes: PATCH, archived by a delete, or its first price becomes default_price',
  },
  'product.deleted': {
    object: 'product',
    when: 'a product without prices is deleted (data.object: the product as it was)',
  },
  'price.created': { object: 'price', when: 'a price is created' },
  'price.updated': { object: 'price', when: 'a price changes (nickname, active, metadata)' },
  'coupon.created': { object: 'coupon', when: 'a coupon is created' },
  'coupon.updated': { object: 'coupon', when: 'a coupon changes (name, metadata)' },
  'coupon.deleted': { object: 'coupon', when: 'a coupon is deleted (data.object: the coupon as it was)' },
  'subscription.created': {
    object: 'subscription',
    when: "a subscription is created (after its first invoice's events; data.object shows the outcome of that invoice)",
  },
  'subscription.updated': {
    object: 'subscription',
    when: 'a subscription changes: PATCH, items, pause, resume, cancel at period end, its trial ends, or an invoice makes it past_due, unpaid or active again',
  },
  'subscription.trial_will_end': {
    object: 'subscription',
    when: 'three days before a trial ends (at once when the trial is shorter)',
  },
  'subscription.renewed': {
    object: 'subscription',
    when: "a subscription starts a new period (after its renewal invoice's events)",
  },
  'subscription.canceled': {
    object: 'subscription',
    when: 'a subscription is canceled: at once, or when its period (or trial) ends with cancel_at_period_end',
  },
  'invoice.upcoming': {
    object: 'invoice',
    when: 'three days before a subscription renews: the renewal invoice as it would be now, without an id (none for a period of three days or less, nor before a trial ends)',
  },
  'invoice.created': { object: 'invoice', when: 'an invoice is created (a draft)' },
  'invoice.updated': { object: 'invoice', when: 'an invoice is changed by PATCH' },
  'invoice.deleted': { object: 'invoice', when: 'a draft invoice is deleted (data.object: the invoice as it was)' },
  'invoice.finalized': { object: 'invoice', when: 'a draft invoice is finalized (becomes open)' },
  'invoice.paid': { object: 'invoice', when: 'an invoice is paid: charged, out of band, or at once for a zero amount' },
  'invoice.payment_failed': {
    object: 'invoice',
    when: 'an attempt to charge an invoice fails (the first attempt, a dunning retry, or POST /invoices/{id}/pay)',
  },
  'invoice.overdue': { object: 'invoice', when: 'an open send_invoice invoice passes its due date (becomes past_due)' },
  'invoice.marked_uncollectible': {
    object: 'invoice',
    when: 'an invoice becomes uncollectible: marked by a request, or its last dunning retry failed',
  },
  'invoice.voided': { object: 'invoice', when: 'an invoice is voided' },
  'checkout_session.completed': {
    object: 'checkout_session',
    when: "a checkout session completes: its payment session's payment succeeds (payment mode), or it is completed with a card (subscription mode)",
  },
  'checkout_session.expired': { object: 'checkout_session', when: 'an open checkout session passes expires_at' },
  // Ledger
  'ledger_account.created': {
    object: 'ledger_account',
    when: "a ledger account is created (also a system account, on a currency's first payment)",
  },
  'ledger_account.frozen': { object: 'ledger_account', when: 'a ledger account is frozen' },
  'ledger_account.unfrozen': { object: 'ledger_account', when: 'a ledger account is unfrozen' },
  'ledger_account.closed': { object: 'ledger_account', when: 'a ledger account is closed' },
  'journal_entry.created': {
    object: 'journal_entry',
    when: 'a journal entry is posted: by a request, a reversal, a hold capture, or a captured or refunded payment',
  },
  'hold.created': { object: 'hold', when: 'a hold is placed' },
  'hold.captured': { object: 'hold', when: "a hold is captured (after its journal entry's event)" },
  'hold.released': { object: 'hold', when: 'a hold is released' },
  'hold.expired': { object: 'hold', when: 'an active hold passes expires_at' },
  // Identity
  'kyc_verification.created': { object: 'kyc_verification', when: 'a KYC verification is started' },
  'kyc_verification.processing': {
    object: 'kyc_verification',
    when: 'a KYC verification is submitted (decided 30 s later on the account clock)',
  },
  'kyc_verification.verified': { object: 'kyc_verification', when: 'a KYC verification is decided verified' },
  'kyc_verification.rejected': { object: 'kyc_verification', when: 'a KYC verification is decided rejected' },
  'kyc_verification.requires_input': {
    object: 'kyc_verification',
    when: 'a KYC verification is decided requires_input (a check could not decide)',
  },
  'kyc_verification.canceled': { object: 'kyc_verification', when: 'a KYC verification is canceled' },
  'identity_token.created': {
    object: 'identity_token',
    when: 'an identity token is created (data.object: the token with `id` = token_id; never the value)',
  },
  'identity_token.deleted': {
    object: 'identity_token',
    when: 'an identity token is deleted (data.object: the token as it was)',
  },
} as const satisfies Record<string, { object: string; when: string }>;

export type EventType = keyof typeof EVENT_TYPES;
export const eventTypes = Object.keys(EVENT_TYPES) as EventType[];
export const isEventType = (s: string): s is EventType => Object.prototype.hasOwnProperty.call(EVENT_TYPES, s);

/**
 * Names people try that mean one of ours: the verb on the object that does not carry it here (a refund is an
 * event of its own) or another payment API's name. Edit distance alone gets these wrong (`payment.refunded` is
 * nearest to `payment.failed`).
 */
const MEANT: Readonly<Record<string, EventType>> = {
  'payment.refunded': 'refund.succeeded',
  'payment.refund_failed': 'refund.failed',
  'payment.succeeded': 'payment.captured',
  'payment.voided': 'payment.canceled',
  'refund.created': 'refund.succeeded',
  'charge.refunded': 'refund.succeeded',
  'charge.succeeded': 'payment.captured',
  'charge.captured': 'payment.captured',
  'charge.failed': 'payment.failed',
  'payment_intent.succeeded': 'payment.captured',
  'payment_intent.payment_failed': 'payment.failed',
  'payment_intent.canceled': 'payment.canceled',
  'payment_intent.requires_action': 'payment.requires_action',
  'invoice.payment_succeeded': 'invoice.paid',
  'customer.subscription.created': 'subscription.created',
  'customer.subscription.updated': 'subscription.updated',
  'customer.subscription.deleted': 'subscription.canceled',
};

/**
 * The known type `input` most likely means, and whether it is close enough to suggest: a name from MEANT, else
 * the nearest by edit distance (`distance`, given by the caller so that this catalog loads no library), close
 * when within a third of the input's length (at least 3 edits). The server names it in its 400; the CLI
 * suggests it when close.
 */
export function likelyEventType(
  input: string,
  distance: (a: string, b: string) => number,
): { type: EventType; close: boolean } {
  if (Object.prototype.hasOwnProperty.call(MEANT, input)) return { type: MEANT[input]!, close: true };
  let type = eventTypes[0]!;
  let best = Infinity;
  for (const t of eventTypes) {
    const d = distance(input, t);
    if (d < best) [type, best] = [t, d];
  }
  return { type, close: best <= Math.max(3, Math.floor(input.length / 3)) };
}

/** Whether `type` matches the filter `pattern` (`*` matches any run of characters). */
export function eventTypeMatches(pattern: string, type: string): boolean {
  if (!pattern.includes('*')) return pattern === type;
  const parts = pattern.split('*');
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (i === 0) {
      if (!type.startsWith(part)) return false;
      at = part.length;
    } else if (i === parts.length - 1) {
      return type.length - at >= part.length && type.endsWith(part);
    } else {
      const found = type.indexOf(part, at);
      if (found < 0) return false;
      at = found + part.length;
    }
  }
  return at === type.length;
}
