// Subscriptions (docs/api.md "Billing") and their items: the one service the routes, the other areas and billing's
// due work call. It hands each call to the file of its job (subscription-*.ts) and builds them over one set of records.
import type {
  CancelSubscriptionBody,
  CreateSubscriptionBody,
  CreateSubscriptionItemBody,
  DeletedResource,
  ListSubscriptionItemsQuery,
  ListSubscriptionsQuery,
  Subscription,
  SubscriptionItem,
  SubscriptionStatus,
  UpdateSubscriptionBody,
  UpdateSubscriptionItemBody,
} from '../../../contract/billing.js';
import type { List } from '../../../contract/common.js';
import type { Coupons } from './coupons.js';
import type { Invoices } from './invoices.js';
import type { BillingContext, Owned, StoredSubscription } from './store.js';
import { SubscriptionCreation } from './subscription-create.js';
import { SubscriptionInvoicing } from './subscription-invoicing.js';
import { SubscriptionItems } from './subscription-items.js';
import { SubscriptionLifecycle } from './subscription-lifecycle.js';
import { SubscriptionRecords } from './subscription-records.js';
import { SubscriptionRenewals } from './subscription-renewals.js';

export class Subscriptions {
  private readonly records: SubscriptionRecords;
  private readonly creation: SubscriptionCreation;
  private readonly lifecycle: SubscriptionLifecycle;
  private readonly items: SubscriptionItems;
  private readonly renewals: SubscriptionRenewals;

  constructor(billing: BillingContext, invoices: Invoices, coupons: Coupons) {
    const records = new SubscriptionRecords(billing);
    const invoicing = new SubscriptionInvoicing(records, invoices);
    this.records = records;
    this.items = new SubscriptionItems(records, invoicing);
    this.creation = new SubscriptionCreation(records, invoicing, coupons);
    this.lifecycle = new SubscriptionLifecycle(records, invoicing, this.items, coupons);
    this.renewals = new SubscriptionRenewals(records, invoicing, invoices);
    // An invoice's outcome moved a subscription (past_due, unpaid, active again): subscription.updated. Not told
    // when an operation here records its own one event (create, renew …): it collects quietly (Collecting.quiet).
    invoices.onSubscriptionStatus = async (accountId, sub, previousStatus, now) => {
      await records.record(accountId, 'subscription.updated', sub, now, { status: previousStatus });
    };
  }

  // The records and the API's reads.
  toApi(accountId: string, s: StoredSubscription, now: number): Promise<Subscription> {
    return this.records.toApi(accountId, s, now);
  }
  load(accountId: string, id: string, param?: string): Promise<StoredSubscription> {
    return this.records.load(accountId, id, param);
  }
  get(accountId: string, id: string, now: number): Promise<Subscription> {
    return this.records.get(accountId, id, now);
  }
  list(accountId: string, url: string, q: ListSubscriptionsQuery, now: number): Promise<List<Subscription>> {
    return this.records.list(accountId, url, q, now);
  }

  // Creation and the lifecycle.
  create(accountId: string, body: CreateSubscriptionBody, now: number): Promise<StoredSubscription> {
    return this.creation.create(accountId, body, now);
  }
  update(accountId: string, id: string, body: UpdateSubscriptionBody, now: number): Promise<StoredSubscription> {
    return this.lifecycle.update(accountId, id, body, now);
  }
  cancel(accountId: string, id: string, body: CancelSubscriptionBody, now: number): Promise<StoredSubscription> {
    return this.lifecycle.cancel(accountId, id, body, now);
  }
  pause(accountId: string, id: string, now: number): Promise<StoredSubscription> {
    return this.lifecycle.pause(accountId, id, now);
  }
  resume(accountId: string, id: string, now: number): Promise<StoredSubscription> {
    return this.lifecycle.resume(accountId, id, now);
  }

  // Items.
  addItem(accountId: string, body: CreateSubscriptionItemBody, now: number): Promise<SubscriptionItem> {
    return this.items.add(accountId, body, now);
  }
  getItem(accountId: string, id: string): Promise<SubscriptionItem> {
    return this.items.get(accountId, id);
  }
  updateItem(accountId: string, id: string, body: UpdateSubscriptionItemBody, now: number): Promise<SubscriptionItem> {
    return this.items.update(accountId, id, body, now);
  }
  deleteItem(
    accountId: string,
    id: string,
    proration: 'create_prorations' | 'none' | undefined,
    now: number,
  ): Promise<DeletedResource> {
    return this.items.delete(accountId, id, proration, now);
  }
  listItems(accountId: string, url: string, q: ListSubscriptionItemsQuery): Promise<List<SubscriptionItem>> {
    return this.items.list(accountId, url, q);
  }

  // The due work (due-work.ts; triggers run a renewal or a notice at once).
  trialDue(accountId: string, s: StoredSubscription, now: number): Promise<void> {
    return this.renewals.trialDue(accountId, s, now);
  }
  renewalDue(accountId: string, s: StoredSubscription, now: number): Promise<'renewal' | 'notice'> {
    return this.renewals.renewalDue(accountId, s, now);
  }
  renew(accountId: string, s: StoredSubscription, now: number): Promise<void> {
    return this.renewals.renew(accountId, s, now);
  }
  notifyUpcoming(accountId: string, s: StoredSubscription, at: number): Promise<void> {
    return this.renewals.notifyUpcoming(accountId, s, at);
  }
  nextDue(accountId: string, statuses: SubscriptionStatus[]): Promise<number | undefined> {
    return this.renewals.nextDue(accountId, statuses);
  }
  due(
    statuses: SubscriptionStatus[],
    now: number,
    accountId?: string,
    limit?: number,
  ): Promise<Owned<StoredSubscription>[]> {
    return this.renewals.due(statuses, now, accountId, limit);
  }
}
