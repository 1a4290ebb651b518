// Checkout sessions: `mode: "payment"` (one-time prices) creates a payment session at once (its hosted page is
// the checkout URL; the checkout session completes when that payment succeeds); `mode: "subscription"`
// (recurring prices) creates the customer's subscription when it is completed with a payment method.
// Open sessions expire after 24 h (due work, run by the scheduler).
import type {
  CheckoutSession,
  CompleteCheckoutSessionBody,
  CreateCheckoutSessionBody,
} from '../../../contract/billing.js';
import type { List, ListParams } from '../../../contract/common.js';
import { isoTime, unixSeconds } from '../../clock.js';
import { errors, ServiceError } from '../../errors.js';
import type { DueWork } from '../due.js';
import { newId } from '../../ids.js';
import type { Sessions } from '../sessions.js';
import type { Hooks } from '../hooks.js';
import { priceAmount } from './money.js';
import { MAX_AMOUNT } from '../../../contract/numbers.js';
import { assertBillable, type BillingContext, type StoredCheckout } from './store.js';
import type { Subscriptions } from './subscriptions.js';
import type { Customers } from './customers.js';
import { checkHttpUrl } from '../values.js';
import { hostedLinks } from '../links.js';
import { DAY_MS } from '../../../contract/time.js';

export const CHECKOUT_TTL_MS = DAY_MS;

export class Checkouts {
  constructor(
    private readonly billing: BillingContext,
    private readonly sessions: Sessions,
    private readonly customers: Customers,
    private readonly subscriptions: Subscriptions,
    hooks: Hooks,
  ) {
    // A payment-mode session completes in the transaction in which its payment session succeeds.
    hooks.on('sessionSucceeded', async (accountId, { session_id: sessionId, at: now }) => {
      for (const doc of await this.billing.stored.openCheckoutsOf(accountId, sessionId)) {
        if (doc.mode === 'payment' && doc.payment_session === sessionId) {
          doc.status = 'complete';
          doc.completed_at = isoTime(now);
          await this.billing.stored.checkouts.update(accountId, doc);
          await this.record(accountId, 'checkout_session.completed', doc, now, { status: 'open', completed_at: null });
        }
      }
    });
  }

  /** DueWork: open sessions past expires_at become expired. */
  readonly expiry: DueWork = {
    name: 'checkout session expiry',
    nextDue: (accountId) => this.billing.stored.nextCheckoutExpiry(accountId),
    runDue: async (now, accountId, limit = -1) => {
      const due = await this.billing.stored.checkoutsExpiredBy(now, accountId, limit);
      for (const { accountId: acct, doc } of due) await this.expire(acct, doc);
      return due.length;
    },
  };

  private async expire(accountId: string, c: StoredCheckout): Promise<StoredCheckout> {
    c.status = 'expired';
    await this.billing.stored.checkouts.update(accountId, c);
    await this.record(accountId, 'checkout_session.expired', c, c.expires_ms, { status: 'open' });
    return c;
  }

  private async record(
    accountId: string,
    type: 'checkout_session.completed' | 'checkout_session.expired',
    c: StoredCheckout,
    at: number,
    previous: object,
  ): Promise<void> {
    await this.billing.events.record(accountId, type, this.toApi(c), { at, previous });
  }

  /** The API object; its `url` at the server's address now (links.ts). */
  private toApi({ expires_ms: _e, ...c }: StoredCheckout): CheckoutSession {
    const base = this.billing.publicUrl();
    return {
      ...c,
      url: c.payment_session ? hostedLinks.checkout(base, c.payment_session) : hostedLinks.checkoutSession(base, c.id),
    };
  }

  async create(
    accountId: string,
    body: CreateCheckoutSessionBody,
    now: number,
    baseUrl: string,
  ): Promise<CheckoutSession> {
    for (const param of ['success_url', 'cancel_url'] as const)
      if (body[param] !== undefined) checkHttpUrl(body[param], param);
    const customer =
      body.customer !== undefined ? await this.customers.get(accountId, body.customer, 'customer') : undefined;
    let currency: string | undefined;
    let interval: string | undefined;
    const lines: { price: string; quantity: number; amount: number; description: string }[] = [];
    for (const [i, li] of body.line_items.entries()) {
      const param = `line_items[${i}].price`;
      const p = await this.billing.stored.prices.require(accountId, li.price, 'price', param);
      if (!p.active) throw errors.parameterInvalid(param, `price ${p.id} is not active`);
      if (body.mode === 'payment' && p.recurring)
        throw errors.parameterInvalid(param, 'mode "payment" takes one_time prices');
      if (body.mode === 'subscription' && !p.recurring)
        throw errors.parameterInvalid(param, 'mode "subscription" takes recurring prices');
      if (currency !== undefined && p.currency !== currency)
        throw errors.parameterInvalid(param, `all prices must be in one currency (${currency})`);
      currency = p.currency;
      const every = p.recurring ? `${p.recurring.interval_count} ${p.recurring.interval}` : undefined;
      if (interval !== undefined && every !== interval)
        throw errors.parameterInvalid(param, 'all prices must bill on the same interval');
      interval = every;
      const metered = p.recurring?.usage_type === 'metered';
      const quantity = metered ? 0 : (li.quantity ?? 1);
      assertBillable(p, quantity, `line_items[${i}].quantity`);
      const product = await this.billing.stored.products.get(accountId, p.product);
      lines.push({ price: p.id, quantity, amount: priceAmount(p, quantity), description: product?.name ?? p.product });
    }
    if (body.mode === 'payment' && body.trial_period_days !== undefined)
      throw errors.parameterInvalid('trial_period_days', 'only with mode "subscription"');
    const amount_total = lines.reduce((a, l) => a + l.amount, 0);
    const id = newId('cks');
    let url = hostedLinks.checkoutSession(baseUrl, id);
    let payment_session: string | null = null;
    if (body.mode === 'payment') {
      if (amount_total < 1) throw errors.parameterInvalid('line_items', 'the total must be at least 1');
      // The payment session is made for the total: it takes what create-session takes (1 … MAX_AMOUNT).
      if (amount_total > MAX_AMOUNT)
        throw errors.parameterInvalid(
          'line_items',
          `the total (${amount_total}) must be at most ${MAX_AMOUNT}, the largest payment amount`,
        );
      const session = await this.sessions.create(
        accountId,
        {
          amount: amount_total,
          currency: currency!,
          description: lines.map((l) => `${l.quantity} × ${l.description}`).join(', '),
          customer: { email: body.customer_email ?? customer?.email ?? undefined, name: customer?.name ?? undefined },
          success_url: body.success_url,
          cancel_url: body.cancel_url,
          metadata: { checkout_session: id },
        },
        now,
        baseUrl,
      );
      payment_session = session.id;
      url = session.fallback_url;
    }
    const c: StoredCheckout = {
      id,
      object: 'checkout_session',
      mode: body.mode,
      status: 'open',
      customer: customer?.id ?? null,
      customer_email: body.customer_email ?? customer?.email ?? null,
      line_items: { object: 'list', data: lines },
      amount_total,
      currency: currency!,
      url,
      payment_session,
      subscription: null,
      success_url: body.success_url ?? null,
      cancel_url: body.cancel_url ?? null,
      trial_period_days: body.trial_period_days ?? null,
      metadata: body.metadata ?? {},
      created: unixSeconds(now),
      completed_at: null,
      expires_at: isoTime(now + CHECKOUT_TTL_MS),
      livemode: false,
      expires_ms: now + CHECKOUT_TTL_MS,
    };
    await this.billing.stored.checkouts.insert(accountId, c);
    return this.toApi(c);
  }

  /** For a write acting on the session: the stored session, expired first if its time has come. */
  private async load(accountId: string, id: string, now: number): Promise<StoredCheckout> {
    const c = await this.billing.stored.checkouts.require(accountId, id, 'checkout_session', 'checkout_session_id');
    return c.status === 'open' && c.expires_ms <= now ? this.expire(accountId, c) : c;
  }

  /** Runs this one session's expiry if its time has come (test triggers); returns the session. */
  async expireIfDue(accountId: string, id: string, now: number): Promise<CheckoutSession> {
    return this.toApi(await this.load(accountId, id, now));
  }

  /** As committed (reads never run due work). */
  async get(accountId: string, id: string): Promise<CheckoutSession> {
    return this.toApi(
      await this.billing.stored.checkouts.require(accountId, id, 'checkout_session', 'checkout_session_id'),
    );
  }

  /**
   * Completes a subscription-mode session with a payment method (what the hosted page does): the customer
   * (created from customer_email when none was given) gets it as default and the subscription is created.
   * A declined first charge answers 402 and creates nothing.
   */
  async complete(
    accountId: string,
    id: string,
    body: CompleteCheckoutSessionBody,
    now: number,
  ): Promise<CheckoutSession> {
    const c = await this.load(accountId, id, now);
    if (c.status !== 'open')
      throw errors.unexpectedState(
        'checkout_session',
        `Checkout session ${id} is ${c.status}; only open sessions can be completed.`,
      );
    if (c.mode !== 'subscription') {
      throw errors.unexpectedState(
        'checkout_session',
        `Checkout session ${id} is in payment mode; it completes when its payment session (${c.payment_session}) succeeds.`,
      );
    }
    const customer = c.customer
      ? await this.customers.update(accountId, c.customer, { default_payment_method: body.payment_method }, now)
      : await this.customers.create(
          accountId,
          { email: c.customer_email ?? undefined, default_payment_method: body.payment_method },
          now,
        );
    const items: { price: string; quantity?: number }[] = [];
    for (const l of c.line_items.data) {
      const p = (await this.billing.stored.prices.get(accountId, l.price))!;
      items.push(p.recurring?.usage_type === 'metered' ? { price: l.price } : { price: l.price, quantity: l.quantity });
    }
    const sub = await this.subscriptions.create(
      accountId,
      {
        customer: customer.id,
        items,
        trial_period_days: c.trial_period_days ?? undefined,
        metadata: { checkout_session: c.id },
      },
      now,
    );
    if (sub.status === 'past_due') {
      // the first charge was declined: nothing is created (the thrown error rolls it all back)
      const err = (await this.billing.stored.invoices.get(accountId, sub.latest_invoice!))?.last_payment_error;
      throw new ServiceError({
        status: 402,
        type: 'card_error',
        code: err?.code ?? 'card_declined',
        decline_code: err?.decline_code ?? undefined,
        message: err?.message ?? 'The card was declined.',
      });
    }
    const previous = {
      status: c.status,
      customer: c.customer,
      subscription: c.subscription,
      completed_at: c.completed_at,
    };
    c.customer = customer.id;
    c.subscription = sub.id;
    c.status = 'complete';
    c.completed_at = isoTime(now);
    await this.billing.stored.checkouts.update(accountId, c);
    await this.record(accountId, 'checkout_session.completed', c, now, previous);
    return this.toApi(c);
  }

  async list(accountId: string, url: string, q: ListParams): Promise<List<CheckoutSession>> {
    const page = await this.billing.stored.checkouts.list(accountId, url, q);
    return { ...page, data: page.data.map((c) => this.toApi(c)) };
  }
}
