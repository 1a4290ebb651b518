// Subscriptions (docs/api.md "Billing") and their items. Creation: a trial → `trialing`; otherwise the first invoice
// at once — charged automatically with the default payment method (→ `active`, or `past_due` on failure), or
// `send_invoice` with `days_until_due` (→ `active` with an `open` invoice). The engine (engine.ts) calls
// `endTrial` and `renew` when their time comes. Licensed items are billed in advance, metered usage in
// arrears; quantity/price changes create proration lines for the next invoice.
import type {
  CancelSubscriptionBody,
  CreateSubscriptionBody,
  CreateSubscriptionItemBody,
  DeletedResource,
  ListSubscriptionItemsQuery,
  ListSubscriptionsQuery,
  Price,
  Subscription,
  SubscriptionItem,
  SubscriptionStatus,
  UpdateSubscriptionBody,
  UpdateSubscriptionItemBody,
} from '../../../contract/billing.js';
import type { List } from '../../../contract/common.js';
import { unixSeconds } from '../../clock.js';
import { errors } from '../../errors.js';
import { newId } from '../../ids.js';
import { mergeMetadata } from '../values.js';
import { discountApi, type Coupons } from './coupons.js';
import type { Invoices } from './invoices.js';
import { addInterval, priceAmount, prorate } from './money.js';
import {
  assertBillable,
  subscriptionDue,
  type BillingContext,
  type Owned,
  type PendingLine,
  type StoredItem,
  type StoredSubscription,
} from './store.js';
import { aggregateUsage } from './usage.js';
import { formatTime } from '../../../format/values.js';
import type { EventType } from '../../../contract/events.js';
import { recordUpdate } from '../record.js';
import { DAY_MS, DAY_S } from '../../../contract/time.js';

type Stored = StoredSubscription & { paused_from?: SubscriptionStatus | null };

type ItemChange =
  | { kind: 'add'; price: string; quantity?: number; metadata?: Record<string, string>; param: string }
  | { kind: 'update'; id: string; price?: string; quantity?: number; metadata?: Record<string, string>; param: string }
  | { kind: 'delete'; id: string; param: string };

const ENDED: SubscriptionStatus[] = ['canceled'];

/** subscription.trial_will_end is recorded this long before trial_end (at once for a shorter trial). */
export const TRIAL_WILL_END_MS = 3 * DAY_MS;

/**
 * invoice.upcoming is recorded this long before a renewal (Stripe's default notice); not at all for a period
 * no longer than it (a daily subscription), nor before a trial's end (that has subscription.trial_will_end).
 */
export const UPCOMING_NOTICE_MS = 3 * 86_400_000;

/** When invoice.upcoming is due for the period `s` is in: UPCOMING_NOTICE_MS before its end, if inside it. */
function upcomingAt(s: Pick<Stored, 'status' | 'current_period_start' | 'current_period_end'>): number | null {
  if (s.status !== 'active' && s.status !== 'past_due') return null;
  const at = s.current_period_end * 1000 - UPCOMING_NOTICE_MS;
  return at > s.current_period_start * 1000 ? at : null;
}

export class Subscriptions {
  constructor(
    private readonly billing: BillingContext,
    private readonly invoices: Invoices,
    private readonly coupons: Coupons,
  ) {
    // An invoice's outcome moved a subscription (past_due, unpaid, active again): subscription.updated. Not told
    // when the change is part of an operation of this class that records its own one event (create, renew …):
    // invoiceAndCollect collects quietly (invoices.ts Collecting.quiet).
    invoices.onSubscriptionStatus = async (accountId, sub, previousStatus, now) => {
      await this.record(accountId, 'subscription.updated', sub, now, { status: previousStatus });
    };
  }

  private async record(accountId: string, type: EventType, s: Stored, now: number, previous?: object): Promise<void> {
    await this.billing.events.record(accountId, type, await this.toApi(accountId, s, now), { at: now, previous });
  }

  // ------------------------------------------------------------------------------------------- views

  private async itemApi(accountId: string, i: StoredItem): Promise<SubscriptionItem> {
    return { ...i, price: (await this.billing.stored.prices.get(accountId, i.price))! };
  }

  async toApi(accountId: string, s: Stored, now: number): Promise<Subscription> {
    const {
      period_index: _pi,
      interval: _i,
      interval_count: _ic,
      pending_lines: _pl,
      period_history: _ph,
      due_ms: _d,
      paused_from: _pf,
      trial_reminder_ms: _tr,
      upcoming_ms: _u,
      discount,
      ...rest
    } = s;
    const items: SubscriptionItem[] = [];
    for (const i of await this.billing.stored.itemsOf(accountId, s.id)) items.push(await this.itemApi(accountId, i));
    return { ...rest, discount: discountApi(discount, now), items: { object: 'list', data: items } };
  }

  load(accountId: string, id: string, param = 'subscription_id'): Promise<Stored> {
    return this.billing.stored.subscriptions.require(accountId, id, 'subscription', param);
  }

  private save(accountId: string, s: Stored): Promise<Stored> {
    s.due_ms = subscriptionDue(s);
    return this.billing.stored.subscriptions.update(accountId, s);
  }

  // ---------------------------------------------------------------------------------------- helpers

  /** A price usable on this subscription: recurring, active, and (when given) the same currency and interval. */
  private async usablePrice(
    accountId: string,
    id: string,
    param: string,
    like?: { currency: string; interval: string; interval_count: number },
  ): Promise<Price> {
    const p = await this.billing.stored.prices.require(accountId, id, 'price', param);
    if (!p.recurring)
      throw errors.parameterInvalid(param, `price ${p.id} is one_time; subscriptions take recurring prices`);
    if (!p.active) throw errors.parameterInvalid(param, `price ${p.id} is not active`);
    if (like && p.currency !== like.currency)
      throw errors.parameterInvalid(
        param,
        `price ${p.id} is in ${p.currency}; the subscription is in ${like.currency}`,
      );
    if (like && (p.recurring.interval !== like.interval || p.recurring.interval_count !== like.interval_count)) {
      throw errors.parameterInvalid(
        param,
        `price ${p.id} bills every ${p.recurring.interval_count} ${p.recurring.interval}; the subscription every ${like.interval_count} ${like.interval}`,
      );
    }
    return p;
  }

  private async productName(accountId: string, productId: string): Promise<string> {
    return (await this.billing.stored.products.get(accountId, productId))?.name ?? productId;
  }

  private bounds(s: Stored, index: number): { start: number; end: number } {
    return {
      start: addInterval(s.billing_cycle_anchor, s.interval, s.interval_count, index),
      end: addInterval(s.billing_cycle_anchor, s.interval, s.interval_count, index + 1),
    };
  }

  /** Length of a full period around the current one (the denominator of prorations). */
  private fullLength(s: Stored): number {
    if (s.period_index >= 0) return s.current_period_end - s.current_period_start;
    return s.billing_cycle_anchor - addInterval(s.billing_cycle_anchor, s.interval, s.interval_count, -1);
  }

  /** Lines for licensed items over `period` (scaled by `fraction` for a prorated stub). */
  private async licensedLines(
    accountId: string,
    items: StoredItem[],
    period: { start: number; end: number },
    fraction?: { num: number; den: number },
  ): Promise<PendingLine[]> {
    const out: PendingLine[] = [];
    for (const i of items) {
      const p = (await this.billing.stored.prices.get(accountId, i.price))!;
      if (p.recurring?.usage_type === 'metered') continue;
      const full = priceAmount(p, i.quantity);
      out.push({
        type: 'subscription',
        amount: fraction ? prorate(full, fraction.num, fraction.den) : full,
        currency: p.currency,
        description: `${i.quantity} × ${await this.productName(accountId, p.product)}${fraction ? ' (prorated)' : ''} (${formatTime(period.start)} – ${formatTime(period.end)})`,
        price: { id: p.id, product: p.product },
        quantity: i.quantity,
        period,
      });
    }
    return out;
  }

  /** Usage lines of metered items for `period` (billed in arrears). */
  private async usageLines(
    accountId: string,
    items: StoredItem[],
    period: { start: number; end: number },
  ): Promise<PendingLine[]> {
    const out: PendingLine[] = [];
    for (const i of items) {
      const p = (await this.billing.stored.prices.get(accountId, i.price))!;
      if (p.recurring?.usage_type !== 'metered') continue;
      const q = await aggregateUsage(
        this.billing.stored,
        accountId,
        i.id,
        p.recurring.aggregate_usage ?? 'sum',
        period.start,
        period.end,
      );
      out.push({
        type: 'usage',
        amount: priceAmount(p, q),
        currency: p.currency,
        description: `Usage: ${q} × ${await this.productName(accountId, p.product)} (${formatTime(period.start)} – ${formatTime(period.end)})`,
        price: { id: p.id, product: p.product },
        quantity: q,
        period,
      });
    }
    return out;
  }

  /**
   * Makes the subscription's next invoice from `lines` (+ pending prorations, + the discount), finalizes it
   * and collects it: a charge for charge_automatically, a due date for send_invoice. Returns the
   * subscription as stored afterwards (the invoice's outcome may have changed its status). Quietly: the caller
   * records the subscription's one event for all it does, so the invoice's outcome records none of its own.
   */
  private async invoiceAndCollect(
    accountId: string,
    s: Stored,
    lines: PendingLine[],
    reason: string,
    now: number,
  ): Promise<Stored> {
    const inv = await this.invoices.build(
      accountId,
      {
        customer: s.customer,
        subscription: s.id,
        currency: s.currency,
        collection_method: s.collection_method,
        days_until_due: s.days_until_due,
        billing_reason: reason,
        description: null,
        period_start: s.current_period_start,
        period_end: s.current_period_end,
        lines: [...lines, ...s.pending_lines],
        discount: s.discount, // a `once` discount is marked used on this object
        metadata: {},
      },
      now,
    );
    s.pending_lines = [];
    s.latest_invoice = inv.id;
    await this.save(accountId, s);
    const open = await this.invoices.finalizeDoc(accountId, inv, now, true);
    if (open.status === 'open' && s.collection_method === 'charge_automatically')
      await this.invoices.attempt(accountId, open, now, { automatic: true, quiet: true });
    return await this.load(accountId, s.id);
  }

  private async paymentMethodOf(
    accountId: string,
    s: { default_payment_method: string | null; customer: string },
  ): Promise<string | null> {
    return (
      s.default_payment_method ??
      (await this.billing.stored.customers.get(accountId, s.customer))?.default_payment_method ??
      null
    );
  }

  // ------------------------------------------------------------------------------------------ create

  async create(accountId: string, body: CreateSubscriptionBody, now: number): Promise<Stored> {
    const customer = await this.billing.stored.customers.require(accountId, body.customer, 'customer', 'customer');
    const first = await this.usablePrice(accountId, body.items[0]!.price, 'items[0].price');
    const like = {
      currency: first.currency,
      interval: first.recurring!.interval,
      interval_count: first.recurring!.interval_count,
    };
    const seen = new Set<string>();
    const prices: Price[] = [];
    for (const [i, it] of body.items.entries()) {
      const p = await this.usablePrice(accountId, it.price, `items[${i}].price`, like);
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
    const interval = like.interval as Stored['interval'];
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
    const s: Stored = {
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
    await this.billing.stored.subscriptions.insert(accountId, s);
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
      items.push(await this.billing.stored.items.insert(accountId, item));
    }
    if (s.status === 'trialing') {
      await this.record(accountId, 'subscription.created', s, now);
      // A trial shorter than the notice: its end is near at once.
      if (s.trial_reminder_ms === null) await this.record(accountId, 'subscription.trial_will_end', s, now);
      return s;
    }
    const period = { start: s.current_period_start, end: s.current_period_end };
    const lines = await this.licensedLines(
      accountId,
      items,
      period,
      stub ? { num: anchor - s0, den: this.fullLength(s) } : undefined,
    );
    // One event for the subscription as its first invoice left it (after that invoice's own events).
    const out = await this.invoiceAndCollect(accountId, s, lines, 'subscription_create', now);
    await this.record(accountId, 'subscription.created', out, now);
    return out;
  }

  async get(accountId: string, id: string, now: number): Promise<Subscription> {
    return await this.toApi(accountId, await this.load(accountId, id), now);
  }

  async list(accountId: string, url: string, q: ListSubscriptionsQuery, now: number): Promise<List<Subscription>> {
    const page = await this.billing.stored.subscriptions.list(accountId, url, {
      limit: q.limit,
      starting_after: q.starting_after,
      ending_before: q.ending_before,
      where: { customer: q.customer, status: q.status },
    });
    const data: Subscription[] = [];
    for (const s of page.data) data.push(await this.toApi(accountId, s, now));
    return { ...page, data };
  }

  // ------------------------------------------------------------------------------------------ update

  private requireLive(s: Stored): void {
    if (ENDED.includes(s.status))
      throw errors.unexpectedState('subscription', `Subscription ${s.id} is ${s.status}; it can no longer change.`);
  }

  /** Applies item changes; prorations (credit for the old, charge for the new) for the rest of the period. */
  private async changeItems(
    accountId: string,
    s: Stored,
    changes: ItemChange[],
    prorations: boolean,
    now: number,
  ): Promise<StoredItem[]> {
    const like = { currency: s.currency, interval: s.interval, interval_count: s.interval_count };
    const items = await this.billing.stored.itemsOf(accountId, s.id);
    const byId = new Map(items.map((i) => [i.id, i]));
    const nowS = unixSeconds(now);
    const prorate_ = prorations && (s.status === 'active' || s.status === 'past_due') && nowS < s.current_period_end;
    const rem = s.current_period_end - Math.max(nowS, s.current_period_start);
    const len = this.fullLength(s);
    const lines: PendingLine[] = [];
    const proration = async (price: Price, quantity: number, sign: 1 | -1) => {
      if (!prorate_ || price.recurring?.usage_type === 'metered') return;
      const amount = prorate(priceAmount(price, quantity), rem, len);
      if (amount === 0) return;
      lines.push({
        type: 'proration',
        amount: sign * amount,
        currency: price.currency,
        description: `${sign < 0 ? 'Unused' : 'Remaining'} time on ${quantity} × ${await this.productName(accountId, price.product)} after ${formatTime(nowS)}`,
        price: { id: price.id, product: price.product },
        quantity,
        period: { start: nowS, end: s.current_period_end },
      });
    };
    const touched: StoredItem[] = [];
    for (const c of changes) {
      if (c.kind === 'add') {
        const p = await this.usablePrice(accountId, c.price, c.param, like);
        if ([...byId.values()].some((i) => i.price === p.id))
          throw errors.parameterInvalid(c.param, `price ${p.id} is already on the subscription`);
        const metered = p.recurring!.usage_type === 'metered';
        if (metered && c.quantity !== undefined)
          throw errors.parameterInvalid(
            c.param.replace(/price$/, 'quantity'),
            'metered items take usage records, not a quantity',
          );
        const item: StoredItem = {
          id: newId('si'),
          object: 'subscription_item',
          subscription: s.id,
          price: p.id,
          quantity: metered ? 0 : (c.quantity ?? 1),
          metadata: c.metadata ?? {},
          created: nowS,
        };
        assertBillable(p, item.quantity, c.param.replace(/price$/, 'quantity'));
        await this.billing.stored.items.insert(accountId, item);
        byId.set(item.id, item);
        await proration(p, item.quantity, 1);
        touched.push(item);
        continue;
      }
      const item = byId.get(c.id);
      if (!item) throw errors.notFound('subscription_item', c.id, c.param);
      const oldPrice = (await this.billing.stored.prices.get(accountId, item.price))!;
      if (c.kind === 'delete') {
        if (byId.size === 1)
          throw errors.invalidRequest(
            'subscription_item_last',
            `Item ${item.id} is the subscription's last item; cancel the subscription instead.`,
            c.param,
          );
        await proration(oldPrice, item.quantity, -1);
        await this.billing.stored.items.delete(accountId, item.id);
        byId.delete(item.id);
        continue;
      }
      const newPrice =
        c.price !== undefined && c.price !== item.price
          ? await this.usablePrice(accountId, c.price, c.param.replace(/id$/, 'price'), like)
          : oldPrice;
      const metered = newPrice.recurring!.usage_type === 'metered';
      if (metered && c.quantity !== undefined)
        throw errors.parameterInvalid(
          c.param.replace(/id$/, 'quantity'),
          'metered items take usage records, not a quantity',
        );
      const newQty = metered ? 0 : (c.quantity ?? (oldPrice.recurring!.usage_type === 'metered' ? 1 : item.quantity));
      assertBillable(newPrice, newQty, c.param.replace(/id$/, 'quantity'));
      if (newPrice.id !== oldPrice.id || newQty !== item.quantity) {
        await proration(oldPrice, item.quantity, -1);
        await proration(newPrice, newQty, 1);
      }
      item.price = newPrice.id;
      item.quantity = newQty;
      if (c.metadata !== undefined) item.metadata = mergeMetadata(item.metadata, c.metadata);
      await this.billing.stored.items.update(accountId, item);
      touched.push(item);
    }
    s.pending_lines.push(...lines);
    return touched;
  }

  async update(accountId: string, id: string, body: UpdateSubscriptionBody, now: number): Promise<Stored> {
    const s = await this.load(accountId, id);
    this.requireLive(s);
    const before = await this.toApi(accountId, s, now);
    const prorations = (body.proration_behavior ?? 'create_prorations') === 'create_prorations';
    const changes: ItemChange[] = [];
    if (body.quantity !== undefined) {
      if (body.items !== undefined) throw errors.parameterInvalid('quantity', 'give either quantity or items');
      const items = await this.billing.stored.itemsOf(accountId, s.id);
      if (items.length !== 1)
        throw errors.parameterInvalid('quantity', 'only for subscriptions with one item; use items');
      changes.push({ kind: 'update', id: items[0]!.id, quantity: body.quantity, param: 'quantity' });
    }
    (body.items ?? []).forEach((it, i) => {
      const param = `items[${i}]`;
      if (it.id === undefined) {
        if (it.price === undefined) throw errors.parameterMissing(`${param}.price`);
        if (it.deleted) throw errors.parameterMissing(`${param}.id`);
        changes.push({
          kind: 'add',
          price: it.price,
          quantity: it.quantity,
          metadata: it.metadata,
          param: `${param}.price`,
        });
      } else if (it.deleted) changes.push({ kind: 'delete', id: it.id, param: `${param}.id` });
      else
        changes.push({
          kind: 'update',
          id: it.id,
          price: it.price,
          quantity: it.quantity,
          metadata: it.metadata,
          param: `${param}.id`,
        });
    });
    if (changes.length) await this.changeItems(accountId, s, changes, prorations, now);
    if (body.cancel_at_period_end !== undefined) {
      s.cancel_at_period_end = body.cancel_at_period_end;
      s.canceled_at = body.cancel_at_period_end ? unixSeconds(now) : null;
    }
    if (body.coupon !== undefined)
      s.discount =
        body.coupon === '' ? null : await this.coupons.apply(accountId, s.discount, body.coupon, s.currency, now);
    if (body.default_payment_method !== undefined) s.default_payment_method = body.default_payment_method;
    if (body.collection_method !== undefined) s.collection_method = body.collection_method;
    if (body.days_until_due !== undefined) s.days_until_due = body.days_until_due;
    if (s.collection_method === 'send_invoice' && s.days_until_due === null)
      throw errors.parameterMissing('days_until_due');
    if (s.collection_method === 'charge_automatically') s.days_until_due = null;
    if (body.metadata !== undefined) s.metadata = mergeMetadata(s.metadata, body.metadata);
    await this.save(accountId, s);
    await this.recordUpdated(accountId, s, before, now);
    return s;
  }

  /** subscription.updated for a change of `s` (when it changed something the API shows). */
  private async recordUpdated(accountId: string, s: Stored, before: Subscription, now: number): Promise<void> {
    await recordUpdate(
      this.billing.events,
      accountId,
      'subscription.updated',
      await this.toApi(accountId, s, now),
      before,
      now,
    );
  }

  /** Now: `canceled` at once (open invoices stay as they are). At period end: `cancel_at_period_end`. */
  async cancel(accountId: string, id: string, body: CancelSubscriptionBody, now: number): Promise<Stored> {
    const s = await this.load(accountId, id);
    this.requireLive(s);
    const nowS = unixSeconds(now);
    const before = await this.toApi(accountId, s, now);
    if (body.at_period_end) {
      if (!['active', 'trialing', 'past_due'].includes(s.status)) {
        throw errors.unexpectedState(
          'subscription',
          `Subscription ${s.id} is ${s.status}; only active, trialing or past_due subscriptions can cancel at period end.`,
        );
      }
      s.cancel_at_period_end = true;
      s.canceled_at = nowS;
      await this.save(accountId, s);
      await this.recordUpdated(accountId, s, before, now);
      return s;
    }
    s.status = 'canceled';
    s.canceled_at = nowS;
    s.ended_at = nowS;
    s.cancel_at_period_end = false;
    s.pending_lines = [];
    s.period_history.push({ start: s.current_period_start, end: Math.min(nowS, s.current_period_end), invoice: null });
    await this.save(accountId, s);
    await this.record(accountId, 'subscription.canceled', s, now, before);
    return s;
  }

  async pause(accountId: string, id: string, now: number): Promise<Stored> {
    const s = await this.load(accountId, id);
    if (!['active', 'trialing', 'past_due'].includes(s.status)) {
      throw errors.unexpectedState(
        'subscription',
        `Subscription ${s.id} is ${s.status}; only active, trialing or past_due subscriptions can be paused.`,
      );
    }
    const before = await this.toApi(accountId, s, now);
    s.paused_from = s.status;
    s.status = 'paused';
    s.paused_at = unixSeconds(now);
    await this.save(accountId, s);
    await this.recordUpdated(accountId, s, before, now);
    return s;
  }

  /** paused → a new period starts now (new billing_cycle_anchor) with its invoice at once. */
  async resume(accountId: string, id: string, now: number): Promise<Stored> {
    const s = await this.load(accountId, id);
    if (s.status !== 'paused')
      throw errors.unexpectedState(
        'subscription',
        `Subscription ${s.id} is ${s.status}; only paused subscriptions can be resumed.`,
      );
    const before = await this.toApi(accountId, s, now);
    const nowS = unixSeconds(now);
    const items = await this.billing.stored.itemsOf(accountId, s.id);
    const pausedAt = s.paused_at ?? nowS;
    const usage =
      s.paused_from === 'trialing'
        ? []
        : await this.usageLines(accountId, items, { start: s.current_period_start, end: pausedAt });
    if (s.trial_end !== null && s.trial_end > nowS) s.trial_end = nowS;
    s.trial_reminder_ms = null;
    s.period_history.push({ start: s.current_period_start, end: pausedAt, invoice: null });
    s.billing_cycle_anchor = nowS;
    s.period_index = 0;
    const b = this.bounds(s, 0);
    s.current_period_start = b.start;
    s.current_period_end = b.end;
    s.status = 'active';
    s.upcoming_ms = upcomingAt(s);
    s.paused_at = null;
    s.paused_from = null;
    const lines = [...(await this.licensedLines(accountId, items, b)), ...usage];
    const out = await this.invoiceAndCollect(accountId, s, lines, 'subscription_resume', now);
    if (usage.length) {
      out.period_history[out.period_history.length - 1]!.invoice = out.latest_invoice;
      await this.save(accountId, out);
    }
    await this.recordUpdated(accountId, out, before, now);
    return out;
  }

  // ------------------------------------------------------------------------------------ the engine

  /** The trial is over: the first paid period starts at trial_end (the new billing_cycle_anchor). */
  async endTrial(accountId: string, s: Stored, now: number): Promise<void> {
    const before = await this.toApi(accountId, s, now);
    const end = s.trial_end ?? s.current_period_end;
    s.period_history.push({ start: s.current_period_start, end, invoice: null });
    s.trial_reminder_ms = null;
    if (s.cancel_at_period_end) {
      s.status = 'canceled';
      s.ended_at = end;
      await this.save(accountId, s);
      await this.record(accountId, 'subscription.canceled', s, now, before);
      return;
    }
    s.billing_cycle_anchor = end;
    s.period_index = 0;
    const b = this.bounds(s, 0);
    s.current_period_start = b.start;
    s.current_period_end = b.end;
    s.status = 'active';
    s.upcoming_ms = upcomingAt(s);
    const items = await this.billing.stored.itemsOf(accountId, s.id);
    const out = await this.invoiceAndCollect(
      accountId,
      s,
      await this.licensedLines(accountId, items, b),
      'subscription_cycle',
      now,
    );
    await this.record(accountId, 'subscription.updated', out, now, before);
  }

  /** Due work on a trialing subscription: the trial's end, or 3 days before it the notice that it is near. */
  async trialDue(accountId: string, s: Stored, now: number): Promise<void> {
    const reminder = s.trial_reminder_ms;
    if (reminder == null || reminder > now) return await this.endTrial(accountId, s, now);
    s.trial_reminder_ms = null;
    await this.save(accountId, s);
    await this.record(accountId, 'subscription.trial_will_end', s, reminder);
  }

  /** The period is over: usage of the ended period in arrears + the next period in advance; or the end. */
  async renew(accountId: string, s: Stored, now: number): Promise<void> {
    const before = await this.toApi(accountId, s, now);
    await this.renewQuietly(accountId, s, now);
    const after = await this.load(accountId, s.id);
    await this.record(
      accountId,
      after.status === 'canceled' ? 'subscription.canceled' : 'subscription.renewed',
      after,
      now,
      before,
    );
  }

  private async renewQuietly(accountId: string, s: Stored, now: number): Promise<void> {
    const items = await this.billing.stored.itemsOf(accountId, s.id);
    const ended = { start: s.current_period_start, end: s.current_period_end };
    const usage = await this.usageLines(accountId, items, ended);
    const record = { ...ended, invoice: null as string | null };
    s.period_history.push(record);
    s.upcoming_ms = null;
    if (s.cancel_at_period_end) {
      s.status = 'canceled';
      s.ended_at = ended.end;
      if (usage.some((l) => l.amount !== 0) || s.pending_lines.length) {
        const after = await this.invoiceAndCollect(accountId, s, usage, 'subscription_final', now);
        after.period_history[after.period_history.length - 1]!.invoice = after.latest_invoice;
        await this.save(accountId, after);
        return;
      }
      await this.save(accountId, s);
      return;
    }
    s.period_index += 1;
    const b = this.bounds(s, s.period_index);
    s.current_period_start = b.start;
    s.current_period_end = b.end;
    s.upcoming_ms = upcomingAt(s);
    const after = await this.invoiceAndCollect(
      accountId,
      s,
      [...(await this.licensedLines(accountId, items, b)), ...usage],
      'subscription_cycle',
      now,
    );
    after.period_history[after.period_history.length - 1]!.invoice = after.latest_invoice;
    await this.billing.stored.subscriptions.update(accountId, after);
  }

  /** Due work on an active or past_due subscription: its renewal, or 3 days before it the invoice.upcoming notice. */
  async renewalDue(accountId: string, s: Stored, now: number): Promise<'renewal' | 'notice'> {
    const notice = s.upcoming_ms;
    if (notice == null || notice > now || notice >= s.current_period_end * 1000) {
      await this.renew(accountId, s, now);
      return 'renewal';
    }
    await this.notifyUpcoming(accountId, s, notice);
    return 'notice';
  }

  /**
   * invoice.upcoming for the renewal that ends the current period, dated `at`: the invoice the renewal would
   * make as things stand (the next period's licensed lines, the usage recorded so far, pending prorations, the
   * discount), once per period. A subscription set to cancel at period end has no renewal: nothing recorded.
   */
  async notifyUpcoming(accountId: string, s: Stored, at: number): Promise<void> {
    s.upcoming_ms = null;
    await this.save(accountId, s);
    if (s.cancel_at_period_end) return;
    const items = await this.billing.stored.itemsOf(accountId, s.id);
    const next = this.bounds(s, s.period_index + 1);
    const usage = await this.usageLines(accountId, items, { start: s.current_period_start, end: s.current_period_end });
    const preview = this.invoices.preview(
      {
        customer: s.customer,
        subscription: s.id,
        currency: s.currency,
        collection_method: s.collection_method,
        days_until_due: s.days_until_due,
        billing_reason: 'upcoming',
        description: null,
        period_start: next.start,
        period_end: next.end,
        lines: [...(await this.licensedLines(accountId, items, next)), ...usage, ...s.pending_lines],
        discount: s.discount,
        metadata: {},
      },
      s.current_period_end,
      at,
    );
    await this.billing.events.record(accountId, 'invoice.upcoming', preview, { at, objectId: s.id });
  }

  nextDue(accountId: string, statuses: SubscriptionStatus[]): Promise<number | undefined> {
    return this.billing.stored.nextSubscriptionDue(accountId, statuses);
  }

  due(statuses: SubscriptionStatus[], now: number, accountId?: string, limit = -1) {
    return this.billing.stored.subscriptionsDue(statuses, now, accountId, limit) as Promise<Owned<Stored>[]>;
  }

  // ------------------------------------------------------------------------------ subscription items

  private async itemOwner(accountId: string, itemId: string): Promise<{ item: StoredItem; sub: Stored }> {
    const item = await this.billing.stored.items.require(accountId, itemId, 'subscription_item', 'item_id');
    return { item, sub: await this.load(accountId, item.subscription) };
  }

  async addItem(accountId: string, body: CreateSubscriptionItemBody, now: number): Promise<SubscriptionItem> {
    const s = await this.load(accountId, body.subscription, 'subscription');
    this.requireLive(s);
    const before = await this.toApi(accountId, s, now);
    const [item] = await this.changeItems(
      accountId,
      s,
      [{ kind: 'add', price: body.price, quantity: body.quantity, metadata: body.metadata, param: 'price' }],
      (body.proration_behavior ?? 'create_prorations') === 'create_prorations',
      now,
    );
    await this.save(accountId, s);
    await this.recordUpdated(accountId, s, before, now);
    return await this.itemApi(accountId, item!);
  }

  async getItem(accountId: string, id: string): Promise<SubscriptionItem> {
    return await this.itemApi(accountId, (await this.itemOwner(accountId, id)).item);
  }

  async updateItem(
    accountId: string,
    id: string,
    body: UpdateSubscriptionItemBody,
    now: number,
  ): Promise<SubscriptionItem> {
    const { sub } = await this.itemOwner(accountId, id);
    this.requireLive(sub);
    const before = await this.toApi(accountId, sub, now);
    const [item] = await this.changeItems(
      accountId,
      sub,
      [{ kind: 'update', id, quantity: body.quantity, metadata: body.metadata, param: 'quantity' }],
      (body.proration_behavior ?? 'create_prorations') === 'create_prorations',
      now,
    );
    await this.save(accountId, sub);
    await this.recordUpdated(accountId, sub, before, now);
    return await this.itemApi(accountId, item!);
  }

  async deleteItem(
    accountId: string,
    id: string,
    proration: 'create_prorations' | 'none' | undefined,
    now: number,
  ): Promise<DeletedResource> {
    const { sub } = await this.itemOwner(accountId, id);
    this.requireLive(sub);
    const before = await this.toApi(accountId, sub, now);
    await this.changeItems(
      accountId,
      sub,
      [{ kind: 'delete', id, param: 'item_id' }],
      (proration ?? 'create_prorations') === 'create_prorations',
      now,
    );
    await this.save(accountId, sub);
    await this.recordUpdated(accountId, sub, before, now);
    return { id, object: 'subscription_item', deleted: true };
  }

  async listItems(accountId: string, url: string, q: ListSubscriptionItemsQuery): Promise<List<SubscriptionItem>> {
    await this.load(accountId, q.subscription, 'subscription');
    const page = await this.billing.stored.items.list(accountId, url, {
      limit: q.limit,
      starting_after: q.starting_after,
      ending_before: q.ending_before,
      where: { subscription: q.subscription },
    });
    const data: SubscriptionItem[] = [];
    for (const i of page.data) data.push(await this.itemApi(accountId, i));
    return { ...page, data };
  }
}
