// A subscription as stored and as the API shows it: loading, saving (with its next due time), its events, and
// the reads of the API. Every other subscription file works through this one.
import type {
  ListSubscriptionsQuery,
  Subscription,
  SubscriptionItem,
  SubscriptionStatus,
} from '../../../contract/billing.js';
import type { List } from '../../../contract/common.js';
import type { EventType } from '../../../contract/events.js';
import { errors } from '../../errors.js';
import { recordUpdate } from '../record.js';
import { discountApi } from './coupons.js';
import {
  subscriptionDue,
  type BillingContext,
  type BillingPort,
  type StoredItem,
  type StoredSubscription,
} from './store.js';

const ENDED: SubscriptionStatus[] = ['canceled'];

export class SubscriptionRecords {
  constructor(readonly billing: BillingContext) {}

  /** The area's documents and queries. */
  get stored(): BillingPort {
    return this.billing.stored;
  }

  async itemApi(accountId: string, i: StoredItem): Promise<SubscriptionItem> {
    return { ...i, price: (await this.stored.prices.get(accountId, i.price))! };
  }

  async toApi(accountId: string, s: StoredSubscription, now: number): Promise<Subscription> {
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
    for (const i of await this.stored.itemsOf(accountId, s.id)) items.push(await this.itemApi(accountId, i));
    return { ...rest, discount: discountApi(discount, now), items: { object: 'list', data: items } };
  }

  load(accountId: string, id: string, param = 'subscription_id'): Promise<StoredSubscription> {
    return this.stored.subscriptions.require(accountId, id, 'subscription', param);
  }

  /** Stores `s` with its due time recomputed, so that billing's due work finds it when its time comes. */
  save(accountId: string, s: StoredSubscription): Promise<StoredSubscription> {
    s.due_ms = subscriptionDue(s);
    return this.stored.subscriptions.update(accountId, s);
  }

  async record(
    accountId: string,
    type: EventType,
    s: StoredSubscription,
    now: number,
    previous?: object,
  ): Promise<void> {
    await this.billing.events.record(accountId, type, await this.toApi(accountId, s, now), { at: now, previous });
  }

  /** subscription.updated for a change of `s` (when it changed something the API shows). */
  async recordUpdated(accountId: string, s: StoredSubscription, before: Subscription, now: number): Promise<void> {
    await recordUpdate(
      this.billing.events,
      accountId,
      'subscription.updated',
      await this.toApi(accountId, s, now),
      before,
      now,
    );
  }

  /** 409 for a subscription that has ended: it can no longer change. */
  requireLive(s: StoredSubscription): void {
    if (ENDED.includes(s.status))
      throw errors.unexpectedState('subscription', `Subscription ${s.id} is ${s.status}; it can no longer change.`);
  }

  async get(accountId: string, id: string, now: number): Promise<Subscription> {
    return await this.toApi(accountId, await this.load(accountId, id), now);
  }

  async list(accountId: string, url: string, q: ListSubscriptionsQuery, now: number): Promise<List<Subscription>> {
    const page = await this.stored.subscriptions.list(accountId, url, {
      limit: q.limit,
      starting_after: q.starting_after,
      ending_before: q.ending_before,
      where: { customer: q.customer, status: q.status },
    });
    const data: Subscription[] = [];
    for (const s of page.data) data.push(await this.toApi(accountId, s, now));
    return { ...page, data };
  }
}
