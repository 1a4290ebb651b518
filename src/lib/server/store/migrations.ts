// Schema migrations, in order. Each area appends its own; a version is never edited once released.
import { documentTable, makeFiltersNullable } from './db.js';
import { paymentsMigrations } from './migrations/payments.js';
import { billingMigrations } from './migrations/billing.js';
import { ledgerMigrations } from './migrations/ledger.js';
import { identityMigrations } from './migrations/identity.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const coreMigrations: Migration[] = [
  {
    version: 1,
    name: 'core: accounts, api keys, idempotency',
    sql: `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- Exact row counts per (table, account, filter columns, values), kept by triggers (store/db.ts documentTable).
CREATE TABLE list_counts (
  tbl TEXT NOT NULL,
  account_id TEXT NOT NULL,
  cols TEXT NOT NULL,
  vals TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (tbl, account_id, cols, vals)
) WITHOUT ROWID;
CREATE TABLE count_specs (tbl TEXT NOT NULL, cols TEXT NOT NULL, PRIMARY KEY (tbl, cols)) WITHOUT ROWID;
CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  created_ms INTEGER NOT NULL,
  clock_offset_ms INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  hash TEXT NOT NULL UNIQUE,
  last4 TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  revoked_ms INTEGER
);
CREATE TABLE idempotency_keys (
  account_id TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  state TEXT NOT NULL,
  owner TEXT NOT NULL,
  status INTEGER,
  body TEXT,
  created_ms INTEGER NOT NULL,
  PRIMARY KEY (account_id, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_ms);
`,
  },
  {
    version: 2,
    name: 'payment sessions',
    sql:
      documentTable('payment_sessions', { status: 'TEXT NOT NULL', external_id: 'TEXT', expires_ms: 'INTEGER NOT NULL', secret_hash: 'TEXT NOT NULL' }, [
        ['status'],
        ['external_id'],
      ]) + '\nCREATE INDEX payment_sessions_due ON payment_sessions (account_id, status, expires_ms);',
  },
  {
    // Measured: a WITHOUT ROWID table stores each ~1.3 KB saved response inside its primary-key b-tree, and an
    // insert cost 26 µs against 11 µs for a rowid table with a unique index on the same key.
    version: 3,
    name: 'core: idempotency keys as a rowid table',
    sql: `
CREATE TABLE idempotency_keys_new (
  seq INTEGER PRIMARY KEY,
  account_id TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  state TEXT NOT NULL,
  owner TEXT NOT NULL,
  status INTEGER,
  body TEXT,
  created_ms INTEGER NOT NULL
);
INSERT INTO idempotency_keys_new (account_id, key, fingerprint, state, owner, status, body, created_ms)
  SELECT account_id, key, fingerprint, state, owner, status, body, created_ms FROM idempotency_keys ORDER BY created_ms;
DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_new RENAME TO idempotency_keys;
CREATE UNIQUE INDEX idempotency_keys_account_key ON idempotency_keys (account_id, key);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_ms);
`,
  },
];

/**
 * Store-wide changes to tables of every area: versions 900–999, after all the areas' own migrations.
 */
const storeMigrations: Migration[] = [
  {
    // Measured: a create-session without an external_id paid ~8 µs of its ~25 µs insert for an index entry and
    // two counter statements about a NULL nobody can list by (list filters are strings).
    version: 900,
    name: 'store: nullable list filters — partial indexes, NULLs not counted',
    sql: [
      makeFiltersNullable('payment_sessions', [['status'], ['external_id']], ['external_id']),
      makeFiltersNullable('payments', [['session_id'], ['status']], ['session_id']),
      makeFiltersNullable('customers', [['email']], ['email']),
      makeFiltersNullable('invoices', [['customer'], ['subscription'], ['status']], ['subscription']),
      makeFiltersNullable('bank_accounts', [['customer_id'], ['verification_status']], ['customer_id']),
    ].join('\n'),
  },
  {
    // Expired idempotency records are purged from the oldest row on (IdempotencyStore.purgeExpired), which needs
    // no index on created_ms: measured, that index entry was ~2% of a create-session.
    version: 901,
    name: 'store: idempotency keys purged in row order, without the created_ms index',
    sql: 'DROP INDEX IF EXISTS idempotency_keys_created;',
  },
];

/** All migrations; each area keeps its own in store/migrations/<area>.ts, in its own version range. */
export const migrations: Migration[] = [...coreMigrations, ...paymentsMigrations, ...billingMigrations, ...ledgerMigrations, ...identityMigrations, ...storeMigrations];
