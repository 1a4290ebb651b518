// The payments engine: confirm (routing.ts: failover across processors), 3DS continuation, capture, refund,
// void on session cancel, ACH settlement on the clock, and off-session charges for billing.
// Every method runs synchronously inside the caller's transaction.
import { randomBytes, randomUUID } from 'node:crypto';
import type { ConfirmPaymentBody, CapturePaymentBody, ListPaymentsQuery, Payment, PaymentStatus, RefundPaymentBody, RoutingRule, SessionConfig, ThreeDSResult } from '../../../contract/payments.js';
import type { PaymentMethodType, PaymentSession, SessionStatus } from '../../../contract/sessions.js';
import type { List } from '../../../contract/common.js';
import type { Store } from '../../store/db.js';
import type { Hooks } from '../hooks.js';
import type { Events } from '../events.js';
import type { EventType } from '../../../contract/events.js';
import type { SessionFacts, Sessions } from '../sessions.js';
import type { DueWork } from '../due.js';
import { tooLargeToCharge, type Charger, type ChargeRequest, type ChargeResult } from '../charges.js';
import type { CardOutcome } from '../testcards.js';
import { Collection } from '../../store/collection.js';
import { tables } from '../../store/tables.js';
import { newUuid } from '../../ids.js';
import { isoTime, unixSeconds } from '../../clock.js';
import { errors, ServiceError } from '../../errors.js';
import { Outcome } from '../outcome.js';
import { ProcessorRegistry, declineMessage } from './processors.js';
import { route, type RouteResult } from './routing.js';
import type { Cards } from './cards.js';
import type { AchOutcome, BankAccounts } from './bankaccounts.js';

/** The 3DS protocol version the test challenge speaks (reported in `three_d_secure.version`). */
const THREEDS_VERSION = '2.2.0';

/** The merchant name wallet payment sheets show in test mode. */
const TEST_MERCHANT_NAME = 'payorch test merchant';

/** An ACH debit settles this long after confirmation (test mode). */
export const ACH_SETTLE_MS = 2 * 86_400_000;

interface ThreeDSRecord {
  status: 'challenge_required' | 'authenticated' | 'failed';
  authentication_value: string | null;
  eci: string | null;
  ds_transaction_id: string;
  liability_shift: boolean;
}

/** What is stored: the API object plus the test behaviour needed later (never a card or account number). */
type StoredPayment = Omit<Payment, 'routing' | 'three_d_secure' | 'routing_profile_id'> & {
  /** `forced` when the confirm named a processor (absent on payments stored before it was kept). */
  selection_reason?: 'forced' | 'routing_rules';
  routing_profile_id?: string | null;
  card_outcome: CardOutcome | null;
  ach_outcome: AchOutcome | null;
  settle_ms: number | null;
  threeds: ThreeDSRecord | null;
};

type Source =
  | { method: 'card'; outcome: CardOutcome; card: Payment['card'] }
  | { method: 'walletone_pay' | 'wallettwo_pay' | 'walletthree'; token: string }
  | { method: 'bank_account'; bank: NonNullable<Payment['bank_account']>; outcome: AchOutcome };

const SOURCE_FIELDS = ['token_id', 'walletone_pay_token', 'wallettwo_pay_token', 'walletthree_token', 'bank_account'] as const;
const METHOD_OF: Record<(typeof SOURCE_FIELDS)[number], PaymentMethodType> = {
  token_id: 'card',
  walletone_pay_token: 'walletone_pay',
  wallettwo_pay_token: 'wallettwo_pay',
  walletthree_token: 'walletthree',
  bank_account: 'bank_account',
};

export interface PaymentsDeps {
  store: Store;
  hooks: Hooks;
  events: Events;
  sessions: Sessions;
  cards: Cards;
  bankAccounts: BankAccounts;
  processors: ProcessorRegistry;
  routing: RoutingRule[];
}

/** The payment events of each status (the live service's names); a pending ACH debit records none until it settles. */
const PAYMENT_EVENTS: Partial<Record<PaymentStatus, EventType>> = {
  requires_action: 'payment.requires_action',
  authorized: 'payment.authorized',
  captured: 'payment.captured',
  failed: 'payment.failed',
  canceled: 'payment.canceled',
};

/** The status the API shows: a payment stored by an earlier version as `pending` during a 3DS challenge reads as requires_action. */
function apiStatus(p: StoredPayment): PaymentStatus {
  const challenged = p.threeds?.status === 'challenge_required' && (p.status === 'pending' || p.status === 'requires_action');
  return challenged ? 'requires_action' : p.status;
}

/** The next action the API shows (earlier versions stored `{type: "threeds_challenge", url}`). */
function apiNextAction(p: StoredPayment): Payment['next_action'] {
  const next = p.next_action;
  return next && { type: 'redirect_to_url', url: next.url, redirect_to_url: next.redirect_to_url ?? { url: next.url, return_url: next.url.split('?')[0]! } };
}

export class PaymentsEngine implements DueWork, Charger {
  readonly name = 'ach settlement';
  readonly collection: Collection<StoredPayment>;
  /** The payment confirm has just stored, while it moves the session: its session's latest (see paymentView). */
  private justStored?: { accountId: string; p: StoredPayment };

  constructor(private readonly d: PaymentsDeps) {
    this.collection = new Collection<StoredPayment>(d.store, tables.payments);
    // Void on session cancel / expiry.
    d.sessions.cancelHooks.push((accountId, sessionId, now) => this.onSessionCanceled(accountId, sessionId, now));
    // A session shows its latest payment (`latest_attempt`) and that payment's `next_action`.
    d.sessions.paymentView = (accountId, sessionId) => {
      const stored = this.justStored;
      const p = stored && stored.accountId === accountId && stored.p.session_id === sessionId ? stored.p : this.latestFor(accountId, sessionId);
      if (!p) return null;
      // Only these fields of the API object (a confirm's V8 profile: the whole toApi here was ~1.6% of its CPU).
      return { latest_attempt: { id: p.id, psp: p.psp, status: apiStatus(p), psp_transaction_id: p.psp_transaction_id }, next_action: apiNextAction(p) };
    };
  }

  /**
   * The API object. `routing` and `three_d_secure` are made from what is stored; payments stored by earlier
   * versions (a 3DS payment `pending` with `{type: "threeds_challenge", url}`, wallets and bank accounts
   * without the later fields) read in today's shape.
   */
  private toApi(p: StoredPayment): Payment {
    const { card_outcome: _c, ach_outcome: _a, settle_ms: _s, threeds, selection_reason, routing_profile_id, ...api } = p;
    return {
      ...api,
      status: apiStatus(p),
      wallet: api.wallet ? { type: api.wallet.type, card_network: api.wallet.card_network ?? null } : null,
      bank_account: api.bank_account ? { ...api.bank_account, bank_name: api.bank_account.bank_name ?? null, account_type: api.bank_account.account_type ?? null } : null,
      routing: { attempts: p.attempts.length, selected_psp: p.psp, selection_reason: selection_reason ?? 'routing_rules', is_retry: p.attempts.length > 1 },
      routing_profile_id: routing_profile_id ?? null,
      next_action: apiNextAction(p),
      three_d_secure: threeds ? { version: THREEDS_VERSION, authentication_status: threeds.status, eci: threeds.eci } : null,
    };
  }

  /** Records the event of the payment's status, if it has one (a pending ACH debit has none yet); returns the API object. */
  private recordStatus(accountId: string, p: StoredPayment, at: number, previous?: PaymentStatus): Payment {
    const api = this.toApi(p);
    const type = PAYMENT_EVENTS[api.status];
    if (!type) return api;
    this.d.events.record(accountId, type, api, {
      at,
      previous: previous === undefined ? undefined : { status: previous },
      payment: { session_id: p.session_id, amount: p.amount, currency: p.currency, psp: p.psp },
    });
    return api;
  }

  private latestFor(accountId: string, sessionId: string): StoredPayment | undefined {
    return this.collection.selectWhere('account_id = ? AND session_id = ?', accountId, sessionId).at(-1)?.doc;
  }

  // ------------------------------------------------------------------------------------- confirm

  private resolveSource(accountId: string, session: SessionFacts, body: ConfirmPaymentBody, now: number): Source {
    const given = SOURCE_FIELDS.filter((f) => body[f] !== undefined);
    if (given.length !== 1) {
      throw new ServiceError({
        status: 400,
        type: 'validation_error',
        code: given.length === 0 ? 'parameter_missing' : 'parameter_invalid',
        param: given[1] ?? 'token_id',
        message: `Give exactly one payment source: ${SOURCE_FIELDS.join(', ')}${given.length ? ` (got ${given.join(', ')})` : ''}.`,
      });
    }
    const field = given[0]!;
    const method = METHOD_OF[field];
    if (body.payment_method_type !== undefined && body.payment_method_type !== method) {
      throw errors.parameterInvalid('payment_method_type', `${body.payment_method_type} does not match the source ${field} (${method})`);
    }
    if (!session.payment_method_types.includes(method)) {
      throw errors.invalidRequest(
        'payment_method_not_allowed',
        `This payment session does not allow ${method}; allowed: ${session.payment_method_types.join(', ')}.`,
        'payment_method_type',
      );
    }
    switch (field) {
      case 'token_id': {
        const { card, outcome } = this.d.cards.resolve(accountId, body.token_id!, now);
        return { method: 'card', card, outcome };
      }
      case 'bank_account': {
        if (session.currency !== 'USD') throw errors.invalidRequest('payment_method_not_allowed', 'ACH debits are in USD only.', 'bank_account');
        const { account, outcome } = this.d.bankAccounts.forDebit(accountId, body.bank_account!.bank_account_id);
        const type = body.bank_account!.account_type;
        if (type !== undefined && type !== account.account_type) {
          throw errors.parameterInvalid('bank_account.account_type', `is ${type}, but bank account ${account.id} is a ${account.account_type} account`);
        }
        return {
          method: 'bank_account',
          outcome,
          bank: {
            id: account.id,
            last4: account.last4,
            routing_last4: account.routing_last4,
            account_holder_name: body.bank_account!.account_holder_name,
            bank_name: account.bank_name,
            account_type: account.account_type,
          },
        };
      }
      default:
        return { method: method as 'walletone_pay', token: body[field] as string };
    }
  }

  private newPayment(
    p: { session_id: string | null; amount: number; currency: string; capture_method: 'automatic' | 'manual'; description: string | null; metadata: Record<string, string> },
    source: Source,
    now: number,
  ): StoredPayment {
    return {
      id: newUuid(),
      object: 'payment',
      session_id: p.session_id,
      amount: p.amount,
      currency: p.currency,
      status: 'pending',
      capture_method: source.method === 'bank_account' ? 'automatic' : p.capture_method,
      payment_method_type: source.method,
      psp: null,
      psp_transaction_id: null,
      captured_amount: 0,
      refunded_amount: 0,
      card: source.method === 'card' ? source.card : null,
      // A wallet token here carries no card, so no network (the live service reports the processor's).
      wallet: source.method !== 'card' && source.method !== 'bank_account' ? { type: source.method, card_network: null } : null,
      bank_account: source.method === 'bank_account' ? source.bank : null,
      attempts: [],
      next_action: null,
      failure_code: null,
      failure_message: null,
      decline_code: null,
      refunds: [],
      description: p.description,
      metadata: p.metadata,
      settles_at: null,
      canceled_at: null,
      created_at: isoTime(now),
      livemode: false,
      card_outcome: source.method === 'card' ? source.outcome : null,
      ach_outcome: source.method === 'bank_account' ? source.outcome : null,
      settle_ms: null,
      threeds: null,
    };
  }

  /**
   * Applies a routing result to a new payment; returns the session status it leads to. `returnUrl`: where the
   * payer's browser goes after a 3DS challenge.
   */
  private apply(p: StoredPayment, r: RouteResult, now: number, baseUrl: string, returnUrl?: string): SessionStatus {
    p.attempts = r.attempts;
    p.psp = r.psp;
    const o = r.outcome;
    if (o.kind === 'failed') {
      this.fail(p, o.code, o.message, o.decline_code);
      return 'failed';
    }
    p.psp_transaction_id = o.transaction_id;
    if (o.kind === 'requires_3ds') {
      // requires_action, not the contract's pending: the live service answers so and its SDK's challenge
      // branch tests for it (docs/api.md "Live-service parity").
      p.status = 'requires_action';
      const url = `${baseUrl}/pay/${p.session_id}?step=threeds`;
      p.next_action = { type: 'redirect_to_url', url, redirect_to_url: { url, return_url: returnUrl ?? `${baseUrl}/pay/${p.session_id}` } };
      p.threeds = { status: 'challenge_required', authentication_value: null, eci: null, ds_transaction_id: randomUUID(), liability_shift: false };
      return 'requires_action';
    }
    if (p.payment_method_type === 'bank_account') {
      p.status = 'pending';
      p.settle_ms = now + ACH_SETTLE_MS;
      p.settles_at = isoTime(p.settle_ms);
      return 'processing';
    }
    return this.authorized(p);
  }

  /** An approved authorization: captured at once (automatic) or held for capture (manual). */
  private authorized(p: StoredPayment): SessionStatus {
    p.next_action = null;
    if (p.capture_method === 'manual') {
      p.status = 'authorized';
      return 'processing';
    }
    p.status = 'captured';
    p.captured_amount = p.amount;
    return 'succeeded';
  }

  /**
   * Posts a capture to the ledger (journal_entry.created), called last: every capture records the payment's
   * event, then the session's, then the journal entry's — a confirm, a 3DS completion, an ACH settlement, an
   * off-session charge and a manual capture alike.
   */
  private posted(accountId: string, p: StoredPayment, amount: number, at: number): void {
    this.d.hooks.emit('paymentCaptured', accountId, { payment_id: p.id, amount, currency: p.currency, at });
  }

  private fail(p: StoredPayment, code: string, message: string, declineCode: string): void {
    p.status = 'failed';
    p.next_action = null;
    p.failure_code = code;
    p.failure_message = message;
    p.decline_code = declineCode;
  }

  private cardError(p: StoredPayment): ServiceError {
    return new ServiceError({
      status: 402,
      type: 'card_error',
      code: p.failure_code ?? 'card_declined',
      message: p.failure_message ?? 'The payment was declined.',
      decline_code: p.decline_code ?? undefined,
      payment_id: p.id,
    });
  }

  /**
   * POST /confirm-payment/{session_id} and POST /confirm-payment (the id in the body). The session moves out
   * of requires_payment_method in the same transaction that checks it, so of racing confirms exactly one
   * creates a payment; the others get 409.
   */
  confirm(accountId: string, sessionId: string, body: ConfirmPaymentBody, now: number, baseUrl: string): Payment | Outcome {
    const session = this.d.sessions.current(accountId, sessionId, now);
    if (session.status !== 'requires_payment_method') {
      throw errors.unexpectedState('session', `This payment session is ${session.status}; it can only be confirmed while requires_payment_method.`);
    }
    const source = this.resolveSource(accountId, session, body, now);
    const p = this.newPayment(
      { session_id: session.id, amount: session.amount, currency: session.currency, capture_method: session.capture_method, description: session.description, metadata: {} },
      source,
      now,
    );
    p.selection_reason = body.psp ? 'forced' : 'routing_rules';
    p.routing_profile_id = body.routing_profile_id ?? null;
    const r = route(this.d.routing, this.d.processors, source.method, session.currency, session.amount, body.psp, {
      amount: session.amount,
      currency: session.currency,
      method: source.method,
      capture: p.capture_method,
      card: source.method === 'card' ? { outcome: source.outcome } : undefined,
      wallet_token: 'token' in source ? source.token : undefined,
    });
    const next = this.apply(p, r, now, baseUrl, session.success_url ?? undefined);
    // The payment first: the session's event shows it as the session's latest attempt — this payment, known
    // here without reading it back (measured: a query and a JSON parse of every payment of the session).
    this.collection.insert(accountId, p);
    const api = this.recordStatus(accountId, p, now);
    this.justStored = { accountId, p };
    try {
      this.d.sessions.transition(accountId, session.id, now, ['requires_payment_method'], next, 'confirmed', session);
    } finally {
      this.justStored = undefined;
    }
    if (p.status === 'captured') this.posted(accountId, p, p.amount, now);
    return p.status === 'failed' ? new Outcome(this.cardError(p)) : api;
  }

  // ------------------------------------------------------------------------------------ 3DS

  private threedsPayment(accountId: string, sessionId: string): StoredPayment {
    this.d.sessions.collection.require(accountId, sessionId, 'payment_session', 'session_id');
    const p = this.collection.selectWhere('account_id = ? AND session_id = ?', accountId, sessionId).map((r) => r.doc).find((x) => x.threeds);
    if (!p) throw errors.notFound('threeds_authentication', sessionId, 'session_id');
    return p;
  }

  private threedsApi(p: StoredPayment): ThreeDSResult {
    return { object: 'threeds_result', session_id: p.session_id!, payment_id: p.id, ...p.threeds!, payment_status: this.toApi(p).status };
  }

  threedsResult(accountId: string, sessionId: string): ThreeDSResult {
    return this.threedsApi(this.threedsPayment(accountId, sessionId));
  }

  /** The cardholder finished the challenge: the test card decides; the payment proceeds on the same processor. */
  threedsComplete(accountId: string, sessionId: string, now: number): ThreeDSResult {
    const p = this.threedsPayment(accountId, sessionId);
    const t = p.threeds!;
    if (t.status !== 'challenge_required') return this.threedsApi(p);
    // (pending: a challenge begun before payments awaiting one were requires_action)
    if (p.status !== 'requires_action' && p.status !== 'pending') {
      throw errors.unexpectedState('payment', `This payment is ${p.status}; its 3DS challenge can no longer be completed.`);
    }
    const o = p.card_outcome;
    const authenticated = o?.kind === 'threeds' && o.then === 'success';
    Object.assign(t, authenticated
      ? { status: 'authenticated', authentication_value: randomBytes(20).toString('base64'), eci: '05', liability_shift: true }
      : { status: 'failed', authentication_value: null, eci: '07', liability_shift: false });
    const r = this.d.processors.get(p.psp!).authorize({
      amount: p.amount,
      currency: p.currency,
      method: 'card',
      capture: p.capture_method,
      card: o ? { outcome: o } : undefined,
      attempt_index: p.attempts.length - 1,
      threeds: authenticated ? 'authenticated' : 'failed',
    });
    let next: SessionStatus;
    if (r.kind === 'approved') {
      p.attempts.at(-1)!.status = 'succeeded';
      p.psp_transaction_id = r.transaction_id;
      next = this.authorized(p);
    } else {
      const code = r.kind === 'requires_3ds' ? 'authentication_failed' : r.code;
      p.attempts.at(-1)!.status = 'failed';
      p.attempts.at(-1)!.code = code;
      this.fail(p, code, declineMessage(code), code);
      next = 'failed';
    }
    this.collection.update(accountId, p);
    this.recordStatus(accountId, p, now, 'requires_action');
    this.d.sessions.transition(accountId, p.session_id!, now, ['requires_action'], next, 'authenticated');
    if (next === 'succeeded') this.posted(accountId, p, p.amount, now);
    return this.threedsApi(p);
  }

  // -------------------------------------------------------------------------- read, capture, refund

  private load(accountId: string, id: string): StoredPayment {
    return this.collection.require(accountId, id, 'payment', 'payment_id');
  }

  get(accountId: string, id: string): Payment {
    return this.toApi(this.load(accountId, id));
  }

  forSession(accountId: string, sessionId: string): Payment | null {
    const rows = this.collection.selectWhere('account_id = ? AND session_id = ?', accountId, sessionId);
    const last = rows.at(-1)?.doc;
    return last ? this.toApi(last) : null;
  }

  list(accountId: string, url: string, q: ListPaymentsQuery): List<Payment> {
    const page = this.collection.list(accountId, url, { ...q, where: { session_id: q.session_id, status: q.status } });
    return { ...page, data: page.data.map((p) => this.toApi(p)) };
  }

  capture(accountId: string, id: string, body: CapturePaymentBody, now: number): Payment {
    const p = this.load(accountId, id);
    if (p.status !== 'authorized') throw errors.unexpectedState('payment', `This payment is ${p.status}; only an authorized payment can be captured.`);
    const amount = body.amount ?? p.amount;
    if (amount > p.amount) throw errors.parameterInvalid('amount', `must be at most the authorized amount (${p.amount})`);
    p.status = 'captured';
    p.captured_amount = amount;
    this.collection.update(accountId, p);
    this.recordStatus(accountId, p, now, 'authorized');
    if (p.session_id) this.d.sessions.transition(accountId, p.session_id, now, ['processing'], 'succeeded', 'captured');
    this.posted(accountId, p, amount, now);
    return this.toApi(p);
  }

  refund(accountId: string, id: string, body: RefundPaymentBody, now: number): Payment | Outcome {
    const p = this.load(accountId, id);
    if (p.status !== 'captured') throw errors.unexpectedState('payment', `This payment is ${p.status}; only a captured payment can be refunded.`);
    const remaining = p.captured_amount - p.refunded_amount;
    const amount = body.amount ?? remaining;
    if (amount > remaining) throw errors.parameterInvalid('amount', `must be at most the amount not yet refunded (${remaining})`);
    if (p.card_outcome?.kind === 'success' && p.card_outcome.refunds === 'fail') return this.refundFailed(accountId, p, amount, body, now);
    p.refunded_amount += amount;
    p.refunds.push({ amount, reason: body.reason ?? null, created_at: isoTime(now) });
    const before = { status: p.status, refunded_amount: p.refunded_amount - amount };
    if (p.refunded_amount === p.captured_amount) p.status = 'refunded';
    this.collection.update(accountId, p);
    this.d.events.record(accountId, 'refund.succeeded', this.toApi(p), {
      at: now,
      previous: before,
      payment: { session_id: p.session_id, amount, currency: p.currency, psp: p.psp, refund: p.refunds.at(-1)! },
    });
    this.d.hooks.emit('paymentRefunded', accountId, { payment_id: p.id, amount, currency: p.currency, at: now });
    return this.toApi(p);
  }

  /**
   * The processor refused the refund (test card tok_refundFail): the payment stays as it was, refund.failed is
   * recorded (committed) and the request answers 402 refund_failed.
   */
  private refundFailed(accountId: string, p: StoredPayment, amount: number, body: RefundPaymentBody, now: number): Outcome {
    const refund = { amount, reason: body.reason ?? null, created_at: isoTime(now), status: 'failed', failure_reason: 'processor_declined' };
    this.d.events.record(accountId, 'refund.failed', this.toApi(p), { at: now, payment: { session_id: p.session_id, amount, currency: p.currency, psp: p.psp, refund } });
    return new Outcome(
      new ServiceError({ status: 402, type: 'card_error', code: 'refund_failed', message: `The processor declined the refund of ${amount} on payment ${p.id}; the payment is unchanged.`, payment_id: p.id }),
    );
  }

  /** Session canceled or expired: void an authorization or an unfinished 3DS payment. A pending ACH debit cannot be recalled. */
  private onSessionCanceled(accountId: string, sessionId: string, now: number): void {
    for (const { doc: p } of this.collection.selectWhere('account_id = ? AND session_id = ?', accountId, sessionId)) {
      if (p.status === 'pending' && p.payment_method_type === 'bank_account') {
        throw errors.unexpectedState('session', 'This payment session has an ACH debit in flight; it cannot be canceled until the debit settles or fails.');
      }
      if (p.status === 'authorized' || p.status === 'pending' || p.status === 'requires_action') {
        const before = this.toApi(p).status;
        p.status = 'canceled';
        p.next_action = null;
        p.canceled_at = unixSeconds(now);
        this.collection.update(accountId, p);
        this.recordStatus(accountId, p, now, before);
      }
    }
  }

  /**
   * GET /get-session-config/{session_id} (and POST, and both without the id for a client secret, which names its
   * session): what a checkout page or the live service's browser SDK needs. Unlike the live service, which
   * answers 400 once a session is finished, every status answers 200 with the status (a page shows the result).
   */
  sessionConfig(accountId: string, sessionId: string, now: number, baseUrl: string): SessionConfig {
    const s = this.d.sessions.get(accountId, sessionId);
    const p = this.forSession(accountId, sessionId);
    const methods = s.payment_method_types;
    return {
      object: 'session_config',
      session_id: s.id,
      status: s.status,
      amount: s.amount,
      currency: s.currency,
      description: s.description,
      external_id: s.external_id,
      capture_method: s.capture_method,
      payment_method_types: methods,
      payment_methods: methods,
      client_secret: s.client_secret,
      fallback_url: s.fallback_url,
      environment: 'test',
      capture_provider: 'atlas',
      tokenize_url: `${baseUrl}/vault/tokens`,
      ...(methods.includes('walletone_pay')
        ? { walletone_pay: { merchant_id: 'merchant.test.payorch', merchant_name: TEST_MERCHANT_NAME, country_code: 'US', supported_networks: ['visa', 'mastercard', 'amex'] } }
        : {}),
      ...(methods.includes('wallettwo_pay')
        ? { wallettwo_pay: { merchant_id: 'payorch-test-merchant', merchant_name: TEST_MERCHANT_NAME, environment: 'TEST', allowed_card_networks: ['VISA', 'MASTERCARD', 'AMEX'] } }
        : {}),
      ...(methods.includes('bank_account') ? { bank_account: { account_types: ['checking', 'savings'] } } : {}),
      success_url: s.success_url,
      cancel_url: s.cancel_url,
      expires_at: s.expires_at,
      payment: p ? { id: p.id, status: p.status, next_action: p.next_action, failure_code: p.failure_code, failure_message: p.failure_message } : null,
      livemode: false,
    };
  }

  // ------------------------------------------------------------------------- ACH settlement (DueWork)

  nextDue(accountId: string): number | undefined {
    const row = this.d.store.db
      .prepare("SELECT MIN(settle_ms) AS t FROM payments WHERE account_id = ? AND status = 'pending' AND settle_ms IS NOT NULL")
      .get(accountId) as { t: number | null };
    return row.t ?? undefined;
  }

  runDue(now: number, accountId?: string, limit = -1): number {
    const cond = `status = 'pending' AND settle_ms IS NOT NULL AND settle_ms <= ?${accountId ? ' AND account_id = ?' : ''}`;
    const due = this.collection.selectFirst(limit, cond, now, ...(accountId ? [accountId] : []));
    for (const { accountId: acct, doc: p } of due) {
      const at = p.settle_ms!;
      p.settle_ms = null;
      let next: SessionStatus;
      if (p.ach_outcome === 'insufficient_funds') {
        this.fail(p, 'insufficient_funds', 'The ACH debit was returned: insufficient funds (R01).', 'insufficient_funds');
        next = 'failed';
      } else {
        next = this.authorized(p);
      }
      this.collection.update(acct, p);
      this.recordStatus(acct, p, at, 'pending');
      if (p.session_id) this.d.sessions.transition(acct, p.session_id, at, ['processing'], next, 'settled');
      if (p.status === 'captured') this.posted(acct, p, p.amount, at);
    }
    return due.length;
  }

  // ------------------------------------------------------------------------ off-session (Charger)

  /** Billing's charges: a real payment through routing, without a session (no 3DS possible off-session). */
  charge(accountId: string, req: ChargeRequest, now: number): ChargeResult {
    // A payment carries at most what create-session takes; a larger amount is not charged at all.
    const tooLarge = tooLargeToCharge(req.amount);
    if (tooLarge) return { status: 'failed', payment_id: null, code: 'amount_too_large', message: tooLarge };
    let resolved;
    try {
      resolved = this.d.cards.resolve(accountId, req.payment_method, now, 'payment_method');
    } catch (err) {
      if (err instanceof ServiceError) return { status: 'failed', payment_id: null, code: 'resource_missing', message: err.message };
      throw err;
    }
    const source: Source = { method: 'card', card: resolved.card, outcome: resolved.outcome };
    const p = this.newPayment(
      { session_id: null, amount: req.amount, currency: req.currency, capture_method: 'automatic', description: req.description ?? null, metadata: req.metadata ?? {} },
      source,
      now,
    );
    const r = route(this.d.routing, this.d.processors, 'card', req.currency, req.amount, undefined, { amount: req.amount, currency: req.currency, method: 'card', capture: 'automatic', card: { outcome: resolved.outcome } });
    if (r.outcome.kind === 'requires_3ds') {
      p.attempts = r.attempts;
      p.psp = r.psp;
      this.fail(p, 'authentication_required', 'This card requires 3D Secure authentication, which is not possible off-session.', 'authentication_required');
    } else {
      this.apply(p, r, now, '');
    }
    this.collection.insert(accountId, p);
    this.recordStatus(accountId, p, now);
    if (p.status === 'captured') {
      this.posted(accountId, p, p.amount, now);
      return { status: 'succeeded', payment_id: p.id };
    }
    return { status: 'failed', payment_id: p.id, code: p.failure_code!, decline_code: p.decline_code ?? undefined, message: p.failure_message! };
  }
}
