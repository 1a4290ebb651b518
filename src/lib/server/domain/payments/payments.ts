// The payments service: confirm, capture, refund, void on session cancel, and off-session charges for billing,
// composed of routing (routing.ts: failover across processors), 3D Secure (threeds.ts) and ACH settlement
// (ach.ts) over the stored payments (records.ts). Every method runs inside the caller's transaction.
import type {
  ConfirmPaymentBody,
  CapturePaymentBody,
  ListPaymentsQuery,
  Payment,
  RefundPaymentBody,
  RoutingRule,
  SessionConfig,
} from '../../../contract/payments.js';
import type { PaymentMethodType, SessionStatus } from '../../../contract/sessions.js';
import type { List } from '../../../contract/common.js';
import type { Hooks, SessionPayment } from '../hooks.js';
import type { Events } from '../events.js';
import type { SessionFacts, Sessions } from '../sessions.js';
import { tooLargeToCharge, type Charger, type ChargeRequest, type ChargeResult } from '../charges.js';
import type { CardOutcome } from '../testcards.js';
import { newUuid } from '../../ids.js';
import { isoTime, unixSeconds } from '../../clock.js';
import { errors, ServiceError } from '../../errors.js';
import { Outcome } from '../outcome.js';
import type { ProcessorRegistry } from './processors.js';
import { route, type RouteResult } from './routing.js';
import type { Cards } from './cards.js';
import type { BankAccounts } from './bankaccounts.js';
import { apiNextAction, apiStatus, PaymentRecords } from './records.js';
import { ThreeDS } from './threeds.js';
import { AchSettlement } from './ach.js';
import type { AchOutcome, PaymentsPort, StoredPayment } from './persistence.js';

/** The merchant name wallet payment sheets show in test mode. */
const TEST_MERCHANT_NAME = 'payorch test merchant';

type Source =
  | { method: 'card'; outcome: CardOutcome; card: Payment['card'] }
  | { method: 'walletone_pay' | 'wallettwo_pay' | 'walletthree'; token: string }
  | { method: 'bank_account'; bank: NonNullable<Payment['bank_account']>; outcome: AchOutcome };

const SOURCE_FIELDS = [
  'token_id',
  'walletone_pay_token',
  'wallettwo_pay_token',
  'walletthree_token',
  'bank_account',
] as const;
const METHOD_OF: Record<(typeof SOURCE_FIELDS)[number], PaymentMethodType> = {
  token_id: 'card',
  walletone_pay_token: 'walletone_pay',
  wallettwo_pay_token: 'wallettwo_pay',
  walletthree_token: 'walletthree',
  bank_account: 'bank_account',
};

export interface PaymentsDeps {
  stored: PaymentsPort;
  hooks: Hooks;
  events: Events;
  sessions: Sessions;
  cards: Cards;
  bankAccounts: BankAccounts;
  processors: ProcessorRegistry;
  routing: RoutingRule[];
  /** The server's base URL now, for the links in `next_action` (links.ts). */
  publicUrl: () => string;
}

export class Payments implements Charger {
  readonly records: PaymentRecords;
  readonly threeds: ThreeDS;
  /** DueWork: pending ACH debits settle on the account's clock. */
  readonly ach: AchSettlement;
  constructor(private readonly d: PaymentsDeps) {
    this.records = new PaymentRecords(d);
    this.threeds = new ThreeDS(this.records, d.sessions, d.processors);
    this.ach = new AchSettlement(d.stored, this.records, d.sessions);
    // Void on session cancel / expiry.
    d.hooks.on('sessionCanceling', (accountId, ev) => this.onSessionCanceled(accountId, ev.session_id, ev.at));
    // Sessions that expire at once: those with a payment expire one by one (their payment voided, and shown).
    d.hooks.on('sessionsExpiring', async (accountId, q) => {
      for (const id of await this.d.stored.sessionsWithPayments(accountId, q.session_ids)) q.one_by_one.add(id);
    });
    // A session shows its latest payment (`latest_attempt`) and that payment's `next_action`.
    d.hooks.on('sessionPayment', async (accountId, query) => {
      const p = (await this.records.ofSession(accountId, query.session_id)).at(-1);
      if (p) query.payment = this.sessionPayment(p);
    });
  }

  /** What a session shows of `p`, its latest payment: only these fields, not the whole toApi (on every confirm). */
  private sessionPayment(p: StoredPayment): SessionPayment {
    return {
      latest_attempt: { id: p.id, psp: p.psp, status: apiStatus(p), psp_transaction_id: p.psp_transaction_id },
      next_action: apiNextAction(p, this.d.publicUrl()),
    };
  }

  // ------------------------------------------------------------------------------------- confirm

  private async resolveSource(
    accountId: string,
    session: SessionFacts,
    body: ConfirmPaymentBody,
    now: number,
  ): Promise<Source> {
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
      throw errors.parameterInvalid(
        'payment_method_type',
        `${body.payment_method_type} does not match the source ${field} (${method})`,
      );
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
        const { card, outcome } = await this.d.cards.resolve(accountId, body.token_id!, now);
        return { method: 'card', card, outcome };
      }
      case 'bank_account': {
        if (session.currency !== 'USD')
          throw errors.invalidRequest('payment_method_not_allowed', 'ACH debits are in USD only.', 'bank_account');
        const { account, outcome } = await this.d.bankAccounts.forDebit(accountId, body.bank_account!.bank_account_id);
        const type = body.bank_account!.account_type;
        if (type !== undefined && type !== account.account_type) {
          throw errors.parameterInvalid(
            'bank_account.account_type',
            `is ${type}, but bank account ${account.id} is a ${account.account_type} account`,
          );
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
    p: {
      session_id: string | null;
      amount: number;
      currency: string;
      capture_method: 'automatic' | 'manual';
      description: string | null;
      metadata: Record<string, string>;
    },
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
      wallet:
        source.method !== 'card' && source.method !== 'bank_account'
          ? { type: source.method, card_network: null }
          : null,
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
      this.records.fail(p, o.code, o.message, o.decline_code);
      return 'failed';
    }
    p.psp_transaction_id = o.transaction_id;
    if (o.kind === 'requires_3ds') return this.threeds.challenge(p, baseUrl, returnUrl);
    if (p.payment_method_type === 'bank_account') return this.ach.pending(p, now);
    return this.records.authorized(p);
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
  async confirm(
    accountId: string,
    sessionId: string,
    body: ConfirmPaymentBody,
    now: number,
    baseUrl: string,
  ): Promise<Payment | Outcome> {
    const session = await this.d.sessions.current(accountId, sessionId, now);
    if (session.status !== 'requires_payment_method') {
      throw errors.unexpectedState(
        'session',
        `This payment session is ${session.status}; it can only be confirmed while requires_payment_method.`,
      );
    }
    const source = await this.resolveSource(accountId, session, body, now);
    const p = this.newPayment(
      {
        session_id: session.id,
        amount: session.amount,
        currency: session.currency,
        capture_method: session.capture_method,
        description: session.description,
        metadata: {},
      },
      source,
      now,
    );
    p.selection_reason = body.psp ? 'forced' : 'routing_rules';
    p.routing_profile_id = body.routing_profile_id ?? null;
    const r = route(
      this.d.routing,
      this.d.processors,
      accountId,
      source.method,
      session.currency,
      session.amount,
      body.psp,
      {
        amount: session.amount,
        currency: session.currency,
        method: source.method,
        capture: p.capture_method,
        card: source.method === 'card' ? { outcome: source.outcome } : undefined,
        wallet_token: 'token' in source ? source.token : undefined,
      },
    );
    const next = this.apply(p, r, now, baseUrl, session.success_url ?? undefined);
    // The payment first: the session's event shows it as the session's latest attempt — this payment, handed to
    // the transition rather than read back (which costs a query and a JSON parse of every payment of the session).
    // Handed down the call, not kept in a field: with an engine that runs transactions at once, a field would show
    // one confirm's uncommitted payment in another confirm's event.
    await this.records.collection.insert(accountId, p);
    const api = await this.records.recordStatus(accountId, p, now);
    await this.d.sessions.transition(accountId, session.id, now, ['requires_payment_method'], next, 'confirmed', {
      current: session,
      payment: () => this.sessionPayment(p),
    });
    if (p.status === 'captured') await this.records.posted(accountId, p, p.amount, now);
    return p.status === 'failed' ? new Outcome(this.cardError(p)) : api;
  }

  // -------------------------------------------------------------------------- read, capture, refund

  async get(accountId: string, id: string): Promise<Payment> {
    return this.records.toApi(await this.records.load(accountId, id));
  }

  async forSession(accountId: string, sessionId: string): Promise<Payment | null> {
    const last = (await this.records.ofSession(accountId, sessionId)).at(-1);
    return last ? this.records.toApi(last) : null;
  }

  async list(accountId: string, url: string, q: ListPaymentsQuery): Promise<List<Payment>> {
    const page = await this.records.collection.list(accountId, url, {
      ...q,
      where: { session_id: q.session_id, status: q.status },
    });
    return { ...page, data: page.data.map((p) => this.records.toApi(p)) };
  }

  async capture(accountId: string, id: string, body: CapturePaymentBody, now: number): Promise<Payment> {
    const p = await this.records.load(accountId, id);
    if (p.status !== 'authorized')
      throw errors.unexpectedState(
        'payment',
        `This payment is ${p.status}; only an authorized payment can be captured.`,
      );
    const amount = body.amount ?? p.amount;
    if (amount > p.amount)
      throw errors.parameterInvalid('amount', `must be at most the authorized amount (${p.amount})`);
    p.status = 'captured';
    p.captured_amount = amount;
    await this.records.collection.update(accountId, p);
    await this.records.recordStatus(accountId, p, now, 'authorized');
    if (p.session_id)
      await this.d.sessions.transition(accountId, p.session_id, now, ['processing'], 'succeeded', 'captured');
    await this.records.posted(accountId, p, amount, now);
    return this.records.toApi(p);
  }

  async refund(accountId: string, id: string, body: RefundPaymentBody, now: number): Promise<Payment | Outcome> {
    const p = await this.records.load(accountId, id);
    if (p.status !== 'captured')
      throw errors.unexpectedState('payment', `This payment is ${p.status}; only a captured payment can be refunded.`);
    const remaining = p.captured_amount - p.refunded_amount;
    const amount = body.amount ?? remaining;
    if (amount > remaining)
      throw errors.parameterInvalid('amount', `must be at most the amount not yet refunded (${remaining})`);
    if (p.card_outcome?.kind === 'success' && p.card_outcome.refunds === 'fail')
      return this.refundFailed(accountId, p, amount, body, now);
    p.refunded_amount += amount;
    p.refunds.push({ amount, reason: body.reason ?? null, created_at: isoTime(now) });
    const before = { status: p.status, refunded_amount: p.refunded_amount - amount };
    if (p.refunded_amount === p.captured_amount) p.status = 'refunded';
    await this.records.collection.update(accountId, p);
    await this.d.events.record(accountId, 'refund.succeeded', this.records.toApi(p), {
      at: now,
      previous: before,
      payment: { session_id: p.session_id, amount, currency: p.currency, psp: p.psp, refund: p.refunds.at(-1)! },
    });
    await this.d.hooks.emit('paymentRefunded', accountId, { payment_id: p.id, amount, currency: p.currency, at: now });
    return this.records.toApi(p);
  }

  /**
   * The processor refused the refund (test card tok_refundFail): the payment stays as it was, refund.failed is
   * recorded (committed) and the request answers 402 refund_failed.
   */
  private async refundFailed(
    accountId: string,
    p: StoredPayment,
    amount: number,
    body: RefundPaymentBody,
    now: number,
  ): Promise<Outcome> {
    const refund = {
      amount,
      reason: body.reason ?? null,
      created_at: isoTime(now),
      status: 'failed',
      failure_reason: 'processor_declined',
    };
    await this.d.events.record(accountId, 'refund.failed', this.records.toApi(p), {
      at: now,
      payment: { session_id: p.session_id, amount, currency: p.currency, psp: p.psp, refund },
    });
    return new Outcome(
      new ServiceError({
        status: 402,
        type: 'card_error',
        code: 'refund_failed',
        message: `The processor declined the refund of ${amount} on payment ${p.id}; the payment is unchanged.`,
        payment_id: p.id,
      }),
    );
  }

  /** Session canceled or expired: void an authorization or an unfinished 3DS payment. A pending ACH debit cannot be recalled. */
  private async onSessionCanceled(accountId: string, sessionId: string, now: number): Promise<void> {
    for (const p of await this.records.ofSession(accountId, sessionId)) {
      if (p.status === 'pending' && p.payment_method_type === 'bank_account') {
        throw errors.unexpectedState(
          'session',
          'This payment session has an ACH debit in flight; it cannot be canceled until the debit settles or fails.',
        );
      }
      if (p.status === 'authorized' || p.status === 'pending' || p.status === 'requires_action') {
        const before = this.records.toApi(p).status;
        p.status = 'canceled';
        p.next_action = null;
        p.canceled_at = unixSeconds(now);
        await this.records.collection.update(accountId, p);
        await this.records.recordStatus(accountId, p, now, before);
      }
    }
  }

  /**
   * GET /get-session-config/{session_id} (and POST, and both without the id for a client secret, which names its
   * session): what a checkout page or the live service's browser SDK needs. Unlike the live service, which
   * answers 400 once a session is finished, every status answers 200 with the status (a page shows the result).
   */
  async sessionConfig(accountId: string, sessionId: string, now: number, baseUrl: string): Promise<SessionConfig> {
    const s = await this.d.sessions.get(accountId, sessionId);
    const p = await this.forSession(accountId, sessionId);
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
        ? {
            walletone_pay: {
              merchant_id: 'merchant.test.payorch',
              merchant_name: TEST_MERCHANT_NAME,
              country_code: 'US',
              supported_networks: ['visa', 'mastercard', 'amex'],
            },
          }
        : {}),
      ...(methods.includes('wallettwo_pay')
        ? {
            wallettwo_pay: {
              merchant_id: 'payorch-test-merchant',
              merchant_name: TEST_MERCHANT_NAME,
              environment: 'TEST',
              allowed_card_networks: ['VISA', 'MASTERCARD', 'AMEX'],
            },
          }
        : {}),
      ...(methods.includes('bank_account') ? { bank_account: { account_types: ['checking', 'savings'] } } : {}),
      success_url: s.success_url,
      cancel_url: s.cancel_url,
      expires_at: s.expires_at,
      payment: p
        ? {
            id: p.id,
            status: p.status,
            next_action: p.next_action,
            failure_code: p.failure_code,
            failure_message: p.failure_message,
          }
        : null,
      livemode: false,
    };
  }

  // ------------------------------------------------------------------------ off-session (Charger)

  /** Billing's charges: a real payment through routing, without a session (no 3DS possible off-session). */
  async charge(accountId: string, req: ChargeRequest, now: number): Promise<ChargeResult> {
    // A payment carries at most what create-session takes; a larger amount is not charged at all.
    const tooLarge = tooLargeToCharge(req.amount);
    if (tooLarge) return { status: 'failed', payment_id: null, code: 'amount_too_large', message: tooLarge };
    let resolved;
    try {
      resolved = await this.d.cards.resolve(accountId, req.payment_method, now, 'payment_method');
    } catch (err) {
      if (err instanceof ServiceError)
        return { status: 'failed', payment_id: null, code: 'resource_missing', message: err.message };
      throw err;
    }
    const source: Source = { method: 'card', card: resolved.card, outcome: resolved.outcome };
    const p = this.newPayment(
      {
        session_id: null,
        amount: req.amount,
        currency: req.currency,
        capture_method: 'automatic',
        description: req.description ?? null,
        metadata: req.metadata ?? {},
      },
      source,
      now,
    );
    const r = route(this.d.routing, this.d.processors, accountId, 'card', req.currency, req.amount, undefined, {
      amount: req.amount,
      currency: req.currency,
      method: 'card',
      capture: 'automatic',
      card: { outcome: resolved.outcome },
    });
    if (r.outcome.kind === 'requires_3ds') {
      p.attempts = r.attempts;
      p.psp = r.psp;
      this.records.fail(
        p,
        'authentication_required',
        'This card requires 3D Secure authentication, which is not possible off-session.',
        'authentication_required',
      );
    } else {
      this.apply(p, r, now, '');
    }
    await this.records.collection.insert(accountId, p);
    await this.records.recordStatus(accountId, p, now);
    if (p.status === 'captured') {
      await this.records.posted(accountId, p, p.amount, now);
      return { status: 'succeeded', payment_id: p.id };
    }
    return {
      status: 'failed',
      payment_id: p.id,
      code: p.failure_code!,
      decline_code: p.decline_code ?? undefined,
      message: p.failure_message!,
    };
  }
}
