// Every document table, declared once for both engines: its columns (SQL type, how each is read from a document), its
// list filters (an index each and, unless narrow, a kept row count per account), nullable filter columns and other
// indexes. Each adapter builds its documents from these (SQLite's Collection, PostgreSQL's documents.ts). A change
// here is a new migration (SQLite's SQL generated once with adapters/sqlite/tablesql.ts's documentTable), never an
// edit of a released one; test/store/migrations.test.ts checks that a fresh database has exactly these.
//
// Each column's reader states only the fields it reads: a Collection<T> compiles only when T has them.

type Value = string | number | null;

export interface Column<D> {
  /** SQL type and constraints, as in the table's CREATE TABLE. */
  readonly sql: string;
  readonly read: (doc: D) => Value;
}

export interface TableDef<D> {
  readonly name: string;
  readonly columns: { readonly [name: string]: Column<D> };
  /** Filter sets lists use: each has an index `<table>_<cols>` and, on a counted table, an exact row count. */
  readonly filters: readonly (readonly string[])[];
  /**
   * Filter sets whose values each name a few rows (one session's payments, one external id): their counts are
   * read through their index when a list asks (COUNT(*) over a few entries), not kept in `list_counts`, where
   * they took a new row, and a write, for almost every row written.
   */
  readonly narrow: readonly (readonly string[])[];
  /** Filter columns that may be NULL but are never filtered on NULL: partial indexes, NULLs not counted. */
  readonly nullable: readonly string[];
  /** Whether `list_counts` keeps this table's counts (every document table but coupons). */
  readonly counted: boolean;
  /** Indexes other than the filters' and `<table>_account_seq` (due work, uniqueness). */
  readonly otherIndexes: readonly string[];
}

const col = <D>(sql: string, read: (doc: D) => Value): Column<D> => ({ sql, read });

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
type DocOf<C> = [keyof C] extends [never]
  ? unknown
  : Intersection<{ [K in keyof C]: C[K] extends Column<infer D> ? D : never }[keyof C]>;

function table<C extends Record<string, Column<never>>>(
  name: string,
  columns: C,
  opts: {
    filters?: string[][];
    narrow?: string[][];
    nullable?: string[];
    counted?: boolean;
    otherIndexes?: string[];
  } = {},
): TableDef<DocOf<C>> {
  return {
    name,
    columns: columns as unknown as TableDef<DocOf<C>>['columns'],
    filters: opts.filters ?? [],
    narrow: opts.narrow ?? [],
    nullable: opts.nullable ?? [],
    counted: opts.counted ?? true,
    otherIndexes: opts.otherIndexes ?? [],
  };
}

const bit = (b: boolean) => (b ? 1 : 0);

export const tables = {
  // ------------------------------------------------------------------------------------------- sessions
  payment_sessions: table(
    'payment_sessions',
    {
      status: col('TEXT NOT NULL', (s: { status: string }) => s.status),
      external_id: col('TEXT', (s: { external_id: string | null }) => s.external_id),
      expires_ms: col('INTEGER NOT NULL', (s: { expires_ms: number }) => s.expires_ms),
      secret_hash: col('TEXT NOT NULL', (s: { client_secret_hash?: string }) => s.client_secret_hash ?? ''),
    },
    {
      filters: [['status'], ['external_id']],
      narrow: [['external_id']],
      nullable: ['external_id'],
      otherIndexes: ['payment_sessions_due'],
    },
  ),

  // ------------------------------------------------------------------------------------------- payments
  payments: table(
    'payments',
    {
      session_id: col('TEXT', (p: { session_id: string | null }) => p.session_id),
      status: col('TEXT NOT NULL', (p: { status: string }) => p.status),
      settle_ms: col('INTEGER', (p: { settle_ms: number | null }) => p.settle_ms),
    },
    {
      filters: [['session_id'], ['status']],
      narrow: [['session_id']],
      nullable: ['session_id'],
      otherIndexes: ['payments_settle'],
    },
  ),
  vault_tokens: table('vault_tokens', {}),
  network_tokens: table('network_tokens', {}),
  bank_accounts: table(
    'bank_accounts',
    {
      customer_id: col('TEXT', (b: { customer_id: string | null }) => b.customer_id),
      verification_status: col('TEXT NOT NULL', (b: { verification_status: string }) => b.verification_status),
      is_default: col('INTEGER NOT NULL DEFAULT 0', (b: { is_default: boolean }) => bit(b.is_default)),
    },
    {
      filters: [['customer_id'], ['verification_status']],
      nullable: ['customer_id'],
      otherIndexes: ['bank_accounts_default'],
    },
  ),

  // -------------------------------------------------------------------------------------------- billing
  customers: table(
    'customers',
    { email: col('TEXT', (c: { email: string | null }) => c.email) },
    { filters: [['email']], narrow: [['email']], nullable: ['email'] },
  ),
  products: table(
    'products',
    { active: col('INTEGER NOT NULL', (p: { active: boolean }) => bit(p.active)) },
    { filters: [['active']] },
  ),
  prices: table(
    'prices',
    {
      product: col('TEXT NOT NULL', (p: { product: string }) => p.product),
      type: col('TEXT NOT NULL', (p: { type: string }) => p.type),
      active: col('INTEGER NOT NULL', (p: { active: boolean }) => bit(p.active)),
      currency: col('TEXT NOT NULL', (p: { currency: string }) => p.currency),
    },
    { filters: [['product'], ['type'], ['active'], ['currency']] },
  ),
  /** Coupons may take a caller-chosen id, unique per account (not globally); lists count them with COUNT(*). */
  coupons: table('coupons', {}, { counted: false }),
  subscriptions: table(
    'subscriptions',
    {
      customer: col('TEXT NOT NULL', (s: { customer: string }) => s.customer),
      status: col('TEXT NOT NULL', (s: { status: string }) => s.status),
      due_ms: col('INTEGER', (s: { due_ms: number | null }) => s.due_ms),
    },
    { filters: [['customer'], ['status']], otherIndexes: ['subscriptions_due'] },
  ),
  subscription_items: table(
    'subscription_items',
    { subscription: col('TEXT NOT NULL', (i: { subscription: string }) => i.subscription) },
    { filters: [['subscription']] },
  ),
  usage_records: table(
    'usage_records',
    {
      subscription_item: col('TEXT NOT NULL', (u: { subscription_item: string }) => u.subscription_item),
      ts: col('INTEGER NOT NULL', (u: { timestamp: number }) => u.timestamp),
    },
    { filters: [['subscription_item', 'ts']], narrow: [['subscription_item', 'ts']] },
  ),
  invoices: table(
    'invoices',
    {
      customer: col('TEXT NOT NULL', (i: { customer: string }) => i.customer),
      subscription: col('TEXT', (i: { subscription: string | null }) => i.subscription),
      status: col('TEXT NOT NULL', (i: { status: string }) => i.status),
      action_kind: col('TEXT', (i: { action_kind: string | null }) => i.action_kind),
      action_ms: col('INTEGER', (i: { action_ms: number | null }) => i.action_ms),
    },
    {
      filters: [['customer'], ['subscription'], ['status']],
      nullable: ['subscription'],
      otherIndexes: ['invoices_due'],
    },
  ),
  checkout_sessions: table(
    'checkout_sessions',
    { status: col('TEXT NOT NULL', (c: { status: string }) => c.status) },
    {
      filters: [['status']],
      otherIndexes: ['checkout_sessions_open_payment_session', 'checkout_sessions_open_expiry'],
    },
  ),
  portal_sessions: table(
    'portal_sessions',
    { customer: col('TEXT NOT NULL', (p: { customer: string }) => p.customer) },
    { filters: [['customer']] },
  ),

  // --------------------------------------------------------------------------------------------- ledger
  ledger_accounts: table(
    'ledger_accounts',
    {
      status: col('TEXT NOT NULL', (a: { status: string }) => a.status),
      customer_id: col('TEXT', (a: { customer_id: string | null }) => a.customer_id),
      currency: col('TEXT NOT NULL', (a: { currency: string }) => a.currency),
      account_number: col('TEXT NOT NULL', (a: { account_number: string }) => a.account_number),
      system_key: col('TEXT', (a: { system_key: string | null }) => a.system_key),
      balance: col('INTEGER NOT NULL', (a: { balance: number }) => a.balance),
      pending: col('INTEGER NOT NULL', (a: { pending_balance: number }) => a.pending_balance),
    },
    {
      filters: [['status'], ['customer_id'], ['currency']],
      otherIndexes: ['ledger_accounts_number', 'ledger_accounts_system'],
    },
  ),
  journal_entries: table(
    'journal_entries',
    {
      currency: col('TEXT NOT NULL', (j: { currency: string }) => j.currency),
      reverses: col('TEXT', (j: { reverses: string | null }) => j.reverses),
    },
    { otherIndexes: ['journal_entries_reverses'] },
  ),
  ledger_entries: table(
    'ledger_entries',
    {
      ledger_account_id: col('TEXT NOT NULL', (e: { ledger_account_id: string }) => e.ledger_account_id),
      journal_entry_id: col('TEXT NOT NULL', (e: { journal_entry_id: string }) => e.journal_entry_id),
      direction: col(
        "TEXT NOT NULL CHECK (direction IN ('debit', 'credit'))",
        (e: { entry_type: string }) => e.entry_type,
      ),
      amount: col('INTEGER NOT NULL CHECK (amount > 0)', (e: { amount: number }) => e.amount),
      delta: col('INTEGER NOT NULL', (e: { delta: number }) => e.delta),
      currency: col('TEXT NOT NULL', (e: { currency: string }) => e.currency),
    },
    { filters: [['ledger_account_id']] },
  ),
  ledger_holds: table(
    'ledger_holds',
    {
      ledger_account_id: col('TEXT NOT NULL', (h: { ledger_account_id: string }) => h.ledger_account_id),
      status: col('TEXT NOT NULL', (h: { status: string }) => h.status),
      expires_ms: col('INTEGER', (h: { expires_ms: number | null }) => h.expires_ms),
    },
    { filters: [['ledger_account_id'], ['ledger_account_id', 'status']], otherIndexes: ['ledger_holds_due'] },
  ),
  ledger_account_events: table(
    'ledger_account_events',
    { ledger_account_id: col('TEXT NOT NULL', (e: { ledger_account_id: string }) => e.ledger_account_id) },
    { filters: [['ledger_account_id']] },
  ),

  // ------------------------------------------------------------------------------------------- identity
  identity_tokens: table(
    'identity_tokens',
    { type: col('TEXT NOT NULL', (t: { type: string }) => t.type) },
    { filters: [['type']] },
  ),
  kyc_verifications: table(
    'kyc_verifications',
    {
      status: col('TEXT NOT NULL', (k: { status: string }) => k.status),
      customer_id: col('TEXT NOT NULL', (k: { customer_id: string }) => k.customer_id),
      due_ms: col('INTEGER', (k: { due_ms: number | null }) => k.due_ms),
    },
    { filters: [['status'], ['customer_id']], otherIndexes: ['kyc_verifications_due'] },
  ),

  // ------------------------------------------------------------------------------------------- webhooks
  webhook_endpoints: table('webhook_endpoints', {}),
  /** A delivery's row is written before its POST and its outcome after (dispatch/dispatcher.ts). */
  webhook_deliveries: table(
    'webhook_deliveries',
    {
      event: col('TEXT NOT NULL', (d: { event: string }) => d.event),
      webhook_endpoint: col('TEXT NOT NULL', (d: { webhook_endpoint: string }) => d.webhook_endpoint),
      status: col('TEXT NOT NULL', (d: { status: string }) => d.status),
      next_attempt_ms: col('INTEGER', (d: { next_attempt_at: string | null }) =>
        d.next_attempt_at === null ? null : Date.parse(d.next_attempt_at),
      ),
    },
    {
      filters: [['event'], ['webhook_endpoint'], ['webhook_endpoint', 'status']],
      otherIndexes: ['webhook_deliveries_pending', 'webhook_deliveries_done'],
    },
  ),
} as const;

/** A table declared outside this module (tests): same shape. */
export { table as declareTable };
