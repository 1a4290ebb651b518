// POST /test-helpers/trigger (docs/api.md "Test triggers"): for an event type, a scenario that produces it through
// the same domain calls the API's requests make, never a made-up payload; in the request's one transaction (all or
// nothing). It never moves the account's clock (other objects would change with it): a time-driven change is made due
// by back-dating its object by its lifetime, or run directly on the one object (a renewal), its events dated then.
import { createRequire } from 'node:module';
import type { TSchema } from '@sinclair/typebox';
import type { Services } from './services.js';
import { isEventType, likelyEventType, type EventType } from '../../contract/events.js';
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
import { applyEdits, EditError, editsByStep, sets, type ParamEdit } from '../../contract/edits.js';
import { triggerSteps } from '../../contract/trigger-steps.js';
import { CancelSessionBody, CreateSessionBody, UpdateSessionBody } from '../../contract/sessions.js';
import {
  ConfirmPaymentBody,
  CreateBankAccountBody,
  RefundPaymentBody,
  UpdateBankAccountBody,
} from '../../contract/payments.js';
import {
  CancelSubscriptionBody,
  CreateCheckoutSessionBody,
  CreateCouponBody,
  CreateCustomerBody,
  CreateInvoiceBody,
  CreatePriceBody,
  CreateProductBody,
  CreateSubscriptionBody,
  UpdateCouponBody,
  UpdateCustomerBody,
  UpdateInvoiceBody,
  UpdatePriceBody,
  UpdateProductBody,
  UpdateSubscriptionBody,
} from '../../contract/billing.js';
import {
  CaptureHoldBody,
  CreateHoldBody,
  CreateJournalEntryBody,
  CreateLedgerAccountBody,
  LedgerAccountActionBody,
} from '../../contract/ledger.js';
import { CreateIdentityTokenBody, CreateKycBody } from '../../contract/identity.js';

interface Ctx {
  s: Services;
  accountId: string;
  now: number;
  baseUrl: string;
  amount: number;
  currency: string;
  /** ids of what the scenario made, by kind (the answer's `objects`) */
  objects: Record<string, string>;
  /** The request's override/add/remove, all of them and by step. */
  edits: ParamEdit[];
  byStep: Map<string, ParamEdit[]>;
  skip: Set<string>;
  /** The named steps run, in order (the answer's `steps`). */
  steps: string[];
  check: BodyCheck;
}

/** A scenario: what it answers is not used (what it made is in `c.objects`). */
type Scenario = (c: Ctx) => Promise<unknown>;

/**
 * Checks a step's body against the schema of the route that takes it (the route layer provides it: a trigger's
 * edited body gets the same validation as a request's); throws the contract's 400 naming `step`.
 */
export type BodyCheck = (schema: TSchema, body: unknown, step: string) => void;

// ------------------------------------------------------------------------------------------ named steps

/**
 * The body of the named step `name`: `base` with the request's edits of the step applied, checked as the route
 * that takes it would check it. A skipped step that reaches here is one the scenario acts on itself: an error.
 */
function body<T>(c: Ctx, name: string, schema: TSchema, base: T): T {
  if (c.skip.has(name))
    throw errors.parameterInvalid(
      'skip',
      `the step "${name}" cannot be skipped: the scenario acts on what it makes (only a step whose id a later step takes as a param can be skipped, with that param given)`,
    );
  c.steps.push(name);
  const mine = c.byStep.get(name);
  let out: unknown = base;
  if (mine) {
    try {
      out = applyEdits(base as Record<string, unknown>, mine);
    } catch (err) {
      if (err instanceof EditError) throw errors.parameterInvalid(mine[0]!.op, err.message);
      throw err;
    }
  }
  c.check(schema, out, name);
  return out as T;
}

/**
 * The id step `name` makes (with `make`), for step `user`'s param `param`; undefined when `name` is skipped,
 * which it may be only when the request sets that param of `user` (its own object instead).
 */
async function made(
  c: Ctx,
  name: string,
  user: string,
  param: string,
  make: () => Promise<string>,
): Promise<string | undefined> {
  if (!c.skip.has(name)) return make();
  if (!sets(c.edits, user, param))
    throw errors.parameterInvalid(
      'skip',
      `the step "${name}" makes what the step "${user}" takes as ${param}: skip it only with that param given (--override ${user}:${param}=…)`,
    );
  return undefined;
}

// ------------------------------------------------------------------------------------------ building blocks

async function session(c: Ctx, opts: { capture?: 'manual'; at?: number } = {}): Promise<string> {
  const b = body(c, 'session', CreateSessionBody, {
    amount: c.amount,
    currency: c.currency,
    description: 'payorch trigger',
    ...(opts.capture ? { capture_method: opts.capture } : {}),
  } as CreateSessionBody);
  const created = await c.s.sessions.create(c.accountId, b, opts.at ?? c.now, c.baseUrl);
  c.objects.payment_session = created.id;
  return created.id;
}

/** A session confirmed with test card `token`; returns the payment's id. */
async function pay(c: Ctx, token: string, opts: { capture?: 'manual' } = {}): Promise<string> {
  const id = await session(c, opts);
  const b = body(c, 'payment', ConfirmPaymentBody, {
    payment_method_type: 'card',
    token_id: token,
  } as ConfirmPaymentBody);
  await c.s.payments.confirm(c.accountId, id, b, c.now, c.baseUrl);
  const payment = (await c.s.payments.forSession(c.accountId, id))!;
  c.objects.payment = payment.id;
  return payment.id;
}

async function customer(c: Ctx, card?: string): Promise<string> {
  const b = body(c, 'customer', CreateCustomerBody, {
    email: 'trigger@example.com',
    name: 'payorch trigger',
    ...(card ? { default_payment_method: card } : {}),
  } as CreateCustomerBody);
  const id = (await c.s.billing.customers.create(c.accountId, b, c.now)).id;
  c.objects.customer = id;
  return id;
}

async function product(c: Ctx): Promise<string> {
  const b = body(c, 'product', CreateProductBody, { name: 'payorch trigger product' } as CreateProductBody);
  const id = (await c.s.billing.products.create(c.accountId, b, c.now)).id;
  c.objects.product = id;
  return id;
}

async function price(c: Ctx, recurring?: 'day' | 'month', at = c.now): Promise<string> {
  const b = body(c, 'price', CreatePriceBody, {
    product_data: { name: 'payorch trigger product' },
    currency: c.currency,
    unit_amount: c.amount,
    ...(recurring ? { type: 'recurring', recurring: { interval: recurring } } : { type: 'one_time' }),
  } as CreatePriceBody);
  const id = (await c.s.billing.prices.create(c.accountId, b, at)).id;
  c.objects.price = id;
  return id;
}

async function subscription(
  c: Ctx,
  card: string,
  opts: { trialDays?: number; interval?: 'day' | 'month'; at?: number } = {},
): Promise<string> {
  const at = opts.at ?? c.now;
  const cus = await made(c, 'customer', 'subscription', 'customer', () => customer({ ...c, now: at }, card));
  const pri = await made(c, 'price', 'subscription', 'items', () => price(c, opts.interval ?? 'month', at));
  const b = body(c, 'subscription', CreateSubscriptionBody, {
    customer: cus,
    items: [{ price: pri }],
    ...(opts.trialDays !== undefined ? { trial_period_days: opts.trialDays } : {}),
  } as CreateSubscriptionBody);
  const sub = await c.s.billing.subscriptions.create(c.accountId, b, at);
  c.objects.subscription = sub.id;
  c.objects.customer ??= sub.customer;
  if (sub.latest_invoice) c.objects.invoice = sub.latest_invoice;
  return sub.id;
}

/** A one-line draft invoice of the amount for a customer paying with `card`. */
async function draftInvoice(c: Ctx, card = 'tok_visa', sendInvoice = false): Promise<string> {
  const cus = await made(c, 'customer', 'invoice', 'customer', () => customer(c, card));
  const b = body(c, 'invoice', CreateInvoiceBody, {
    customer: cus,
    currency: c.currency,
    lines: [{ amount: c.amount, description: 'payorch trigger' }],
    ...(sendInvoice ? { collection_method: 'send_invoice', days_until_due: 0 } : {}),
  } as CreateInvoiceBody);
  const inv = await c.s.billing.invoices.create(c.accountId, b, c.now);
  c.objects.invoice = inv.id;
  c.objects.customer ??= inv.customer;
  return inv.id;
}

async function openInvoice(c: Ctx, card = 'tok_visa', sendInvoice = false): Promise<string> {
  const id = await draftInvoice(c, card, sendInvoice);
  await c.s.billing.invoices.finalize(c.accountId, id, c.now);
  return id;
}

async function ledgerAccount(c: Ctx, type: 'asset' | 'equity' = 'asset', name = 'payorch trigger'): Promise<string> {
  const step = type === 'asset' ? 'ledger_account' : 'funding_account';
  const b = body(c, step, CreateLedgerAccountBody, {
    name,
    account_type: type,
    currency: c.currency,
  } as CreateLedgerAccountBody);
  const id = (await c.s.ledger.create(c.accountId, b, c.now, { actor: 'trigger' })).id;
  c.objects[step] = id;
  return id;
}

/** An asset account holding the amount (funded from an equity account by a journal entry). */
async function fundedAccount(c: Ctx): Promise<string> {
  const asset = await ledgerAccount(c);
  const equity = await ledgerAccount(c, 'equity', 'payorch trigger funding');
  const b = body(c, 'journal_entry', CreateJournalEntryBody, {
    description: 'payorch trigger',
    entries: [
      { account_id: asset, direction: 'debit', amount: c.amount },
      { account_id: equity, direction: 'credit', amount: c.amount },
    ],
  } as CreateJournalEntryBody);
  const je = await c.s.ledger.postJournal(c.accountId, b, c.now);
  c.objects.journal_entry = je.id;
  return asset;
}

async function hold(c: Ctx, account: string, opts: { expiresMs?: number; at?: number } = {}): Promise<string> {
  const b = body(c, 'hold', CreateHoldBody, {
    amount: c.amount,
    description: 'payorch trigger',
    ...(opts.expiresMs !== undefined ? { expires_at: isoTime(opts.expiresMs) } : {}),
  } as CreateHoldBody);
  const id = (await c.s.ledger.createHold(c.accountId, account, b, opts.at ?? c.now)).id;
  c.objects.hold = id;
  return id;
}

async function bankAccount(c: Ctx, number: string = ACH_TEST.settles): Promise<string> {
  const b = body(c, 'bank_account', CreateBankAccountBody, {
    holder_name: 'payorch trigger',
    routing_number: ACH_TEST.routing,
    account_number: number,
  } as CreateBankAccountBody);
  const id = (await c.s.bankAccounts.create(c.accountId, b, c.now)).id;
  c.objects.bank_account = id;
  return id;
}

async function identityToken(c: Ctx, value: string): Promise<string> {
  const b = body(c, 'identity_token', CreateIdentityTokenBody, { type: 'ssn', value } as CreateIdentityTokenBody);
  const id = (await c.s.vault.create(c.accountId, b, c.now)).token_id;
  c.objects.identity_token = id;
  return id;
}

async function kyc(c: Ctx, tokens: string[] | undefined, at = c.now): Promise<string> {
  const b = body(c, 'kyc_verification', CreateKycBody, {
    customer_id: 'trigger',
    verification_level: 'basic',
    ...(tokens ? { identity_token_ids: tokens } : {}),
  } as CreateKycBody);
  const id = (await c.s.kyc.create(c.accountId, b, at)).id;
  c.objects.kyc_verification = id;
  return id;
}

/** A KYC verification of an ssn `value`, submitted KYC_PROCESSING_MS ago and decided now. */
async function decidedKyc(c: Ctx, value: string): Promise<void> {
  const submittedAt = c.now - KYC_PROCESSING_MS;
  const token = await identityToken({ ...c, now: submittedAt }, value);
  const id = await kyc(c, [token], submittedAt);
  await c.s.kyc.submit(c.accountId, id, {}, submittedAt);
  await c.s.kyc.decideIfDue(c.accountId, id, c.now);
}

async function coupon(c: Ctx): Promise<string> {
  const b = body(c, 'coupon', CreateCouponBody, { percent_off: 10, name: 'payorch trigger' } as CreateCouponBody);
  const id = (await c.s.billing.coupons.create(c.accountId, b, c.now)).id;
  c.objects.coupon = id;
  return id;
}

/** The body of a ledger account's freeze, unfreeze or close step. */
const reason = (c: Ctx, name: string) =>
  body(c, name, LedgerAccountActionBody, { reason: 'payorch trigger' } as LedgerAccountActionBody);

// ------------------------------------------------------------------------------------------------ scenarios

const refund = async (c: Ctx, token: string) => {
  const id = await pay(c, token);
  await c.s.payments.refund(c.accountId, id, body(c, 'refund', RefundPaymentBody, {} as RefundPaymentBody), c.now);
};

const SCENARIOS: Record<EventType, Scenario> = {
  'payment.requires_action': (c) => pay(c, 'tok_threeDSecureRequired'),
  'payment.authorized': (c) => pay(c, 'tok_visa', { capture: 'manual' }),
  'payment.captured': (c) => pay(c, 'tok_visa'),
  'payment.failed': (c) => pay(c, 'tok_chargeDeclined'),
  'payment.canceled': async (c) => {
    await pay(c, 'tok_visa', { capture: 'manual' });
    const id = c.objects.payment_session!;
    await c.s.sessions.cancel(c.accountId, id, body(c, 'cancel', CancelSessionBody, {} as CancelSessionBody), c.now);
  },
  'refund.succeeded': (c) => refund(c, 'tok_visa'),
  'refund.failed': (c) => refund(c, 'tok_refundFail'),
  'payment_session.created': (c) => session(c),
  'payment_session.updated': async (c) => {
    const id = await session(c);
    const b = body(c, 'update', UpdateSessionBody, { description: 'Updated by a trigger' } as UpdateSessionBody);
    await c.s.sessions.update(c.accountId, id, b, c.now);
  },
  'payment_session.succeeded': (c) => pay(c, 'tok_visa'),
  'payment_session.failed': (c) => pay(c, 'tok_chargeDeclined'),
  'payment_session.canceled': async (c) => {
    const id = await session(c);
    await c.s.sessions.cancel(c.accountId, id, body(c, 'cancel', CancelSessionBody, {} as CancelSessionBody), c.now);
  },
  // created one lifetime ago: its expiry is due now, and runs for this one session when it is next acted on
  'payment_session.expired': async (c) =>
    c.s.sessions.current(c.accountId, await session(c, { at: c.now - SESSION_TTL_MS }), c.now),

  'bank_account.created': (c) => bankAccount(c),
  'bank_account.updated': async (c) => {
    const id = await bankAccount(c);
    const b = body(c, 'update', UpdateBankAccountBody, { nickname: 'payorch trigger' } as UpdateBankAccountBody);
    await c.s.bankAccounts.update(c.accountId, id, b, c.now);
  },
  'bank_account.verified': async (c) => {
    const id = await bankAccount(c);
    await c.s.bankAccounts.initiateMicrodeposits(c.accountId, id, c.now);
    await c.s.bankAccounts.verify(c.accountId, id, [...MICRODEPOSIT_AMOUNTS], c.now);
  },
  'bank_account.verification_failed': async (c) => {
    const id = await bankAccount(c);
    await c.s.bankAccounts.initiateMicrodeposits(c.accountId, id, c.now);
    for (let i = 0; i < MICRODEPOSIT_ATTEMPTS; i++) await c.s.bankAccounts.verify(c.accountId, id, [1, 2], c.now);
  },
  'bank_account.deleted': async (c) => c.s.bankAccounts.delete(c.accountId, await bankAccount(c), c.now),
  'network_token.created': async (c) => {
    c.objects.network_token = (await c.s.cards.createNetworkToken(c.accountId, 'tok_visa', c.now)).id;
  },
  'network_token.deleted': async (c) => {
    const id = (await c.s.cards.createNetworkToken(c.accountId, 'tok_visa', c.now)).id;
    c.objects.network_token = id;
    await c.s.cards.deleteNetworkToken(c.accountId, id, c.now);
  },

  'customer.created': (c) => customer(c),
  'customer.updated': async (c) => {
    const id = await customer(c);
    const b = body(c, 'update', UpdateCustomerBody, { name: 'payorch trigger (updated)' } as UpdateCustomerBody);
    await c.s.billing.customers.update(c.accountId, id, b, c.now);
  },
  'customer.deleted': async (c) => c.s.billing.customers.delete(c.accountId, await customer(c), c.now),
  'product.created': (c) => product(c),
  'product.updated': async (c) => {
    const id = await product(c);
    const b = body(c, 'update', UpdateProductBody, {
      name: 'payorch trigger product (updated)',
    } as UpdateProductBody);
    await c.s.billing.products.update(c.accountId, id, b, c.now);
  },
  'product.deleted': async (c) => c.s.billing.products.delete(c.accountId, await product(c), c.now),
  'price.created': (c) => price(c),
  'price.updated': async (c) => {
    const id = await price(c);
    const b = body(c, 'update', UpdatePriceBody, { nickname: 'payorch trigger' } as UpdatePriceBody);
    await c.s.billing.prices.update(c.accountId, id, b, c.now);
  },
  'coupon.created': (c) => coupon(c),
  'coupon.updated': async (c) => {
    const id = await coupon(c);
    const b = body(c, 'update', UpdateCouponBody, { name: 'payorch trigger (updated)' } as UpdateCouponBody);
    await c.s.billing.coupons.update(c.accountId, id, b, c.now);
  },
  'coupon.deleted': async (c) => c.s.billing.coupons.delete(c.accountId, await coupon(c), c.now),
  'subscription.created': (c) => subscription(c, 'tok_visa'),
  'subscription.updated': async (c) => {
    const id = await subscription(c, 'tok_visa');
    const b = body(c, 'update', UpdateSubscriptionBody, {
      metadata: { trigger: 'payorch' },
    } as UpdateSubscriptionBody);
    await c.s.billing.subscriptions.update(c.accountId, id, b, c.now);
  },
  // a trial shorter than the 3 days' notice: recorded at once
  'subscription.trial_will_end': (c) => subscription(c, 'tok_visa', { trialDays: 1 }),
  // a daily subscription created a day ago: its renewal is due now, and runs for this one subscription
  'subscription.renewed': async (c) => {
    const subs = c.s.billing.subscriptions;
    const id = await subscription(c, 'tok_visa', { interval: 'day', at: c.now - DAY_MS });
    await subs.renew(c.accountId, await subs.load(c.accountId, id), c.now);
    c.objects.invoice = (await subs.load(c.accountId, id)).latest_invoice!;
  },
  'subscription.canceled': async (c) => {
    const id = await subscription(c, 'tok_visa');
    const b = body(c, 'cancel', CancelSubscriptionBody, {} as CancelSubscriptionBody);
    await c.s.billing.subscriptions.cancel(c.accountId, id, b, c.now);
  },
  // a monthly subscription: its renewal's notice is run at once for this one subscription (dated now)
  'invoice.upcoming': async (c) => {
    const subs = c.s.billing.subscriptions;
    const id = await subscription(c, 'tok_visa');
    await subs.notifyUpcoming(c.accountId, await subs.load(c.accountId, id), c.now);
  },
  'invoice.created': (c) => draftInvoice(c),
  'invoice.updated': async (c) => {
    const id = await draftInvoice(c);
    const b = body(c, 'update', UpdateInvoiceBody, { description: 'payorch trigger' } as UpdateInvoiceBody);
    await c.s.billing.invoices.update(c.accountId, id, b, c.now);
  },
  'invoice.deleted': async (c) => c.s.billing.invoices.delete(c.accountId, await draftInvoice(c), c.now),
  'invoice.finalized': (c) => openInvoice(c),
  'invoice.paid': async (c) => c.s.billing.invoices.pay(c.accountId, await openInvoice(c), {}, c.now),
  // a customer whose card declines, subscribed: the first invoice's charge fails
  'invoice.payment_failed': (c) => subscription(c, 'tok_chargeDeclined'),
  // send_invoice due today: its due date has come, and runs for this one invoice
  'invoice.overdue': async (c) => {
    const inv = c.s.billing.invoices;
    await inv.pastDue(c.accountId, await inv.load(c.accountId, await openInvoice(c, 'tok_visa', true)), c.now);
  },
  'invoice.marked_uncollectible': async (c) =>
    c.s.billing.invoices.markUncollectible(c.accountId, await openInvoice(c), c.now),
  'invoice.voided': async (c) => c.s.billing.invoices.void(c.accountId, await openInvoice(c), c.now),
  'checkout_session.completed': async (c) => {
    const pri = await made(c, 'price', 'checkout_session', 'line_items', () => price(c));
    const b = body(c, 'checkout_session', CreateCheckoutSessionBody, {
      mode: 'payment',
      line_items: [{ price: pri }],
    } as CreateCheckoutSessionBody);
    const cks = await c.s.billing.checkouts.create(c.accountId, b, c.now, c.baseUrl);
    c.objects.checkout_session = cks.id;
    c.objects.payment_session = cks.payment_session!;
    const confirm = body(c, 'payment', ConfirmPaymentBody, {
      payment_method_type: 'card',
      token_id: 'tok_visa',
    } as ConfirmPaymentBody);
    await c.s.payments.confirm(c.accountId, cks.payment_session!, confirm, c.now, c.baseUrl);
    c.objects.payment = (await c.s.payments.forSession(c.accountId, cks.payment_session!))!.id;
  },
  // created one lifetime ago: its expiry is due now, and runs for this one checkout session
  'checkout_session.expired': async (c) => {
    const at = c.now - CHECKOUT_TTL_MS;
    const pri = await made(c, 'price', 'checkout_session', 'line_items', () => price(c, 'month', at));
    const b = body(c, 'checkout_session', CreateCheckoutSessionBody, {
      mode: 'subscription',
      line_items: [{ price: pri }],
    } as CreateCheckoutSessionBody);
    const cks = await c.s.billing.checkouts.create(c.accountId, b, at, c.baseUrl);
    c.objects.checkout_session = cks.id;
    await c.s.billing.checkouts.expireIfDue(c.accountId, cks.id, c.now);
  },

  'ledger_account.created': (c) => ledgerAccount(c),
  'ledger_account.frozen': async (c) => {
    const id = await ledgerAccount(c);
    await c.s.ledger.freeze(c.accountId, id, reason(c, 'freeze'), c.now, { actor: 'trigger' });
  },
  'ledger_account.unfrozen': async (c) => {
    const id = await ledgerAccount(c);
    await c.s.ledger.freeze(c.accountId, id, reason(c, 'freeze'), c.now, { actor: 'trigger' });
    await c.s.ledger.unfreeze(c.accountId, id, reason(c, 'unfreeze'), c.now, { actor: 'trigger' });
  },
  'ledger_account.closed': async (c) => {
    const id = await ledgerAccount(c);
    await c.s.ledger.close(c.accountId, id, reason(c, 'close'), c.now, { actor: 'trigger' });
  },
  'journal_entry.created': (c) => fundedAccount(c),
  'hold.created': async (c) => hold(c, await fundedAccount(c)),
  'hold.captured': async (c) => {
    const account = await fundedAccount(c);
    const id = await hold(c, account);
    const b = body(c, 'capture', CaptureHoldBody, {
      destination_account_id: c.objects.funding_account!,
    } as CaptureHoldBody);
    await c.s.ledger.captureHold(c.accountId, id, b, c.now);
  },
  'hold.released': async (c) => c.s.ledger.releaseHold(c.accountId, await hold(c, await fundedAccount(c)), c.now),
  // placed a moment ago, expiring now: its expiry runs for this one hold
  'hold.expired': async (c) => {
    const account = await fundedAccount(c);
    await c.s.ledger.expireHoldIfDue(c.accountId, await hold(c, account, { expiresMs: c.now, at: c.now - 1 }), c.now);
  },

  'kyc_verification.created': (c) => kyc(c, undefined),
  'kyc_verification.processing': async (c) => {
    const id = await kyc(c, [await identityToken(c, '123456789')]);
    await c.s.kyc.submit(c.accountId, id, {}, c.now);
  },
  'kyc_verification.verified': (c) => decidedKyc(c, '123456789'),
  'kyc_verification.rejected': (c) => decidedKyc(c, '000000000'),
  'kyc_verification.requires_input': (c) => decidedKyc(c, '111111111'),
  'kyc_verification.canceled': async (c) => c.s.kyc.cancel(c.accountId, await kyc(c, undefined), c.now),
  'identity_token.created': (c) => identityToken(c, '123456789'),
  'identity_token.deleted': async (c) => c.s.vault.delete(c.accountId, await identityToken(c, '123456789'), c.now),
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
 * order. An unknown type is 400 parameter_invalid naming the nearest known one; `override`, `add`, `remove` and
 * `skip` change the bodies of the scenario's named steps (triggerSteps) before they run, each body then checked
 * by `check` as its route would check it.
 */
export async function trigger(
  s: Services,
  accountId: string,
  body: TriggerBody,
  now: number,
  baseUrl: string,
  check: BodyCheck,
): Promise<TriggerResult> {
  if (!isEventType(body.event_type)) {
    throw errors.parameterInvalid(
      'event_type',
      `'${body.event_type}' is not an event type (the nearest is '${nearestEventType(body.event_type)}')`,
    );
  }
  const type = body.event_type;
  const edits: ParamEdit[] = [
    ...(body.override ?? []).map((e) => ({ op: 'override' as const, ...e })),
    ...(body.add ?? []).map((e) => ({ op: 'add' as const, ...e })),
    ...(body.remove ?? []).map((e) => ({ op: 'remove' as const, step: e.step, param: e.param })),
  ];
  const steps = triggerSteps(type);
  const known = (name: string) => steps.some((st) => st.name === name);
  const list = steps.map((st) => st.name).join(', ') || 'none';
  for (const e of edits)
    if (!known(e.step)) throw errors.parameterInvalid(e.op, `${type} has no step "${e.step}" (its steps: ${list})`);
  for (const name of body.skip ?? [])
    if (!known(name)) throw errors.parameterInvalid('skip', `${type} has no step "${name}" (its steps: ${list})`);
  const c: Ctx = {
    s,
    accountId,
    now,
    baseUrl,
    amount: body.amount ?? 2000,
    currency: normalizeCurrency(body.currency ?? 'USD', 'currency'),
    objects: {},
    edits,
    byStep: editsByStep(edits),
    skip: new Set(body.skip ?? []),
    steps: [],
    check,
  };
  for (const e of edits)
    if (c.skip.has(e.step))
      throw errors.parameterInvalid(e.op, `the step "${e.step}" is skipped, so its ${e.op} would change nothing`);
  const stored = s.ports.triggers;
  // The events the scenario records: this account's, after the last one before it (one writer at a time).
  const last = await stored.lastEvent();
  await SCENARIOS[type](c);
  const events = await stored.eventsAfter(accountId, last);
  if (!events.some((e) => e.type === type)) {
    // The server's state kept the scenario from its event (e.g. every processor marked down): undo it all.
    throw errors.conflict(
      'trigger_failed',
      `The scenario of ${type} recorded ${events.map((e) => e.type).join(', ') || 'nothing'} instead, and was undone. Are processors marked down (GET /test-helpers/processors)?`,
      'event_type',
    );
  }
  return { object: 'trigger', event_type: type, events, objects: c.objects, steps: c.steps };
}
