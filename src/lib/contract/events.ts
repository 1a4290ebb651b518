// Events (docs/api.md "Events and webhooks"): what changed, recorded in the same transaction as the change.
// The catalog below is the one list of event types: the server records only these, `POST /test-helpers/trigger`
// accepts only these, and the CLI and docs list them from here.
import { Type, type Static } from '@sinclair/typebox';
import { ListOf, ListQuery, Nullable, UnixSecondsInput } from './common.js';

/** Every event type, the object its `data.object` is, and when it is recorded. */
export const EVENT_TYPES = {
  // Payments: the live service's names.
  'payment.requires_action': { object: 'payment', when: 'a confirm needs 3-D Secure: the payment waits for the customer' },
  'payment.authorized': { object: 'payment', when: 'a payment is authorized and waits for a manual capture' },
  'payment.captured': { object: 'payment', when: 'money is captured: automatic or manual capture, or an ACH debit settling' },
  'payment.failed': { object: 'payment', when: 'a payment fails: declined, every processor failed, 3DS failed, or an ACH debit returned' },
  'payment.canceled': { object: 'payment', when: 'an authorized payment is canceled (voided)' },
  'refund.succeeded': { object: 'payment', when: 'a refund succeeds (data.object is the payment; `refund` holds the refund)' },
  'refund.failed': { object: 'payment', when: 'a refund fails' },
  // Sessions
  'payment_session.created': { object: 'payment_session', when: 'a payment session is created' },
  'payment_session.succeeded': { object: 'payment_session', when: "a session's payment is captured (at confirm, on a manual capture, or when an ACH debit settles)" },
  'payment_session.failed': { object: 'payment_session', when: "a session's payment fails for good" },
  'payment_session.canceled': { object: 'payment_session', when: 'a session is canceled' },
  'payment_session.expired': { object: 'payment_session', when: 'a session passes its expiry unpaid' },
  // Bank accounts, network tokens, vault
  'bank_account.created': { object: 'bank_account', when: 'a bank account is added' },
  'bank_account.verified': { object: 'bank_account', when: 'a bank account is verified (micro-deposits or instantly)' },
  'bank_account.verification_failed': { object: 'bank_account', when: 'a bank account fails verification (too many wrong amounts)' },
  'bank_account.deleted': { object: 'bank_account', when: 'a bank account is removed' },
  'network_token.created': { object: 'network_token', when: 'a network token is provisioned' },
  'network_token.deleted': { object: 'network_token', when: 'a network token is deleted' },
  // Billing
  'customer.created': { object: 'customer', when: 'a customer is created' },
  'customer.updated': { object: 'customer', when: 'a customer is updated' },
  'customer.deleted': { object: 'customer', when: 'a customer is deleted' },
  'product.created': { object: 'product', when: 'a product is created' },
  'product.updated': { object: 'product', when: 'a product is updated' },
  'price.created': { object: 'price', when: 'a price is created' },
  'price.updated': { object: 'price', when: 'a price is updated' },
  'coupon.created': { object: 'coupon', when: 'a coupon is created' },
  'coupon.deleted': { object: 'coupon', when: 'a coupon is deleted' },
  'subscription.created': { object: 'subscription', when: 'a subscription is created' },
  'subscription.updated': { object: 'subscription', when: 'a subscription changes (items, status, period, cancel_at_period_end…)' },
  'subscription.trial_will_end': { object: 'subscription', when: "three days before a trial ends (at once when the trial is shorter)" },
  'subscription.renewed': { object: 'subscription', when: 'a subscription starts a new period (its renewal invoice is created)' },
  'subscription.canceled': { object: 'subscription', when: 'a subscription is canceled, at once or at its period end' },
  'invoice.created': { object: 'invoice', when: 'an invoice is created' },
  'invoice.finalized': { object: 'invoice', when: 'a draft invoice is finalized (becomes open)' },
  'invoice.paid': { object: 'invoice', when: 'an invoice is paid' },
  'invoice.payment_failed': { object: 'invoice', when: "an attempt to pay an invoice fails" },
  'invoice.marked_uncollectible': { object: 'invoice', when: 'an invoice is marked uncollectible' },
  'invoice.voided': { object: 'invoice', when: 'an invoice is voided' },
  'checkout_session.completed': { object: 'checkout_session', when: "a hosted checkout session's payment succeeds" },
  'checkout_session.expired': { object: 'checkout_session', when: 'a hosted checkout session expires unpaid' },
  // Ledger
  'ledger_account.created': { object: 'ledger_account', when: 'a ledger account is created' },
  'ledger_account.frozen': { object: 'ledger_account', when: 'a ledger account is frozen' },
  'ledger_account.unfrozen': { object: 'ledger_account', when: 'a ledger account is unfrozen' },
  'ledger_account.closed': { object: 'ledger_account', when: 'a ledger account is closed' },
  'journal_entry.created': { object: 'journal_entry', when: 'a journal entry is posted (by a request, a payment or a refund)' },
  'hold.created': { object: 'hold', when: 'a hold is placed' },
  'hold.captured': { object: 'hold', when: 'a hold is captured' },
  'hold.released': { object: 'hold', when: 'a hold is released' },
  'hold.expired': { object: 'hold', when: 'a hold passes its expiry' },
  // Identity
  'kyc_verification.created': { object: 'kyc_verification', when: 'a KYC verification is started' },
  'kyc_verification.verified': { object: 'kyc_verification', when: 'a KYC verification is decided verified' },
  'kyc_verification.rejected': { object: 'kyc_verification', when: 'a KYC verification is decided rejected' },
  'kyc_verification.requires_input': { object: 'kyc_verification', when: 'a KYC verification needs more input' },
  'kyc_verification.canceled': { object: 'kyc_verification', when: 'a KYC verification is canceled' },
  'identity_token.created': { object: 'identity_token', when: 'an identity token is created' },
  'identity_token.deleted': { object: 'identity_token', when: 'an identity token is deleted' },
} as const satisfies Record<string, { object: string; when: string }>;

export type EventType = keyof typeof EVENT_TYPES;
export const eventTypes = Object.keys(EVENT_TYPES) as EventType[];
export const isEventType = (s: string): s is EventType => Object.prototype.hasOwnProperty.call(EVENT_TYPES, s);

/** An event type filter: a type, or a pattern with `*` standing for any characters (`payment.*`, `*.created`, `*`). */
export const EventTypePattern = Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z_.*]+$', description: 'an event type, `*` matching any characters' });

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

export const Event = Type.Object(
  {
    id: Type.String({ description: '`evt_…`' }),
    object: Type.Literal('event'),
    type: Type.String({ description: 'one of the event types (docs/api.md "Events and webhooks")' }),
    created: Type.Integer({ description: "Unix seconds on the account's clock" }),
    livemode: Type.Literal(false),
    data: Type.Object({
      object: Type.Object({ id: Type.String(), object: Type.String() }, { additionalProperties: true, description: 'the object as the API shows it, after the change' }),
      previous_attributes: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'top-level fields the change altered, with their values before it' })),
    }),
    // The live service's top-level fields of payment and refund events:
    session_id: Type.Optional(Nullable(Type.String())),
    transaction_id: Type.Optional(Type.String({ description: 'the payment id' })),
    amount: Type.Optional(Type.Integer()),
    currency: Type.Optional(Type.String()),
    psp: Type.Optional(Nullable(Type.String())),
    timestamp: Type.Optional(Type.String({ description: 'ISO 8601, the account clock' })),
    /** refund events: the refund */
    refund: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'Event' },
);
export type Event = Static<typeof Event>;

export const EventList = ListOf(Event);
export type EventList = Static<typeof EventList>;

export const EventIdParams = Type.Object({ event_id: Type.String({ minLength: 1, maxLength: 255 }) });

export const ListEventsQuery = Type.Object(
  {
    ...ListQuery,
    type: Type.Optional(EventTypePattern),
    object_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'events whose data.object has this id' })),
    'created[gt]': Type.Optional(UnixSecondsInput),
    'created[gte]': Type.Optional(UnixSecondsInput),
    'created[lt]': Type.Optional(UnixSecondsInput),
    'created[lte]': Type.Optional(UnixSecondsInput),
  },
  { additionalProperties: false },
);
export type ListEventsQuery = Static<typeof ListEventsQuery>;

/** How long events are kept: 30 days on the account's clock (docs/api.md "Events and webhooks"). */
export const EVENT_RETENTION_MS = 30 * 86_400_000;
