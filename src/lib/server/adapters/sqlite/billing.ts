// The billing area's persistence in SQLite: one Collection per resource, the per-account counters (invoice
// numbers), and the queries of the billing rules and of its due work.
import type { Customer, Price, PortalSession, SubscriptionStatus } from '../../../contract/billing.js';
import type {
  BillingPort,
  Owned,
  StoredCheckout,
  StoredCoupon,
  StoredInvoice,
  StoredItem,
  StoredProduct,
  StoredSubscription,
  StoredUsage,
} from '../../domain/billing/store.js';
import type { SqliteDatabase } from './db.js';
import { asyncDocuments, Collection } from './collection.js';
import { tables } from '../../store/tables.js';

/**
 * The open checkout sessions of a payment session (account, payment session): a seek of the index of migration
 * 203, whose expression this must repeat exactly for SQLite to use it.
 */
export const OPEN_FOR_PAYMENT_SESSION =
  "account_id = ? AND status = 'open' AND json_extract(data, '$.payment_session') = ?";

const docs = <T>(rows: Owned<T>[]): T[] => rows.map((r) => r.doc);

export function sqliteBillingStore(store: SqliteDatabase): BillingPort {
  const customers = new Collection<Customer>(store, tables.customers);
  const products = new Collection<StoredProduct>(store, tables.products);
  const prices = new Collection<Price>(store, tables.prices);
  const coupons = new Collection<StoredCoupon>(store, tables.coupons);
  const subscriptions = new Collection<StoredSubscription>(store, tables.subscriptions);
  const items = new Collection<StoredItem>(store, tables.subscription_items);
  const usage = new Collection<StoredUsage>(store, tables.usage_records);
  const invoices = new Collection<StoredInvoice>(store, tables.invoices);
  const checkouts = new Collection<StoredCheckout>(store, tables.checkout_sessions);
  const portals = new Collection<PortalSession>(store, tables.portal_sessions);
  const statusIn = (statuses: SubscriptionStatus[]) => `status IN (${statuses.map(() => '?').join(', ')})`;
  return {
    customers: asyncDocuments(customers),
    products: asyncDocuments(products),
    prices: asyncDocuments(prices),
    coupons: asyncDocuments(coupons),
    subscriptions: asyncDocuments(subscriptions),
    items: asyncDocuments(items),
    usage: asyncDocuments(usage),
    invoices: asyncDocuments(invoices),
    checkouts: asyncDocuments(checkouts),
    portals: asyncDocuments(portals),

    async nextCounter(accountId, name) {
      const row = store.db
        .prepare(
          `INSERT INTO billing_counters (account_id, name, value) VALUES (?, ?, 1)
         ON CONFLICT (account_id, name) DO UPDATE SET value = value + 1 RETURNING value`,
        )
        .get(accountId, name) as { value: number };
      return row.value;
    },

    itemsOf: async (accountId, subscriptionId) =>
      docs(items.selectWhere('account_id = ? AND subscription = ?', accountId, subscriptionId)),
    pricesOf: async (accountId, productId) =>
      docs(prices.selectWhere('account_id = ? AND product = ?', accountId, productId)),
    subscriptionsOf: async (accountId, customerId) =>
      docs(subscriptions.selectWhere('account_id = ? AND customer = ?', accountId, customerId)),
    liveSubscriptionsOf: async (accountId, customerId) =>
      docs(
        subscriptions.selectWhere("account_id = ? AND customer = ? AND status != 'canceled'", accountId, customerId),
      ),
    finalizedInvoicesOf: async (accountId, customerId) =>
      docs(invoices.selectWhere("account_id = ? AND customer = ? AND status != 'draft'", accountId, customerId)),
    unsettledInvoicesOf: async (accountId, subscriptionId, exceptId) =>
      docs(
        invoices.selectWhere(
          "account_id = ? AND subscription = ? AND id != ? AND status IN ('open', 'past_due', 'uncollectible')",
          accountId,
          subscriptionId,
          exceptId,
        ),
      ),

    findCheckout: async (id) => checkouts.selectWhere('id = ?', id)[0],
    findInvoice: async (id) => invoices.selectWhere('id = ?', id)[0],
    findPortal: async (id) => portals.selectWhere('id = ?', id)[0],
    openCheckoutsOf: async (accountId, sessionId) =>
      docs(checkouts.selectWhere(OPEN_FOR_PAYMENT_SESSION, accountId, sessionId)),

    usageBefore: async (accountId, itemId, end) =>
      docs(usage.selectWhere('account_id = ? AND subscription_item = ? AND ts < ?', accountId, itemId, end)),
    usageDuring: async (accountId, itemId, start, end) =>
      docs(
        usage.selectWhere(
          'account_id = ? AND subscription_item = ? AND ts >= ? AND ts < ?',
          accountId,
          itemId,
          start,
          end,
        ),
      ),
    usageAt: async (accountId, itemId, ts) =>
      usage.selectWhere('account_id = ? AND subscription_item = ? AND ts = ?', accountId, itemId, ts)[0]?.doc,

    async nextCheckoutExpiry(accountId) {
      const row = store.db
        .prepare(
          "SELECT MIN(json_extract(data, '$.expires_ms')) AS t FROM checkout_sessions WHERE account_id = ? AND status = 'open'",
        )
        .get(accountId) as { t: number | null };
      return row.t ?? undefined;
    },
    async checkoutsExpiredBy(now, accountId, limit) {
      const cond = `status = 'open' AND json_extract(data, '$.expires_ms') <= ?${accountId ? ' AND account_id = ?' : ''}`;
      return checkouts.selectFirst(limit, cond, now, ...(accountId ? [accountId] : []));
    },
    async nextInvoiceAction(accountId, kind) {
      const row = store.db
        .prepare('SELECT MIN(action_ms) AS t FROM invoices WHERE account_id = ? AND action_kind = ?')
        .get(accountId, kind) as { t: number | null };
      return row.t ?? undefined;
    },
    async invoicesDue(kind, now, accountId, limit) {
      return invoices.selectFirst(
        limit,
        `action_kind = ? AND action_ms <= ?${accountId ? ' AND account_id = ?' : ''}`,
        kind,
        now,
        ...(accountId ? [accountId] : []),
      );
    },
    async nextSubscriptionDue(accountId, statuses) {
      const row = store.db
        .prepare(
          `SELECT MIN(due_ms) AS t FROM subscriptions WHERE account_id = ? AND ${statusIn(statuses)} AND due_ms IS NOT NULL`,
        )
        .get(accountId, ...statuses) as { t: number | null };
      return row.t ?? undefined;
    },
    async subscriptionsDue(statuses, now, accountId, limit) {
      return subscriptions.selectFirst(
        limit,
        `${statusIn(statuses)} AND due_ms IS NOT NULL AND due_ms <= ?${accountId ? ' AND account_id = ?' : ''}`,
        ...statuses,
        now,
        ...(accountId ? [accountId] : []),
      );
    },
  };
}
