// Creating a subscription: the request's checks (its prices, collection, trial, anchor), the subscription and
// its items, and what starts it: a trial (`trialing`), or its first invoice at once, collected or sent.
import type { CreateSubscriptionBody, Price } from '../../../contract/billing.js';
import { DAY_S } from '../../../contract/time.js';
import { unixSeconds } from '../../clock.js';
import { errors } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Coupons } from './coupons.js';
import { addInterval } from './money.js';
import { assertBillable, subscriptionDue, type StoredItem, type StoredSubscription } from './store.js';
import type { SubscriptionInvoicing } from './subscription-invoicing.js';
import { usablePrice } from './subscription-items.js';
import type { SubscriptionRecords } from './subscription-records.js';
import { TRIAL_WILL_END_MS, upcomingAt } from './subscription-renewals.js';

export class SubscriptionCreation {
  constructor(
    private readonly records: SubscriptionRecords,
    private readonly invoicing: SubscriptionInvoicing,
    private readonly coupons: Coupons,
  ) {}

  async create(accountId: string, body: CreateSubscriptionBody, now: number): Promise<StoredSubscription> {
    const customer = await this.records.stored.customers.require(accountId, body.customer, 'customer', 'customer');
    const first = await usablePrice(this.records.stored, accountId, body.items[0]!.price, 'items[0].price');
    const like = {
      currency: first.currency,
      interval: first.recurring!.interval,
      interval_count: first.recurring!.interval_count,
    };
    const seen = new Set<string>();
    const prices: Price[] = [];
    for (const [i, it] of body.items.entries()) {
      const p = await usablePrice(this.records.stored, accountId, it.price, `items[${i}].price`, like);
      if (seen.has(p.id)) throw errors.parameterInvalid(`items[${i}].price`, `price ${p.id} appears twice`);
      seen.add(p.id);
      if (p.recurring!.usage_type === 'metered' && it.quantity !== undefined)
        throw errors.parameterInvalid(`items[${i}].quantity`, 'metered items take usage records, not a quantity');
      if (p.recurring!.usage_type === 'licensed') assertBillable(p, it.quantity ?? 1, `items[${i}].quantity`);
      prices.push(p);
    }
    const method = body.collection_method ?? 'charge_automatically';
    if (method === 'send_invoice' && body.days_until_due === undefined) throw errors.parameterMissing('days_until_due');
    if (method === 'charge_automatically' && body.days_until_due !== undefined)
      throw errors.parameterInvalid('days_until_due', 'only with collection_method "send_invoice"');
    const s0 = unixSeconds(now);
    if (body.trial_end !== undefined && body.trial_period_days !== undefined)
      throw errors.parameterInvalid('trial_end', 'give either trial_end or trial_period_days');
    if (body.trial_end !== undefined && body.trial_end <= s0)
      throw errors.parameterInvalid('trial_end', 'must be in the future');
    if (body.trial_end !== undefined && body.trial_end > s0 + 730 * DAY_S)
      throw errors.parameterInvalid('trial_end', 'must be at most 730 days ahead');
    const trialEnd =
      body.trial_end ?? (body.trial_period_days !== undefined ? s0 + body.trial_period_days * DAY_S : undefined);
    if (trialEnd !== undefined && body.billing_cycle_anchor !== undefined)
      throw errors.parameterInvalid('billing_cycle_anchor', 'cannot be combined with a trial');
    const interval = like.interval as StoredSubscription['interval'];
    if (body.billing_cycle_anchor !== undefined) {
      const a = body.billing_cycle_anchor;
      if (a < s0) throw errors.parameterInvalid('billing_cycle_anchor', 'must not be in the past');
      if (a > addInterval(s0, interval, like.interval_count, 1))
        throw errors.parameterInvalid('billing_cycle_anchor', 'must be within one billing period from now');
    }
    if (
      trialEnd === undefined &&
      method === 'charge_automatically' &&
      !(body.default_payment_method ?? customer.default_payment_method)
    ) {
      throw errors.invalidRequest(
        'payment_method_missing',
        `Customer ${customer.id} has no default_payment_method; pass default_payment_method or a trial.`,
        'default_payment_method',
      );
    }
    const discount =
      body.coupon !== undefined ? await this.coupons.redeem(accountId, body.coupon, like.currency, now) : null;

    const anchor = trialEnd ?? body.billing_cycle_anchor ?? s0;
    const stub = trialEnd === undefined && anchor > s0;
    const s: StoredSubscription = {
      id: newId('sub'),
      object: 'subscription',
      customer: customer.id,
      status: trialEnd !== undefined ? 'trialing' : 'active',
      currency: like.currency,
      current_period_start: s0,
      current_period_end: trialEnd ?? (stub ? anchor : addInterval(anchor, interval, like.interval_count, 1)),
      billing_cycle_anchor: anchor,
      trial_start: trialEnd !== undefined ? s0 : null,
      trial_end: trialEnd ?? null,
      cancel_at_period_end: body.cancel_at_period_end ?? false,
      canceled_at: body.cancel_at_period_end ? s0 : null,
      ended_at: null,
      paused_at: null,
      collection_method: method,
      days_until_due: body.days_until_due ?? null,
      default_payment_method: body.default_payment_method ?? null,
      discount,
      latest_invoice: null,
      metadata: body.metadata ?? {},
      created: s0,
      livemode: false,
      period_index: trialEnd !== undefined || stub ? -1 : 0,
      interval,
      interval_count: like.interval_count,
      pending_lines: [],
      period_history: [],
      due_ms: null,
      paused_from: null,
      trial_reminder_ms:
        trialEnd !== undefined && trialEnd * 1000 - TRIAL_WILL_END_MS > now
          ? trialEnd * 1000 - TRIAL_WILL_END_MS
          : null,
    };
    s.upcoming_ms = upcomingAt(s);
    s.due_ms = subscriptionDue(s);
    await this.records.stored.subscriptions.insert(accountId, s);
    const items: StoredItem[] = [];
    for (const [i, it] of body.items.entries()) {
      const metered = prices[i]!.recurring!.usage_type === 'metered';
      const item: StoredItem = {
        id: newId('si'),
        object: 'subscription_item',
        subscription: s.id,
        price: prices[i]!.id,
        quantity: metered ? 0 : (it.quantity ?? 1),
        metadata: it.metadata ?? {},
        created: s0,
      };
      items.push(await this.records.stored.items.insert(accountId, item));
    }
    if (s.status === 'trialing') {
      await this.records.record(accountId, 'subscription.created', s, now);
      // A trial shorter than the notice: its end is near at once.
      if (s.trial_reminder_ms === null) await this.records.record(accountId, 'subscription.trial_will_end', s, now);
      return s;
    }
    const period = { start: s.current_period_start, end: s.current_period_end };
    const lines = await this.invoicing.licensedLines(
      accountId,
      items,
      period,
      stub ? { num: anchor - s0, den: this.invoicing.fullLength(s) } : undefined,
    );
    // One event for the subscription as its first invoice left it (after that invoice's own events).
    const out = await this.invoicing.invoiceAndCollect(accountId, s, lines, 'subscription_create', now);
    await this.records.record(accountId, 'subscription.created', out, now);
    return out;
  }
}
