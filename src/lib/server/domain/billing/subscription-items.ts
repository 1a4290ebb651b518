// A subscription's items: which prices it may take, and adding, changing and removing them, with proration lines
// (credit for the old, charge for the new) waiting for the next invoice.
import type {
  CreateSubscriptionItemBody,
  DeletedResource,
  ListSubscriptionItemsQuery,
  Price,
  SubscriptionItem,
  UpdateSubscriptionItemBody,
} from '../../../contract/billing.js';
import type { List } from '../../../contract/common.js';
import { formatTime } from '../../../format/values.js';
import { unixSeconds } from '../../clock.js';
import { errors } from '../../errors.js';
import { newId } from '../../ids.js';
import { mergeMetadata } from '../values.js';
import { priceAmount, prorate } from './money.js';
import {
  assertBillable,
  type BillingPort,
  type PendingLine,
  type StoredItem,
  type StoredSubscription,
} from './store.js';
import type { SubscriptionInvoicing } from './subscription-invoicing.js';
import type { SubscriptionRecords } from './subscription-records.js';

/** One change of a subscription's items; `param` names the request field that asked for it (for errors). */
export type ItemChange =
  | { kind: 'add'; price: string; quantity?: number; metadata?: Record<string, string>; param: string }
  | { kind: 'update'; id: string; price?: string; quantity?: number; metadata?: Record<string, string>; param: string }
  | { kind: 'delete'; id: string; param: string };

/** A price usable on a subscription: recurring, active, and (when given) the same currency and interval. */
export async function usablePrice(
  stored: BillingPort,
  accountId: string,
  id: string,
  param: string,
  like?: { currency: string; interval: string; interval_count: number },
): Promise<Price> {
  const p = await stored.prices.require(accountId, id, 'price', param);
  if (!p.recurring)
    throw errors.parameterInvalid(param, `price ${p.id} is one_time; subscriptions take recurring prices`);
  if (!p.active) throw errors.parameterInvalid(param, `price ${p.id} is not active`);
  if (like && p.currency !== like.currency)
    throw errors.parameterInvalid(param, `price ${p.id} is in ${p.currency}; the subscription is in ${like.currency}`);
  if (like && (p.recurring.interval !== like.interval || p.recurring.interval_count !== like.interval_count)) {
    throw errors.parameterInvalid(
      param,
      `price ${p.id} bills every ${p.recurring.interval_count} ${p.recurring.interval}; the subscription every ${like.interval_count} ${like.interval}`,
    );
  }
  return p;
}

export class SubscriptionItems {
  constructor(
    private readonly records: SubscriptionRecords,
    private readonly invoicing: SubscriptionInvoicing,
  ) {}

  /** Applies item changes; prorations (credit for the old, charge for the new) for the rest of the period. */
  async change(
    accountId: string,
    s: StoredSubscription,
    changes: ItemChange[],
    prorations: boolean,
    now: number,
  ): Promise<StoredItem[]> {
    const like = { currency: s.currency, interval: s.interval, interval_count: s.interval_count };
    const items = await this.records.stored.itemsOf(accountId, s.id);
    const byId = new Map(items.map((i) => [i.id, i]));
    const nowS = unixSeconds(now);
    const prorate_ = prorations && (s.status === 'active' || s.status === 'past_due') && nowS < s.current_period_end;
    const rem = s.current_period_end - Math.max(nowS, s.current_period_start);
    const len = this.invoicing.fullLength(s);
    const lines: PendingLine[] = [];
    const proration = async (price: Price, quantity: number, sign: 1 | -1) => {
      if (!prorate_ || price.recurring?.usage_type === 'metered') return;
      const amount = prorate(priceAmount(price, quantity), rem, len);
      if (amount === 0) return;
      lines.push({
        type: 'proration',
        amount: sign * amount,
        currency: price.currency,
        description: `${sign < 0 ? 'Unused' : 'Remaining'} time on ${quantity} × ${await this.invoicing.productName(accountId, price.product)} after ${formatTime(nowS)}`,
        price: { id: price.id, product: price.product },
        quantity,
        period: { start: nowS, end: s.current_period_end },
      });
    };
    const touched: StoredItem[] = [];
    for (const c of changes) {
      if (c.kind === 'add') {
        const p = await usablePrice(this.records.stored, accountId, c.price, c.param, like);
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
        await this.records.stored.items.insert(accountId, item);
        byId.set(item.id, item);
        await proration(p, item.quantity, 1);
        touched.push(item);
        continue;
      }
      const item = byId.get(c.id);
      if (!item) throw errors.notFound('subscription_item', c.id, c.param);
      const oldPrice = (await this.records.stored.prices.get(accountId, item.price))!;
      if (c.kind === 'delete') {
        if (byId.size === 1)
          throw errors.invalidRequest(
            'subscription_item_last',
            `Item ${item.id} is the subscription's last item; cancel the subscription instead.`,
            c.param,
          );
        await proration(oldPrice, item.quantity, -1);
        await this.records.stored.items.delete(accountId, item.id);
        byId.delete(item.id);
        continue;
      }
      const newPrice =
        c.price !== undefined && c.price !== item.price
          ? await usablePrice(this.records.stored, accountId, c.price, c.param.replace(/id$/, 'price'), like)
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
      await this.records.stored.items.update(accountId, item);
      touched.push(item);
    }
    s.pending_lines.push(...lines);
    return touched;
  }

  private async owner(accountId: string, itemId: string): Promise<{ item: StoredItem; sub: StoredSubscription }> {
    const item = await this.records.stored.items.require(accountId, itemId, 'subscription_item', 'item_id');
    return { item, sub: await this.records.load(accountId, item.subscription) };
  }

  async add(accountId: string, body: CreateSubscriptionItemBody, now: number): Promise<SubscriptionItem> {
    const s = await this.records.load(accountId, body.subscription, 'subscription');
    this.records.requireLive(s);
    const before = await this.records.toApi(accountId, s, now);
    const [item] = await this.change(
      accountId,
      s,
      [{ kind: 'add', price: body.price, quantity: body.quantity, metadata: body.metadata, param: 'price' }],
      (body.proration_behavior ?? 'create_prorations') === 'create_prorations',
      now,
    );
    await this.records.save(accountId, s);
    await this.records.recordUpdated(accountId, s, before, now);
    return await this.records.itemApi(accountId, item!);
  }

  async get(accountId: string, id: string): Promise<SubscriptionItem> {
    return await this.records.itemApi(accountId, (await this.owner(accountId, id)).item);
  }

  async update(
    accountId: string,
    id: string,
    body: UpdateSubscriptionItemBody,
    now: number,
  ): Promise<SubscriptionItem> {
    const { sub } = await this.owner(accountId, id);
    this.records.requireLive(sub);
    const before = await this.records.toApi(accountId, sub, now);
    const [item] = await this.change(
      accountId,
      sub,
      [{ kind: 'update', id, quantity: body.quantity, metadata: body.metadata, param: 'quantity' }],
      (body.proration_behavior ?? 'create_prorations') === 'create_prorations',
      now,
    );
    await this.records.save(accountId, sub);
    await this.records.recordUpdated(accountId, sub, before, now);
    return await this.records.itemApi(accountId, item!);
  }

  async delete(
    accountId: string,
    id: string,
    proration: 'create_prorations' | 'none' | undefined,
    now: number,
  ): Promise<DeletedResource> {
    const { sub } = await this.owner(accountId, id);
    this.records.requireLive(sub);
    const before = await this.records.toApi(accountId, sub, now);
    await this.change(
      accountId,
      sub,
      [{ kind: 'delete', id, param: 'item_id' }],
      (proration ?? 'create_prorations') === 'create_prorations',
      now,
    );
    await this.records.save(accountId, sub);
    await this.records.recordUpdated(accountId, sub, before, now);
    return { id, object: 'subscription_item', deleted: true };
  }

  async list(accountId: string, url: string, q: ListSubscriptionItemsQuery): Promise<List<SubscriptionItem>> {
    await this.records.load(accountId, q.subscription, 'subscription');
    const page = await this.records.stored.items.list(accountId, url, {
      limit: q.limit,
      starting_after: q.starting_after,
      ending_before: q.ending_before,
      where: { subscription: q.subscription },
    });
    const data: SubscriptionItem[] = [];
    for (const i of page.data) data.push(await this.records.itemApi(accountId, i));
    return { ...page, data };
  }
}
