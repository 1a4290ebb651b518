// POST /test-helpers/trigger (docs/api.md "Test triggers"): for an event type, a scenario that really produces it
// through the domain — the same calls the API's requests make (a session confirmed with a test card, a customer
// with a declining card and a subscription …), never a made-up payload. A scenario runs in the request's one
// transaction: all of it commits or none. It never moves the account's clock (other objects would change with
// it): time-driven changes are made due at once by creating their object back-dated by its lifetime, or the
// one object's due change is run directly (a renewal), and record their events at the time they happen.
import { createRequire } from 'node:module';
import type { Services } from './services.js';
import { isEventType, likelyEventType, type EventType } from '../../contract/events.js';
import type { Event } from '../../contract/events.js';
import type { TriggerBody, TriggerResult } from '../../contract/triggers.js';
import { errors } from '../errors.js';
import { isoTime } from '../clock.js';
import { normalizeCurrency } from './values.js';
import { SESSION_TTL_MS } from './sessions.js';
import { CHECKOUT_TTL_MS } from './billing/checkout.js';
import { KYC_PROCESSING_MS } from './identity/kyc.js';
import { MICRODEPOSIT_AMOUNTS, MICRODEPOSIT_ATTEMPTS } from './payments/bankaccounts.js';
import { ACH_TEST } from './testcards.js';
import { DAY_MS } from '../../contract/time.js';

interface Ctx {
  s: Services;
  accountId: string;
  now: number;
  baseUrl: string;
  amount: number;
  currency: string;
  /** ids of what the scenario made, by kind (the answer's `objects`) */
  objects: Record<string, string>;
}

type Scenario = (c: Ctx) => void;

// ------------------------------------------------------------------------------------------ building blocks

function session(c: Ctx, opts: { capture?: 'manual'; at?: number } = {}): string {
  const body = {
    amount: c.amount,
    currency: c.currency,
    description: 'payorch trigger',
    ...(opts.capture ? { capture_method: opts.capture } : {}),
  };
  const created = c.s.sessions.create(c.accountId, body, opts.at ?? c.now, c.baseUrl);
  c.objects.payment_session = created.id;
  return created.id;
}

/** A session confirmed with test card `token`; returns the payment's id. */
function pay(c: Ctx, token: string, opts: { capture?: 'manual' } = {}): string {
  const id = session(c, opts);
  c.s.payments.confirm(c.accountId, id, { payment_method_type: 'card', token_id: token }, c.now, c.baseUrl);
  const payment = c.s.payments.forSession(c.accountId, id)!;
  c.objects.payment = payment.id;
  return payment.id;
}

function customer(c: Ctx, card?: string): string {
  const id = c.s.billing.customers.create(
    c.accountId,
    { email: 'trigger@example.com', name: 'payorch trigger', ...(card ? { default_payment_method: card } : {}) },
    c.now,
  ).id;
  c.objects.customer = id;
  return id;
}

function product(c: Ctx): string {
  const id = c.s.billing.products.create(c.accountId, { name: 'payorch trigger product' }, c.now).id;
  c.objects.product = id;
  return id;
}

function price(c: Ctx, recurring?: 'day' | 'month', at = c.now): string {
  const id = c.s.billing.prices.create(
    c.accountId,
    {
      product_data: { name: 'payorch trigger product' },
      currency: c.currency,
      unit_amount: c.amount,
      ...(recurring ? { type: 'recurring', recurring: { interval: recurring } } : { type: 'one_time' }),
    },
    at,
  ).id;
  c.objects.price = id;
  return id;
}

function subscription(
  c: Ctx,
  card: string,
  opts: { trialDays?: number; interval?: 'day' | 'month'; at?: number } = {},
): string {
  const at = opts.at ?? c.now;
  const cus = customer({ ...c, now: at }, card);
  const sub = c.s.billing.subscriptions.create(
    c.accountId,
    {
      customer: cus,
      items: [{ price: price(c, opts.interval ?? 'month', at) }],
      ...(opts.trialDays !== undefined ? { trial_period_days: opts.trialDays } : {}),
    },
    at,
  );
  c.objects.subscription = sub.id;
  if (sub.latest_invoice) c.objects.invoice = sub.latest_invoice;
  return sub.id;
}

/** A one-line draft invoice of the amount for a customer paying with `card`. */
function draftInvoice(c: Ctx, card = 'tok_visa', sendInvoice = false): string {
  const cus = customer(c, card);
  const inv = c.s.billing.invoices.create(
    c.accountId,
    {
      customer: cus,
      currency: c.currency,
      lines: [{ amount: c.amount, description: 'payorch trigger' }],
      ...(sendInvoice ? { collection_method: 'send_invoice', days_until_due: 0 } : {}),
    },
    c.now,
  );
  c.objects.invoice = inv.id;
  return inv.id;
}

function openInvoice(c: Ctx, card = 'tok_visa', sendInvoice = false): string {
  const id = draftInvoice(c, card, sendInvoice);
  c.s.billing.invoices.finalize(c.accountId, id, c.now);
  return id;
}

function ledgerAccount(c: Ctx, type: 'asset' | 'equity' = 'asset', name = 'payorch trigger'): string {
  const id = c.s.ledger.create(c.accountId, { name, account_type: type, currency: c.currency }, c.now, {
    actor: 'trigger',
  }).id;
  c.objects[type === 'asset' ? 'ledger_account' : 'funding_account'] = id;
  return id;
}

/** An asset account holding the amount (funded from an equity account by a journal entry). */
function fundedAccount(c: Ctx): string {
  const asset = ledgerAccount(c);
  const equity = ledgerAccount(c, 'equity', 'payorch trigger funding');
  const je = c.s.ledger.postJournal(
    c.accountId,
    {
      description: 'payorch trigger',
      entries: [
        { account_id: asset, direction: 'debit', amount: c.amount },
        { account_id: equity, direction: 'credit', amount: c.amount },
      ],
    },
    c.now,
  );
  c.objects.journal_entry = je.id;
  return asset;
}

function hold(c: Ctx, account: string, opts: { expiresMs?: number; at?: number } = {}): string {
  const body = {
    amount: c.amount,
    description: 'payorch trigger',
    ...(opts.expiresMs !== undefined ? { expires_at: isoTime(opts.expiresMs) } : {}),
  };
  const id = c.s.ledger.createHold(c.accountId, account, body, opts.at ?? c.now).id;
  c.objects.hold = id;
  return id;
}

function bankAccount(c: Ctx, number: string = ACH_TEST.settles): string {
  const id = c.s.bankAccounts.create(
    c.accountId,
    { holder_name: 'payorch trigger', routing_number: ACH_TEST.routing, account_number: number },
    c.now,
  ).id;
  c.objects.bank_account = id;
  return id;
}

function identityToken(c: Ctx, value: string): string {
  const id = c.s.vault.create(c.accountId, { type: 'ssn', value }, c.now).token_id;
  c.objects.identity_token = id;
  return id;
}

/** A KYC verification of an ssn `value`, submitted KYC_PROCESSING_MS ago and decided now. */
function decidedKyc(c: Ctx, value: string): void {
  const submittedAt = c.now - KYC_PROCESSING_MS;
  const token = identityToken({ ...c, now: submittedAt }, value);
  const k = c.s.kyc.create(
    c.accountId,
    { customer_id: 'trigger', verification_level: 'basic', identity_token_ids: [token] },
    submittedAt,
  );
  c.objects.kyc_verification = k.id;
  c.s.kyc.submit(c.accountId, k.id, {}, submittedAt);
  c.s.kyc.decideIfDue(c.accountId, k.id, c.now);
}

// ------------------------------------------------------------------------------------------------ scenarios

const refund = (c: Ctx, token: string) => void c.s.payments.refund(c.accountId, pay(c, token), {}, c.now);

const SCENARIOS: Record<EventType, Scenario> = {
  'payment.requires_action': (c) => void pay(c, 'tok_threeDSecureRequired'),
  'payment.authorized': (c) => void pay(c, 'tok_visa', { capture: 'manual' }),
  'payment.captured': (c) => void pay(c, 'tok_visa'),
  'payment.failed': (c) => void pay(c, 'tok_chargeDeclined'),
  'payment.canceled': (c) => {
    pay(c, 'tok_visa', { capture: 'manual' });
    c.s.sessions.cancel(c.accountId, c.objects.payment_session!, {}, c.now);
  },
  'refund.succeeded': (c) => refund(c, 'tok_visa'),
  'refund.failed': (c) => refund(c, 'tok_refundFail'),
  'payment_session.created': (c) => void session(c),
  'payment_session.updated': (c) =>
    void c.s.sessions.update(c.accountId, session(c), { description: 'Updated by a trigger' }, c.now),
  'payment_session.succeeded': (c) => void pay(c, 'tok_visa'),
  'payment_session.failed': (c) => void pay(c, 'tok_chargeDeclined'),
  'payment_session.canceled': (c) => void c.s.sessions.cancel(c.accountId, session(c), {}, c.now),
  // created one lifetime ago: its expiry is due now, and runs for this one session when it is next acted on
  'payment_session.expired': (c) =>
    void c.s.sessions.current(c.accountId, session(c, { at: c.now - SESSION_TTL_MS }), c.now),

  'bank_account.created': (c) => void bankAccount(c),
  'bank_account.updated': (c) =>
    void c.s.bankAccounts.update(c.accountId, bankAccount(c), { nickname: 'payorch trigger' }, c.now),
  'bank_account.verified': (c) => {
    const id = bankAccount(c);
    c.s.bankAccounts.initiateMicrodeposits(c.accountId, id, c.now);
    c.s.bankAccounts.verify(c.accountId, id, [...MICRODEPOSIT_AMOUNTS], c.now);
  },
  'bank_account.verification_failed': (c) => {
    const id = bankAccount(c);
    c.s.bankAccounts.initiateMicrodeposits(c.accountId, id, c.now);
    for (let i = 0; i < MICRODEPOSIT_ATTEMPTS; i++) c.s.bankAccounts.verify(c.accountId, id, [1, 2], c.now);
  },
  'bank_account.deleted': (c) => void c.s.bankAccounts.delete(c.accountId, bankAccount(c), c.now),
  'network_token.created': (c) => {
    c.objects.network_token = c.s.cards.createNetworkToken(c.accountId, 'tok_visa', c.now).id;
  },
  'network_token.deleted': (c) => {
    const id = c.s.cards.createNetworkToken(c.accountId, 'tok_visa', c.now).id;
    c.objects.network_token = id;
    c.s.cards.deleteNetworkToken(c.accountId, id, c.now);
  },

  'customer.created': (c) => void customer(c),
  'customer.updated': (c) =>
    void c.s.billing.customers.update(c.accountId, customer(c), { name: 'payorch trigger (updated)' }, c.now),
  'customer.deleted': (c) => void c.s.billing.customers.delete(c.accountId, customer(c), c.now),
  'product.created': (c) => void product(c),
  'product.updated': (c) =>
    void c.s.billing.products.update(c.accountId, product(c), { name: 'payorch trigger product (updated)' }, c.now),
  'product.deleted': (c) => void c.s.billing.products.delete(c.accountId, product(c), c.now),
  'price.created': (c) => void price(c),
  'price.updated': (c) => void c.s.billing.prices.update(c.accountId, price(c), { nickname: 'payorch trigger' }, c.now),
  'coupon.created': (c) => {
    c.objects.coupon = c.s.billing.coupons.create(c.accountId, { percent_off: 10, name: 'payorch trigger' }, c.now).id;
  },
  'coupon.updated': (c) => {
    const id = c.s.billing.coupons.create(c.accountId, { percent_off: 10, name: 'payorch trigger' }, c.now).id;
    c.objects.coupon = id;
    c.s.billing.coupons.update(c.accountId, id, { name: 'payorch trigger (updated)' }, c.now);
  },
  'coupon.deleted': (c) => {
    const id = c.s.billing.coupons.create(c.accountId, { percent_off: 10, name: 'payorch trigger' }, c.now).id;
    c.objects.coupon = id;
    c.s.billing.coupons.delete(c.accountId, id, c.now);
  },
  'subscription.created': (c) => void subscription(c, 'tok_visa'),
  'subscription.updated': (c) =>
    void c.s.billing.subscriptions.update(
      c.accountId,
      subscription(c, 'tok_visa'),
      { metadata: { trigger: 'payorch' } },
      c.now,
    ),
  // a trial shorter than the 3 days' notice: recorded at once
  'subscription.trial_will_end': (c) => void subscription(c, 'tok_visa', { trialDays: 1 }),
  // a daily subscription created a day ago: its renewal is due now, and runs for this one subscription
  'subscription.renewed': (c) => {
    const subs = c.s.billing.subscriptions;
    const id = subscription(c, 'tok_visa', { interval: 'day', at: c.now - DAY_MS });
    subs.renew(c.accountId, subs.load(c.accountId, id), c.now);
    c.objects.invoice = subs.load(c.accountId, id).latest_invoice!;
  },
  'subscription.canceled': (c) =>
    void c.s.billing.subscriptions.cancel(c.accountId, subscription(c, 'tok_visa'), {}, c.now),
  'invoice.created': (c) => void draftInvoice(c),
  'invoice.updated': (c) =>
    void c.s.billing.invoices.update(c.accountId, draftInvoice(c), { description: 'payorch trigger' }, c.now),
  'invoice.deleted': (c) => void c.s.billing.invoices.delete(c.accountId, draftInvoice(c), c.now),
  'invoice.finalized': (c) => void openInvoice(c),
  'invoice.paid': (c) => void c.s.billing.invoices.pay(c.accountId, openInvoice(c), {}, c.now),
  // a customer whose card declines, subscribed: the first invoice's charge fails
  'invoice.payment_failed': (c) => void subscription(c, 'tok_chargeDeclined'),
  // send_invoice due today: its due date has come, and runs for this one invoice
  'invoice.overdue': (c) => {
    const inv = c.s.billing.invoices;
    inv.pastDue(c.accountId, inv.load(c.accountId, openInvoice(c, 'tok_visa', true)), c.now);
  },
  'invoice.marked_uncollectible': (c) =>
    void c.s.billing.invoices.markUncollectible(c.accountId, openInvoice(c), c.now),
  'invoice.voided': (c) => void c.s.billing.invoices.void(c.accountId, openInvoice(c), c.now),
  'checkout_session.completed': (c) => {
    const cks = c.s.billing.checkouts.create(
      c.accountId,
      { mode: 'payment', line_items: [{ price: price(c) }] },
      c.now,
      c.baseUrl,
    );
    c.objects.checkout_session = cks.id;
    c.objects.payment_session = cks.payment_session!;
    c.s.payments.confirm(
      c.accountId,
      cks.payment_session!,
      { payment_method_type: 'card', token_id: 'tok_visa' },
      c.now,
      c.baseUrl,
    );
    c.objects.payment = c.s.payments.forSession(c.accountId, cks.payment_session!)!.id;
  },
  // created one lifetime ago: its expiry is due now, and runs for this one checkout session
  'checkout_session.expired': (c) => {
    const at = c.now - CHECKOUT_TTL_MS;
    const cks = c.s.billing.checkouts.create(
      c.accountId,
      { mode: 'subscription', line_items: [{ price: price(c, 'month', at) }] },
      at,
      c.baseUrl,
    );
    c.objects.checkout_session = cks.id;
    c.s.billing.checkouts.expireIfDue(c.accountId, cks.id, c.now);
  },

  'ledger_account.created': (c) => void ledgerAccount(c),
  'ledger_account.frozen': (c) =>
    void c.s.ledger.freeze(c.accountId, ledgerAccount(c), { reason: 'payorch trigger' }, c.now, { actor: 'trigger' }),
  'ledger_account.unfrozen': (c) => {
    const id = ledgerAccount(c);
    c.s.ledger.freeze(c.accountId, id, { reason: 'payorch trigger' }, c.now, { actor: 'trigger' });
    c.s.ledger.unfreeze(c.accountId, id, { reason: 'payorch trigger' }, c.now, { actor: 'trigger' });
  },
  'ledger_account.closed': (c) =>
    void c.s.ledger.close(c.accountId, ledgerAccount(c), { reason: 'payorch trigger' }, c.now, { actor: 'trigger' }),
  'journal_entry.created': (c) => void fundedAccount(c),
  'hold.created': (c) => void hold(c, fundedAccount(c)),
  'hold.captured': (c) => {
    const account = fundedAccount(c);
    c.s.ledger.captureHold(
      c.accountId,
      hold(c, account),
      { destination_account_id: c.objects.funding_account! },
      c.now,
    );
  },
  'hold.released': (c) => void c.s.ledger.releaseHold(c.accountId, hold(c, fundedAccount(c)), c.now),
  // placed a moment ago, expiring now: its expiry runs for this one hold
  'hold.expired': (c) => {
    const account = fundedAccount(c);
    c.s.ledger.expireHoldIfDue(c.accountId, hold(c, account, { expiresMs: c.now, at: c.now - 1 }), c.now);
  },

  'kyc_verification.created': (c) => {
    c.objects.kyc_verification = c.s.kyc.create(
      c.accountId,
      { customer_id: 'trigger', verification_level: 'basic' },
      c.now,
    ).id;
  },
  'kyc_verification.processing': (c) => {
    const token = identityToken(c, '123456789');
    const k = c.s.kyc.create(
      c.accountId,
      { customer_id: 'trigger', verification_level: 'basic', identity_token_ids: [token] },
      c.now,
    );
    c.objects.kyc_verification = k.id;
    c.s.kyc.submit(c.accountId, k.id, {}, c.now);
  },
  'kyc_verification.verified': (c) => decidedKyc(c, '123456789'),
  'kyc_verification.rejected': (c) => decidedKyc(c, '000000000'),
  'kyc_verification.requires_input': (c) => decidedKyc(c, '111111111'),
  'kyc_verification.canceled': (c) => {
    const k = c.s.kyc.create(c.accountId, { customer_id: 'trigger', verification_level: 'basic' }, c.now);
    c.objects.kyc_verification = k.id;
    c.s.kyc.cancel(c.accountId, k.id, c.now);
  },
  'identity_token.created': (c) => void identityToken(c, '123456789'),
  'identity_token.deleted': (c) => void c.s.vault.delete(c.accountId, identityToken(c, '123456789'), c.now),
};

// ----------------------------------------------------------------------------------------------- the trigger

type Distance = (a: string, b: string) => number;
let distance: Distance | undefined;

/** The known type `unknown` most likely means (fastest-levenshtein, loaded only when a type is unknown). */
export function nearestEventType(unknown: string): EventType {
  distance ??= (createRequire(import.meta.url)('fastest-levenshtein') as { distance: Distance }).distance;
  return likelyEventType(unknown, distance).type;
}

/**
 * Runs the scenario of `body.event_type` in the caller's transaction and answers every event it recorded, in
 * order. An unknown type is 400 parameter_invalid naming the nearest known one.
 */
export function trigger(
  s: Services,
  accountId: string,
  body: TriggerBody,
  now: number,
  baseUrl: string,
): TriggerResult {
  if (!isEventType(body.event_type)) {
    throw errors.parameterInvalid(
      'event_type',
      `'${body.event_type}' is not an event type (the nearest is '${nearestEventType(body.event_type)}')`,
    );
  }
  const type = body.event_type;
  const c: Ctx = {
    s,
    accountId,
    now,
    baseUrl,
    amount: body.amount ?? 2000,
    currency: normalizeCurrency(body.currency ?? 'USD', 'currency'),
    objects: {},
  };
  const db = s.store.db;
  // The events the scenario records: this account's, after the last one before it (one writer at a time).
  const last = (db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM events').get() as { seq: number }).seq;
  SCENARIOS[type](c);
  const rows = db
    .prepare('SELECT body FROM events WHERE account_id = ? AND seq > ? ORDER BY seq')
    .all(accountId, last) as { body: string }[];
  const events = rows.map((r) => JSON.parse(r.body) as Event);
  if (!events.some((e) => e.type === type)) {
    // The server's state kept the scenario from its event (e.g. every processor marked down): undo it all.
    throw errors.conflict(
      'trigger_failed',
      `The scenario of ${type} recorded ${events.map((e) => e.type).join(', ') || 'nothing'} instead, and was undone. Are processors marked down (GET /test-helpers/processors)?`,
      'event_type',
    );
  }
  return { object: 'trigger', event_type: type, events, objects: c.objects };
}
