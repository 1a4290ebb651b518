// The billing area's tables: one Collection per resource, plus the per-account counters (invoice numbers).
import type {
  RecurringInterval,
  Customer,
  Invoice,
  LineItem,
  Price,
  Product,
  Coupon,
  SubscriptionItem,
  Subscription,
  UsageRecord,
  CheckoutSession,
  PortalSession,
} from '../../../contract/billing.js';
import type { Store } from '../../store/sqlite/db.js';
import type { Events } from '../events.js';
import { Collection } from '../../store/sqlite/collection.js';
import { tables } from '../../store/sqlite/tables.js';
import { errors } from '../../errors.js';
import { billableAmount } from './money.js';
import { MAX_AMOUNT } from '../../../contract/numbers.js';

export type StoredProduct = Omit<Product, 'prices' | 'deleted'>;
export type StoredCoupon = Omit<Coupon, 'valid'>;
/** A discount as stored: the coupon as it was when applied, when it started, when it ends; `once` ones get used up. */
export interface StoredDiscount {
  coupon: StoredCoupon;
  start: number;
  end: number | null;
  used: boolean;
}
export type StoredItem = Omit<SubscriptionItem, 'price'> & { price: string };
/** A line waiting for the next invoice of a subscription (prorations). */
export type PendingLine = Omit<LineItem, 'id' | 'object' | 'coupon'>;
export interface PeriodRecord {
  start: number;
  end: number;
  invoice: string | null;
}
export type StoredSubscription = Omit<Subscription, 'items' | 'discount'> & {
  discount: StoredDiscount | null;
  /** Index of the current period from billing_cycle_anchor (−1: the prorated stub before the anchor). */
  period_index: number;
  interval: RecurringInterval;
  interval_count: number;
  pending_lines: PendingLine[];
  period_history: PeriodRecord[];
  /** When the engine next has something to do with it (ms); null when nothing. */
  due_ms: number | null;
  /** When subscription.trial_will_end is due (ms, 3 days before trial_end); null once recorded or without a trial. */
  trial_reminder_ms?: number | null;
  /**
   * When invoice.upcoming is due for the current period (ms, 3 days before current_period_end); null once
   * recorded, or for a period no longer than the notice.
   */
  upcoming_ms?: number | null;
};
export type StoredInvoice = Omit<Invoice, 'hosted_invoice_url' | 'discount'> & {
  discount: StoredDiscount | null;
  /** First failed automatic attempt (Unix s): the dunning schedule counts from it. */
  first_failed_at: number | null;
  action_kind: 'retry' | 'due' | null;
  action_ms: number | null;
};
export type StoredUsage = UsageRecord & { subscription: string };
export type StoredCheckout = CheckoutSession & { expires_ms: number };

export class BillingStore {
  readonly customers: Collection<Customer>;
  readonly products: Collection<StoredProduct>;
  readonly prices: Collection<Price>;
  readonly coupons: Collection<StoredCoupon>;
  readonly subscriptions: Collection<StoredSubscription>;
  readonly items: Collection<StoredItem>;
  readonly usage: Collection<StoredUsage>;
  readonly invoices: Collection<StoredInvoice>;
  readonly checkouts: Collection<StoredCheckout>;
  readonly portals: Collection<PortalSession>;

  constructor(
    readonly store: Store,
    /** The event log: every change of a billing object records its event here, in the change's transaction. */
    readonly events: Events,
    /** The server's base URL now, for links to its hosted pages (links.ts). */
    readonly publicUrl: () => string,
  ) {
    this.customers = new Collection<Customer>(store, tables.customers);
    this.products = new Collection<StoredProduct>(store, tables.products);
    this.prices = new Collection<Price>(store, tables.prices);
    this.coupons = new Collection<StoredCoupon>(store, tables.coupons);
    this.subscriptions = new Collection<StoredSubscription>(store, tables.subscriptions);
    this.items = new Collection<StoredItem>(store, tables.subscription_items);
    this.usage = new Collection<StoredUsage>(store, tables.usage_records);
    this.invoices = new Collection<StoredInvoice>(store, tables.invoices);
    this.checkouts = new Collection<StoredCheckout>(store, tables.checkout_sessions);
    this.portals = new Collection<PortalSession>(store, tables.portal_sessions);
  }

  /** The next value of a per-account counter (1, 2, 3 …), inside the caller's transaction. */
  nextCounter(accountId: string, name: string): number {
    const row = this.store.db
      .prepare(
        `INSERT INTO billing_counters (account_id, name, value) VALUES (?, ?, 1)
         ON CONFLICT (account_id, name) DO UPDATE SET value = value + 1 RETURNING value`,
      )
      .get(accountId, name) as { value: number };
    return row.value;
  }

  itemsOf(accountId: string, subscriptionId: string): StoredItem[] {
    return this.items.selectWhere('account_id = ? AND subscription = ?', accountId, subscriptionId).map((r) => r.doc);
  }
}

/**
 * When the engine next acts on a subscription: trial end (or its notice), or period end (renewal / cancel at
 * period end) or the renewal's notice (invoice.upcoming).
 */
export function subscriptionDue(
  s: Pick<StoredSubscription, 'status' | 'trial_end' | 'current_period_end' | 'trial_reminder_ms' | 'upcoming_ms'>,
): number | null {
  if (s.status === 'trialing')
    return Math.min((s.trial_end ?? s.current_period_end) * 1000, s.trial_reminder_ms ?? Infinity);
  if (s.status === 'active' || s.status === 'past_due')
    return Math.min(s.current_period_end * 1000, s.upcoming_ms ?? Infinity);
  return null;
}

/** 400 `parameter_invalid` on `param` when `quantity` units of `price` would exceed the largest line amount. */
export function assertBillable(price: Price, quantity: number, param: string): void {
  if (billableAmount(price, quantity) === undefined)
    throw errors.parameterInvalid(
      param,
      `${quantity} units of ${price.id} would cost more than ${MAX_AMOUNT} (the largest amount of one line)`,
    );
}
