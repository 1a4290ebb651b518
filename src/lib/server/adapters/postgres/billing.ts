// The billing area's persistence on PostgreSQL: the same answers as adapters/sqlite/billing.ts, in the same order
// (`seq`), safe with many transactions at once (docs/api.md, "What the server needs of PostgreSQL: transactions"):
// - Invoice numbers come from a counter row written in the statement that reads it (INSERT … ON CONFLICT DO UPDATE
//   … RETURNING): the second taker is aborted (40001) and run again — never two invoices with one number.
// - Due work is claimed with FOR UPDATE SKIP LOCKED in the query that finds it: other processes pass a held row
//   over; a row finished since this snapshot fails the claim with 40001. No work is done twice.
// - A rule that decides from rows it does not write (a usage record per timestamp, a paid invoice's settled
//   siblings, deletes refused while children exist) makes both rivals write one parent row (a no-op UPDATE): a lock
//   alone would not do under REPEATABLE READ (the second gets it still blind to the first's rows); a second writer
//   is aborted and run again, and then sees them.
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
import { tables } from '../../store/tables.js';
import type { Documents } from '../../store/seam.js';
import type { PostgresDatabase } from './db.js';
import { pgDocuments } from './documents.js';
import { pgQuery, type Value } from './query.js';

/**
 * The open checkout sessions of a payment session (account $1, payment session $2): a seek of the index of migration
 * 203, whose expression this must repeat exactly for PostgreSQL to use it.
 */
export const OPEN_FOR_PAYMENT_SESSION =
  "account_id = $1 AND status = 'open' AND ((data::jsonb) ->> 'payment_session') = $2";

/** A checkout session's expiry (ms), as the index of migration 203 keys it. */
const EXPIRES_MS = "(((data::jsonb) ->> 'expires_ms')::bigint)";

/** A claim of due work: the rows it returns are locked until the transaction ends, and rows locked by others skipped. */
const CLAIM = 'FOR UPDATE SKIP LOCKED';

export function pgBillingStore(store: PostgresDatabase): BillingPort {
  /** The documents of `table` matching `cond`, in creation order: the first `limit` (all when negative). */
  async function select<T>(
    table: string,
    cond: string,
    args: Value[],
    opts: { limit?: number; lock?: string } = {},
  ): Promise<Owned<T>[]> {
    const limit = opts.limit ?? -1;
    const limited = limit >= 0 ? ` LIMIT $${args.length + 1}` : '';
    const lock = opts.lock ? ` ${opts.lock}` : '';
    const rows = await pgQuery<{ account_id: string; data: string }>(
      store.current(),
      `SELECT account_id, data FROM ${table} WHERE ${cond} ORDER BY seq${limited}${lock}`,
      limit >= 0 ? [...args, Math.trunc(limit)] : args,
    );
    return rows.map((r) => ({ accountId: r.account_id, doc: JSON.parse(r.data) as T }));
  }
  const docs = async <T>(table: string, cond: string, args: Value[]): Promise<T[]> =>
    (await select<T>(table, cond, args)).map((r) => r.doc);

  /** The smallest value of `expr` among the rows matching `cond`; undefined when none. */
  async function min(table: string, expr: string, cond: string, args: Value[]): Promise<number | undefined> {
    const rows = await pgQuery<{ t: number | null }>(
      store.current(),
      `SELECT MIN(${expr}) AS t FROM ${table} WHERE ${cond}`,
      args,
    );
    return rows[0]?.t ?? undefined;
  }

  /**
   * Writes a row without changing it (see the file's head): two transactions that both decide from rows under it
   * cannot both commit. Only in a write transaction.
   */
  async function touch(table: string, accountId: string, id: string): Promise<void> {
    await pgQuery(store.current(), `UPDATE ${table} SET data = data WHERE id = $1 AND account_id = $2`, [
      id,
      accountId,
    ]);
  }

  /**
   * `docs`, whose inserts also write the parent row the new document names (`parentOf`): a rule that deletes the
   * parent after finding it has no children (customers.ts, products.ts: delete) writes that row too, so the two
   * cannot both commit.
   */
  const childrenOf = <T extends { id: string }>(
    docs: Documents<T>,
    parentTable: string,
    parentOf: (doc: T) => string,
  ): Documents<T> => ({
    ...docs,
    async insert(accountId, doc) {
      await touch(parentTable, accountId, parentOf(doc));
      return docs.insert(accountId, doc);
    },
  });

  /**
   * Coupons, whose ids a caller may choose (unique per account): the domain refuses an id it finds taken, but two
   * transactions creating one id at once each find it free, and the second's plain INSERT would fail on the unique
   * index — a 500. ON CONFLICT DO NOTHING makes that second one, under REPEATABLE READ, a serialization failure
   * (the row it conflicts with is not in its snapshot): run again, it finds the coupon and answers the contract's 409.
   * (The table has no columns besides id, account_id and data: tables.coupons.)
   */
  const createdOnce = (docs: Documents<StoredCoupon>): Documents<StoredCoupon> => ({
    ...docs,
    async insert(accountId, doc) {
      const r = await pgQuery(
        store.current(),
        'INSERT INTO coupons (id, account_id, data) VALUES ($1, $2, $3) ON CONFLICT (account_id, id) DO NOTHING',
        [doc.id, accountId, JSON.stringify(doc)],
      );
      // A taken id this transaction can see: the plain insert's error, as on SQLite.
      return r.count === 1 ? doc : docs.insert(accountId, doc);
    },
  });

  /** `status IN ($from, …)` for `statuses`, numbered from `from`. */
  const statusIn = (statuses: SubscriptionStatus[], from: number) =>
    `status IN (${statuses.map((_, i) => `$${from + i}`).join(', ')})`;
  /** ` AND account_id = $n` when one account is asked for. */
  const ofAccount = (accountId: string | undefined, n: number) => (accountId ? ` AND account_id = $${n}` : '');
  const accountArg = (accountId: string | undefined) => (accountId ? [accountId] : []);

  return {
    customers: pgDocuments<Customer>(store, tables.customers),
    products: pgDocuments<StoredProduct>(store, tables.products),
    prices: childrenOf(pgDocuments<Price>(store, tables.prices), 'products', (p) => p.product),
    coupons: createdOnce(pgDocuments<StoredCoupon>(store, tables.coupons)),
    subscriptions: childrenOf(
      pgDocuments<StoredSubscription>(store, tables.subscriptions),
      'customers',
      (s) => s.customer,
    ),
    items: pgDocuments<StoredItem>(store, tables.subscription_items),
    usage: pgDocuments<StoredUsage>(store, tables.usage_records),
    invoices: pgDocuments<StoredInvoice>(store, tables.invoices),
    checkouts: pgDocuments<StoredCheckout>(store, tables.checkout_sessions),
    portals: pgDocuments<PortalSession>(store, tables.portal_sessions),

    async nextCounter(accountId, name) {
      const rows = await pgQuery<{ value: number }>(
        store.current(),
        `INSERT INTO billing_counters (account_id, name, value) VALUES ($1, $2, 1)
         ON CONFLICT (account_id, name) DO UPDATE SET value = billing_counters.value + 1 RETURNING value`,
        [accountId, name],
      );
      return rows[0]!.value;
    },

    itemsOf: (accountId, subscriptionId) =>
      docs('subscription_items', 'account_id = $1 AND subscription = $2', [accountId, subscriptionId]),
    pricesOf: (accountId, productId) => docs('prices', 'account_id = $1 AND product = $2', [accountId, productId]),
    subscriptionsOf: (accountId, customerId) =>
      docs('subscriptions', 'account_id = $1 AND customer = $2', [accountId, customerId]),
    liveSubscriptionsOf: (accountId, customerId) =>
      docs('subscriptions', "account_id = $1 AND customer = $2 AND status != 'canceled'", [accountId, customerId]),
    finalizedInvoicesOf: (accountId, customerId) =>
      docs('invoices', "account_id = $1 AND customer = $2 AND status != 'draft'", [accountId, customerId]),
    async unsettledInvoicesOf(accountId, subscriptionId, exceptId) {
      // Two of a subscription's invoices paid at once must not each see the other still unsettled (and leave the
      // subscription past_due): the subscription is the row they both write.
      await touch('subscriptions', accountId, subscriptionId);
      return docs(
        'invoices',
        "account_id = $1 AND subscription = $2 AND id != $3 AND status IN ('open', 'past_due', 'uncollectible')",
        [accountId, subscriptionId, exceptId],
      );
    },

    findCheckout: async (id) => (await select<StoredCheckout>('checkout_sessions', 'id = $1', [id], { limit: 1 }))[0],
    findInvoice: async (id) => (await select<StoredInvoice>('invoices', 'id = $1', [id], { limit: 1 }))[0],
    findPortal: async (id) => (await select<PortalSession>('portal_sessions', 'id = $1', [id], { limit: 1 }))[0],
    openCheckoutsOf: (accountId, sessionId) =>
      docs('checkout_sessions', OPEN_FOR_PAYMENT_SESSION, [accountId, sessionId]),

    usageBefore: (accountId, itemId, end) =>
      docs('usage_records', 'account_id = $1 AND subscription_item = $2 AND ts < $3', [accountId, itemId, end]),
    usageDuring: (accountId, itemId, start, end) =>
      docs('usage_records', 'account_id = $1 AND subscription_item = $2 AND ts >= $3 AND ts < $4', [
        accountId,
        itemId,
        start,
        end,
      ]),
    async usageAt(accountId, itemId, ts) {
      // Asked before a usage record is inserted or added to: two records of one item at once must not both find
      // none at this timestamp (two rows where there is one), nor both pass the period's billable bound.
      await touch('subscription_items', accountId, itemId);
      const found = await select<StoredUsage>(
        'usage_records',
        'account_id = $1 AND subscription_item = $2 AND ts = $3',
        [accountId, itemId, ts],
        { limit: 1 },
      );
      return found[0]?.doc;
    },

    nextCheckoutExpiry: (accountId) =>
      min('checkout_sessions', EXPIRES_MS, "account_id = $1 AND status = 'open'", [accountId]),
    checkoutsExpiredBy: (now, accountId, limit) =>
      select<StoredCheckout>(
        'checkout_sessions',
        `status = 'open' AND ${EXPIRES_MS} <= $1${ofAccount(accountId, 2)}`,
        [now, ...accountArg(accountId)],
        { limit, lock: CLAIM },
      ),
    nextInvoiceAction: (accountId, kind) =>
      min('invoices', 'action_ms', 'account_id = $1 AND action_kind = $2', [accountId, kind]),
    invoicesDue: (kind, now, accountId, limit) =>
      select<StoredInvoice>(
        'invoices',
        `action_kind = $1 AND action_ms <= $2${ofAccount(accountId, 3)}`,
        [kind, now, ...accountArg(accountId)],
        { limit, lock: CLAIM },
      ),
    nextSubscriptionDue: (accountId, statuses) =>
      min('subscriptions', 'due_ms', `account_id = $1 AND ${statusIn(statuses, 2)} AND due_ms IS NOT NULL`, [
        accountId,
        ...statuses,
      ]),
    subscriptionsDue: (statuses, now, accountId, limit) =>
      select<StoredSubscription>(
        'subscriptions',
        `${statusIn(statuses, 1)} AND due_ms IS NOT NULL AND due_ms <= $${statuses.length + 1}${ofAccount(accountId, statuses.length + 2)}`,
        [...statuses, now, ...accountArg(accountId)],
        { limit, lock: CLAIM },
      ),
  };
}
