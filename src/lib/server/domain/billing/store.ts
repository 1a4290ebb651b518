// The billing area's persistence (BillingPort, the port an engine's adapter implements) and the documents it keeps.
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
  SubscriptionStatus,
} from '../../../contract/billing.js';
import type { Documents, Owned } from '../../store/seam.js';

export type { Owned };
import type { Events } from '../events.js';
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
  /** The status a paused subscription had (a paused trial bills no usage on resume); null when not paused. */
  paused_from?: SubscriptionStatus | null;
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

/**
 * What the billing area keeps: one kind of document per resource, the per-account counters (invoice numbers),
 * and the queries its rules and its due work ask. Lists of documents come whole, in creation order (oldest
 * first) unless a method says otherwise.
 */
export interface BillingPort {
  readonly customers: Documents<Customer>;
  readonly products: Documents<StoredProduct>;
  readonly prices: Documents<Price>;
  readonly coupons: Documents<StoredCoupon>;
  readonly subscriptions: Documents<StoredSubscription>;
  readonly items: Documents<StoredItem>;
  readonly usage: Documents<StoredUsage>;
  readonly invoices: Documents<StoredInvoice>;
  readonly checkouts: Documents<StoredCheckout>;
  readonly portals: Documents<PortalSession>;

  /** The next value of a per-account counter (1, 2, 3 …), inside the caller's transaction. */
  nextCounter(accountId: string, name: string): Promise<number>;

  /** The items of a subscription. */
  itemsOf(accountId: string, subscriptionId: string): Promise<StoredItem[]>;
  /** The prices of a product. */
  pricesOf(accountId: string, productId: string): Promise<Price[]>;
  /** A customer's subscriptions (all statuses). */
  subscriptionsOf(accountId: string, customerId: string): Promise<StoredSubscription[]>;
  /** A customer's subscriptions that are not canceled. */
  liveSubscriptionsOf(accountId: string, customerId: string): Promise<StoredSubscription[]>;
  /** A customer's invoices that are not drafts. */
  finalizedInvoicesOf(accountId: string, customerId: string): Promise<StoredInvoice[]>;
  /** A subscription's invoices other than `exceptId` whose status is open, past_due or uncollectible. */
  unsettledInvoicesOf(accountId: string, subscriptionId: string, exceptId: string): Promise<StoredInvoice[]>;

  /** A checkout session found by its id alone (the hosted pages' links name no account), with its account. */
  findCheckout(id: string): Promise<Owned<StoredCheckout> | undefined>;
  /** An invoice found by its id alone, with its account. */
  findInvoice(id: string): Promise<Owned<StoredInvoice> | undefined>;
  /** A portal session found by its id alone, with its account. */
  findPortal(id: string): Promise<Owned<PortalSession> | undefined>;
  /** The open checkout sessions whose payment session is `sessionId`. */
  openCheckoutsOf(accountId: string, sessionId: string): Promise<StoredCheckout[]>;

  /** The usage records of an item timestamped before `end` (Unix s). */
  usageBefore(accountId: string, itemId: string, end: number): Promise<StoredUsage[]>;
  /** The usage records of an item timestamped in [start, end) (Unix s). */
  usageDuring(accountId: string, itemId: string, start: number, end: number): Promise<StoredUsage[]>;
  /** The (first) usage record of an item timestamped exactly `ts` (Unix s). */
  usageAt(accountId: string, itemId: string, ts: number): Promise<StoredUsage | undefined>;

  /** When the account's earliest open checkout session expires (expires_ms); undefined when none is open. */
  nextCheckoutExpiry(accountId: string): Promise<number | undefined>;
  /**
   * The open checkout sessions that expire by `now` (expires_ms <= now), of one account or of all: the first
   * `limit` (all when -1) in creation order.
   */
  checkoutsExpiredBy(now: number, accountId: string | undefined, limit: number): Promise<Owned<StoredCheckout>[]>;
  /** When the account's earliest invoice action of `kind` is due (action_ms); undefined when none. */
  nextInvoiceAction(accountId: string, kind: 'retry' | 'due'): Promise<number | undefined>;
  /**
   * The invoices whose action of `kind` is due by `now` (action_ms <= now), of one account or of all: the first
   * `limit` (all when -1) in creation order.
   */
  invoicesDue(
    kind: 'retry' | 'due',
    now: number,
    accountId: string | undefined,
    limit: number,
  ): Promise<Owned<StoredInvoice>[]>;
  /** When the account's earliest subscription in one of `statuses` is due (due_ms); undefined when none. */
  nextSubscriptionDue(accountId: string, statuses: SubscriptionStatus[]): Promise<number | undefined>;
  /**
   * The subscriptions in one of `statuses` due by `now` (due_ms <= now), of one account or of all: the first
   * `limit` (all when -1) in creation order.
   */
  subscriptionsDue(
    statuses: SubscriptionStatus[],
    now: number,
    accountId: string | undefined,
    limit: number,
  ): Promise<Owned<StoredSubscription>[]>;
}

/** What the billing services share: the area's store, the event log, and the server's base URL. */
export interface BillingContext {
  readonly stored: BillingPort;
  /** The event log: every change of a billing object records its event here, in the change's transaction. */
  readonly events: Events;
  /** The server's base URL now, for links to its hosted pages (links.ts). */
  readonly publicUrl: () => string;
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
