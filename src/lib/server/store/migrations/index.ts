// Schema migrations, in order. Each area appends its own; a version is never edited once released: its SQL is
// literal text (generated once with adapters/sqlite/tablesql.ts's documentTable from the table declarations of the
// time, then checked in), and test/store/migrations.test.ts holds the SHA-256 of every released version.
import { paymentsMigrations } from './payments.js';
import { billingMigrations } from './billing.js';
import { ledgerMigrations } from './ledger.js';
import { identityMigrations } from './identity.js';
import { eventsMigrations } from './events.js';
import type { Migration } from './migration.js';

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
    postgres: `
CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);
-- Exact row counts per (table, account, filter columns, values), kept by the store (PostgreSQL never had the triggers).
CREATE TABLE list_counts (
  tbl text NOT NULL,
  account_id text NOT NULL,
  cols text NOT NULL,
  vals text NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (tbl, account_id, cols, vals)
);
CREATE TABLE count_specs (tbl text NOT NULL, cols text NOT NULL, PRIMARY KEY (tbl, cols));
CREATE TABLE accounts (
  id text PRIMARY KEY,
  created_ms bigint NOT NULL,
  clock_offset_ms bigint NOT NULL DEFAULT 0
);
CREATE TABLE api_keys (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id),
  hash text NOT NULL UNIQUE,
  last4 text NOT NULL,
  created_ms bigint NOT NULL,
  revoked_ms bigint
);
CREATE TABLE idempotency_keys (
  account_id text NOT NULL,
  key text NOT NULL,
  fingerprint text NOT NULL,
  state text NOT NULL,
  owner text NOT NULL,
  status bigint,
  body text,
  created_ms bigint NOT NULL,
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_ms);
`,
  },
  {
    version: 2,
    name: 'payment sessions',
    sql: `
CREATE TABLE payment_sessions (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  account_id TEXT NOT NULL,
  status TEXT NOT NULL,
  external_id TEXT,
  expires_ms INTEGER NOT NULL,
  secret_hash TEXT NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX payment_sessions_account_seq ON payment_sessions (account_id, seq);
CREATE INDEX IF NOT EXISTS payment_sessions_status ON payment_sessions (account_id, status, seq);
CREATE INDEX IF NOT EXISTS payment_sessions_external_id ON payment_sessions (account_id, external_id, seq);
INSERT INTO count_specs (tbl, cols) VALUES ('payment_sessions', '');
INSERT INTO count_specs (tbl, cols) VALUES ('payment_sessions', 'status');
INSERT INTO count_specs (tbl, cols) VALUES ('payment_sessions', 'external_id');
CREATE TRIGGER payment_sessions_count_insert AFTER INSERT ON payment_sessions BEGIN
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'payment_sessions', NEW.account_id, '', '', 0;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'payment_sessions' AND account_id = NEW.account_id AND cols = '' AND vals = '';
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'payment_sessions', NEW.account_id, 'status', COALESCE(CAST(NEW.status AS TEXT), char(0)), 0;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'payment_sessions' AND account_id = NEW.account_id AND cols = 'status' AND vals = COALESCE(CAST(NEW.status AS TEXT), char(0));
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'payment_sessions', NEW.account_id, 'external_id', COALESCE(CAST(NEW.external_id AS TEXT), char(0)), 0;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'payment_sessions' AND account_id = NEW.account_id AND cols = 'external_id' AND vals = COALESCE(CAST(NEW.external_id AS TEXT), char(0));
END;
CREATE TRIGGER payment_sessions_count_delete AFTER DELETE ON payment_sessions BEGIN
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'payment_sessions' AND account_id = OLD.account_id AND cols = '' AND vals = '';
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'payment_sessions' AND account_id = OLD.account_id AND cols = 'status' AND vals = COALESCE(CAST(OLD.status AS TEXT), char(0));
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'payment_sessions' AND account_id = OLD.account_id AND cols = 'external_id' AND vals = COALESCE(CAST(OLD.external_id AS TEXT), char(0));
END;
CREATE TRIGGER payment_sessions_count_update AFTER UPDATE OF status, external_id ON payment_sessions BEGIN
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'payment_sessions' AND account_id = OLD.account_id AND cols = 'status' AND vals = COALESCE(CAST(OLD.status AS TEXT), char(0)) AND (COALESCE(CAST(OLD.status AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.status AS TEXT), char(0)));
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'payment_sessions', NEW.account_id, 'status', COALESCE(CAST(NEW.status AS TEXT), char(0)), 0 WHERE (COALESCE(CAST(OLD.status AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.status AS TEXT), char(0)));
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'payment_sessions' AND account_id = NEW.account_id AND cols = 'status' AND vals = COALESCE(CAST(NEW.status AS TEXT), char(0)) AND (COALESCE(CAST(OLD.status AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.status AS TEXT), char(0)));
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'payment_sessions' AND account_id = OLD.account_id AND cols = 'external_id' AND vals = COALESCE(CAST(OLD.external_id AS TEXT), char(0)) AND (COALESCE(CAST(OLD.external_id AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.external_id AS TEXT), char(0)));
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'payment_sessions', NEW.account_id, 'external_id', COALESCE(CAST(NEW.external_id AS TEXT), char(0)), 0 WHERE (COALESCE(CAST(OLD.external_id AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.external_id AS TEXT), char(0)));
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'payment_sessions' AND account_id = NEW.account_id AND cols = 'external_id' AND vals = COALESCE(CAST(NEW.external_id AS TEXT), char(0)) AND (COALESCE(CAST(OLD.external_id AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.external_id AS TEXT), char(0)));
END;
CREATE INDEX payment_sessions_due ON payment_sessions (account_id, status, expires_ms);`,
    postgres: `-- PostgreSQL: without the count triggers (version 902 gives the counts to the store; no PostgreSQL database
-- was ever at a version before it).
CREATE TABLE payment_sessions (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text NOT NULL UNIQUE,
  account_id text NOT NULL,
  status text NOT NULL,
  external_id text,
  expires_ms bigint NOT NULL,
  secret_hash text NOT NULL,
  data text NOT NULL
);
CREATE INDEX payment_sessions_account_seq ON payment_sessions (account_id, seq);
CREATE INDEX IF NOT EXISTS payment_sessions_status ON payment_sessions (account_id, status, seq);
CREATE INDEX IF NOT EXISTS payment_sessions_external_id ON payment_sessions (account_id, external_id, seq);
INSERT INTO count_specs (tbl, cols) VALUES ('payment_sessions', '');
INSERT INTO count_specs (tbl, cols) VALUES ('payment_sessions', 'status');
INSERT INTO count_specs (tbl, cols) VALUES ('payment_sessions', 'external_id');
CREATE INDEX payment_sessions_due ON payment_sessions (account_id, status, expires_ms);`,
  },
  {
    // A WITHOUT ROWID table stores each saved response inside its primary-key b-tree: a rowid table with a unique
    // index on the same key inserts faster (bench/README.md).
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
    postgres: `
-- PostgreSQL: the same change in place (SQLite rebuilds the table because it cannot alter a primary key).
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY;
CREATE UNIQUE INDEX idempotency_keys_account_key ON idempotency_keys (account_id, key);
`,
  },
];

/**
 * Store-wide changes to tables of every area: versions 900–999, after all the areas' own migrations.
 */
const storeMigrations: Migration[] = [
  {
    // A NULL filter value was indexed and counted, though nobody can list by it (list filters are strings).
    version: 900,
    name: 'store: nullable list filters — partial indexes, NULLs not counted',
    sql: `DROP INDEX IF EXISTS payment_sessions_external_id;
CREATE INDEX payment_sessions_external_id ON payment_sessions (account_id, external_id, seq) WHERE external_id IS NOT NULL;
DROP TRIGGER IF EXISTS payment_sessions_count_insert;
DROP TRIGGER IF EXISTS payment_sessions_count_delete;
DROP TRIGGER IF EXISTS payment_sessions_count_update;
CREATE TRIGGER payment_sessions_count_insert AFTER INSERT ON payment_sessions BEGIN
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'payment_sessions', NEW.account_id, '', '', 0;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'payment_sessions' AND account_id = NEW.account_id AND cols = '' AND vals = '';
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'payment_sessions', NEW.account_id, 'status', COALESCE(CAST(NEW.status AS TEXT), char(0)), 0;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'payment_sessions' AND account_id = NEW.account_id AND cols = 'status' AND vals = COALESCE(CAST(NEW.status AS TEXT), char(0));
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'payment_sessions', NEW.account_id, 'external_id', COALESCE(CAST(NEW.external_id AS TEXT), char(0)), 0 WHERE NEW.external_id IS NOT NULL;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'payment_sessions' AND account_id = NEW.account_id AND cols = 'external_id' AND vals = COALESCE(CAST(NEW.external_id AS TEXT), char(0)) AND NEW.external_id IS NOT NULL;
END;
CREATE TRIGGER payment_sessions_count_delete AFTER DELETE ON payment_sessions BEGIN
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'payment_sessions' AND account_id = OLD.account_id AND cols = '' AND vals = '';
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'payment_sessions' AND account_id = OLD.account_id AND cols = 'status' AND vals = COALESCE(CAST(OLD.status AS TEXT), char(0));
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'payment_sessions' AND account_id = OLD.account_id AND cols = 'external_id' AND vals = COALESCE(CAST(OLD.external_id AS TEXT), char(0)) AND OLD.external_id IS NOT NULL;
END;
CREATE TRIGGER payment_sessions_count_update AFTER UPDATE OF status, external_id ON payment_sessions BEGIN
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'payment_sessions' AND account_id = OLD.account_id AND cols = 'status' AND vals = COALESCE(CAST(OLD.status AS TEXT), char(0)) AND (COALESCE(CAST(OLD.status AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.status AS TEXT), char(0)));
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'payment_sessions', NEW.account_id, 'status', COALESCE(CAST(NEW.status AS TEXT), char(0)), 0 WHERE (COALESCE(CAST(OLD.status AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.status AS TEXT), char(0)));
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'payment_sessions' AND account_id = NEW.account_id AND cols = 'status' AND vals = COALESCE(CAST(NEW.status AS TEXT), char(0)) AND (COALESCE(CAST(OLD.status AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.status AS TEXT), char(0)));
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'payment_sessions' AND account_id = OLD.account_id AND cols = 'external_id' AND vals = COALESCE(CAST(OLD.external_id AS TEXT), char(0)) AND (COALESCE(CAST(OLD.external_id AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.external_id AS TEXT), char(0))) AND OLD.external_id IS NOT NULL;
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'payment_sessions', NEW.account_id, 'external_id', COALESCE(CAST(NEW.external_id AS TEXT), char(0)), 0 WHERE (COALESCE(CAST(OLD.external_id AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.external_id AS TEXT), char(0))) AND NEW.external_id IS NOT NULL;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'payment_sessions' AND account_id = NEW.account_id AND cols = 'external_id' AND vals = COALESCE(CAST(NEW.external_id AS TEXT), char(0)) AND (COALESCE(CAST(OLD.external_id AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.external_id AS TEXT), char(0))) AND NEW.external_id IS NOT NULL;
END;
DELETE FROM list_counts WHERE tbl = 'payment_sessions' AND cols = 'external_id' AND vals = char(0);
DROP INDEX IF EXISTS payments_session_id;
CREATE INDEX payments_session_id ON payments (account_id, session_id, seq) WHERE session_id IS NOT NULL;
DROP TRIGGER IF EXISTS payments_count_insert;
DROP TRIGGER IF EXISTS payments_count_delete;
DROP TRIGGER IF EXISTS payments_count_update;
CREATE TRIGGER payments_count_insert AFTER INSERT ON payments BEGIN
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'payments', NEW.account_id, '', '', 0;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'payments' AND account_id = NEW.account_id AND cols = '' AND vals = '';
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'payments', NEW.account_id, 'session_id', COALESCE(CAST(NEW.session_id AS TEXT), char(0)), 0 WHERE NEW.session_id IS NOT NULL;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'payments' AND account_id = NEW.account_id AND cols = 'session_id' AND vals = COALESCE(CAST(NEW.session_id AS TEXT), char(0)) AND NEW.session_id IS NOT NULL;
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'payments', NEW.account_id, 'status', COALESCE(CAST(NEW.status AS TEXT), char(0)), 0;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'payments' AND account_id = NEW.account_id AND cols = 'status' AND vals = COALESCE(CAST(NEW.status AS TEXT), char(0));
END;
CREATE TRIGGER payments_count_delete AFTER DELETE ON payments BEGIN
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'payments' AND account_id = OLD.account_id AND cols = '' AND vals = '';
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'payments' AND account_id = OLD.account_id AND cols = 'session_id' AND vals = COALESCE(CAST(OLD.session_id AS TEXT), char(0)) AND OLD.session_id IS NOT NULL;
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'payments' AND account_id = OLD.account_id AND cols = 'status' AND vals = COALESCE(CAST(OLD.status AS TEXT), char(0));
END;
CREATE TRIGGER payments_count_update AFTER UPDATE OF session_id, status ON payments BEGIN
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'payments' AND account_id = OLD.account_id AND cols = 'session_id' AND vals = COALESCE(CAST(OLD.session_id AS TEXT), char(0)) AND (COALESCE(CAST(OLD.session_id AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.session_id AS TEXT), char(0))) AND OLD.session_id IS NOT NULL;
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'payments', NEW.account_id, 'session_id', COALESCE(CAST(NEW.session_id AS TEXT), char(0)), 0 WHERE (COALESCE(CAST(OLD.session_id AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.session_id AS TEXT), char(0))) AND NEW.session_id IS NOT NULL;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'payments' AND account_id = NEW.account_id AND cols = 'session_id' AND vals = COALESCE(CAST(NEW.session_id AS TEXT), char(0)) AND (COALESCE(CAST(OLD.session_id AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.session_id AS TEXT), char(0))) AND NEW.session_id IS NOT NULL;
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'payments' AND account_id = OLD.account_id AND cols = 'status' AND vals = COALESCE(CAST(OLD.status AS TEXT), char(0)) AND (COALESCE(CAST(OLD.status AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.status AS TEXT), char(0)));
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'payments', NEW.account_id, 'status', COALESCE(CAST(NEW.status AS TEXT), char(0)), 0 WHERE (COALESCE(CAST(OLD.status AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.status AS TEXT), char(0)));
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'payments' AND account_id = NEW.account_id AND cols = 'status' AND vals = COALESCE(CAST(NEW.status AS TEXT), char(0)) AND (COALESCE(CAST(OLD.status AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.status AS TEXT), char(0)));
END;
DELETE FROM list_counts WHERE tbl = 'payments' AND cols = 'session_id' AND vals = char(0);
DROP INDEX IF EXISTS customers_email;
CREATE INDEX customers_email ON customers (account_id, email, seq) WHERE email IS NOT NULL;
DROP TRIGGER IF EXISTS customers_count_insert;
DROP TRIGGER IF EXISTS customers_count_delete;
DROP TRIGGER IF EXISTS customers_count_update;
CREATE TRIGGER customers_count_insert AFTER INSERT ON customers BEGIN
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'customers', NEW.account_id, '', '', 0;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'customers' AND account_id = NEW.account_id AND cols = '' AND vals = '';
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'customers', NEW.account_id, 'email', COALESCE(CAST(NEW.email AS TEXT), char(0)), 0 WHERE NEW.email IS NOT NULL;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'customers' AND account_id = NEW.account_id AND cols = 'email' AND vals = COALESCE(CAST(NEW.email AS TEXT), char(0)) AND NEW.email IS NOT NULL;
END;
CREATE TRIGGER customers_count_delete AFTER DELETE ON customers BEGIN
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'customers' AND account_id = OLD.account_id AND cols = '' AND vals = '';
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'customers' AND account_id = OLD.account_id AND cols = 'email' AND vals = COALESCE(CAST(OLD.email AS TEXT), char(0)) AND OLD.email IS NOT NULL;
END;
CREATE TRIGGER customers_count_update AFTER UPDATE OF email ON customers BEGIN
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'customers' AND account_id = OLD.account_id AND cols = 'email' AND vals = COALESCE(CAST(OLD.email AS TEXT), char(0)) AND (COALESCE(CAST(OLD.email AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.email AS TEXT), char(0))) AND OLD.email IS NOT NULL;
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'customers', NEW.account_id, 'email', COALESCE(CAST(NEW.email AS TEXT), char(0)), 0 WHERE (COALESCE(CAST(OLD.email AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.email AS TEXT), char(0))) AND NEW.email IS NOT NULL;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'customers' AND account_id = NEW.account_id AND cols = 'email' AND vals = COALESCE(CAST(NEW.email AS TEXT), char(0)) AND (COALESCE(CAST(OLD.email AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.email AS TEXT), char(0))) AND NEW.email IS NOT NULL;
END;
DELETE FROM list_counts WHERE tbl = 'customers' AND cols = 'email' AND vals = char(0);
DROP INDEX IF EXISTS invoices_subscription;
CREATE INDEX invoices_subscription ON invoices (account_id, subscription, seq) WHERE subscription IS NOT NULL;
DROP TRIGGER IF EXISTS invoices_count_insert;
DROP TRIGGER IF EXISTS invoices_count_delete;
DROP TRIGGER IF EXISTS invoices_count_update;
CREATE TRIGGER invoices_count_insert AFTER INSERT ON invoices BEGIN
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'invoices', NEW.account_id, '', '', 0;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'invoices' AND account_id = NEW.account_id AND cols = '' AND vals = '';
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'invoices', NEW.account_id, 'customer', COALESCE(CAST(NEW.customer AS TEXT), char(0)), 0;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'invoices' AND account_id = NEW.account_id AND cols = 'customer' AND vals = COALESCE(CAST(NEW.customer AS TEXT), char(0));
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'invoices', NEW.account_id, 'subscription', COALESCE(CAST(NEW.subscription AS TEXT), char(0)), 0 WHERE NEW.subscription IS NOT NULL;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'invoices' AND account_id = NEW.account_id AND cols = 'subscription' AND vals = COALESCE(CAST(NEW.subscription AS TEXT), char(0)) AND NEW.subscription IS NOT NULL;
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'invoices', NEW.account_id, 'status', COALESCE(CAST(NEW.status AS TEXT), char(0)), 0;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'invoices' AND account_id = NEW.account_id AND cols = 'status' AND vals = COALESCE(CAST(NEW.status AS TEXT), char(0));
END;
CREATE TRIGGER invoices_count_delete AFTER DELETE ON invoices BEGIN
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'invoices' AND account_id = OLD.account_id AND cols = '' AND vals = '';
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'invoices' AND account_id = OLD.account_id AND cols = 'customer' AND vals = COALESCE(CAST(OLD.customer AS TEXT), char(0));
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'invoices' AND account_id = OLD.account_id AND cols = 'subscription' AND vals = COALESCE(CAST(OLD.subscription AS TEXT), char(0)) AND OLD.subscription IS NOT NULL;
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'invoices' AND account_id = OLD.account_id AND cols = 'status' AND vals = COALESCE(CAST(OLD.status AS TEXT), char(0));
END;
CREATE TRIGGER invoices_count_update AFTER UPDATE OF customer, subscription, status ON invoices BEGIN
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'invoices' AND account_id = OLD.account_id AND cols = 'customer' AND vals = COALESCE(CAST(OLD.customer AS TEXT), char(0)) AND (COALESCE(CAST(OLD.customer AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.customer AS TEXT), char(0)));
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'invoices', NEW.account_id, 'customer', COALESCE(CAST(NEW.customer AS TEXT), char(0)), 0 WHERE (COALESCE(CAST(OLD.customer AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.customer AS TEXT), char(0)));
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'invoices' AND account_id = NEW.account_id AND cols = 'customer' AND vals = COALESCE(CAST(NEW.customer AS TEXT), char(0)) AND (COALESCE(CAST(OLD.customer AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.customer AS TEXT), char(0)));
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'invoices' AND account_id = OLD.account_id AND cols = 'subscription' AND vals = COALESCE(CAST(OLD.subscription AS TEXT), char(0)) AND (COALESCE(CAST(OLD.subscription AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.subscription AS TEXT), char(0))) AND OLD.subscription IS NOT NULL;
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'invoices', NEW.account_id, 'subscription', COALESCE(CAST(NEW.subscription AS TEXT), char(0)), 0 WHERE (COALESCE(CAST(OLD.subscription AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.subscription AS TEXT), char(0))) AND NEW.subscription IS NOT NULL;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'invoices' AND account_id = NEW.account_id AND cols = 'subscription' AND vals = COALESCE(CAST(NEW.subscription AS TEXT), char(0)) AND (COALESCE(CAST(OLD.subscription AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.subscription AS TEXT), char(0))) AND NEW.subscription IS NOT NULL;
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'invoices' AND account_id = OLD.account_id AND cols = 'status' AND vals = COALESCE(CAST(OLD.status AS TEXT), char(0)) AND (COALESCE(CAST(OLD.status AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.status AS TEXT), char(0)));
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'invoices', NEW.account_id, 'status', COALESCE(CAST(NEW.status AS TEXT), char(0)), 0 WHERE (COALESCE(CAST(OLD.status AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.status AS TEXT), char(0)));
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'invoices' AND account_id = NEW.account_id AND cols = 'status' AND vals = COALESCE(CAST(NEW.status AS TEXT), char(0)) AND (COALESCE(CAST(OLD.status AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.status AS TEXT), char(0)));
END;
DELETE FROM list_counts WHERE tbl = 'invoices' AND cols = 'subscription' AND vals = char(0);
DROP INDEX IF EXISTS bank_accounts_customer_id;
CREATE INDEX bank_accounts_customer_id ON bank_accounts (account_id, customer_id, seq) WHERE customer_id IS NOT NULL;
DROP TRIGGER IF EXISTS bank_accounts_count_insert;
DROP TRIGGER IF EXISTS bank_accounts_count_delete;
DROP TRIGGER IF EXISTS bank_accounts_count_update;
CREATE TRIGGER bank_accounts_count_insert AFTER INSERT ON bank_accounts BEGIN
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'bank_accounts', NEW.account_id, '', '', 0;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'bank_accounts' AND account_id = NEW.account_id AND cols = '' AND vals = '';
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'bank_accounts', NEW.account_id, 'customer_id', COALESCE(CAST(NEW.customer_id AS TEXT), char(0)), 0 WHERE NEW.customer_id IS NOT NULL;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'bank_accounts' AND account_id = NEW.account_id AND cols = 'customer_id' AND vals = COALESCE(CAST(NEW.customer_id AS TEXT), char(0)) AND NEW.customer_id IS NOT NULL;
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'bank_accounts', NEW.account_id, 'verification_status', COALESCE(CAST(NEW.verification_status AS TEXT), char(0)), 0;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'bank_accounts' AND account_id = NEW.account_id AND cols = 'verification_status' AND vals = COALESCE(CAST(NEW.verification_status AS TEXT), char(0));
END;
CREATE TRIGGER bank_accounts_count_delete AFTER DELETE ON bank_accounts BEGIN
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'bank_accounts' AND account_id = OLD.account_id AND cols = '' AND vals = '';
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'bank_accounts' AND account_id = OLD.account_id AND cols = 'customer_id' AND vals = COALESCE(CAST(OLD.customer_id AS TEXT), char(0)) AND OLD.customer_id IS NOT NULL;
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'bank_accounts' AND account_id = OLD.account_id AND cols = 'verification_status' AND vals = COALESCE(CAST(OLD.verification_status AS TEXT), char(0));
END;
CREATE TRIGGER bank_accounts_count_update AFTER UPDATE OF customer_id, verification_status ON bank_accounts BEGIN
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'bank_accounts' AND account_id = OLD.account_id AND cols = 'customer_id' AND vals = COALESCE(CAST(OLD.customer_id AS TEXT), char(0)) AND (COALESCE(CAST(OLD.customer_id AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.customer_id AS TEXT), char(0))) AND OLD.customer_id IS NOT NULL;
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'bank_accounts', NEW.account_id, 'customer_id', COALESCE(CAST(NEW.customer_id AS TEXT), char(0)), 0 WHERE (COALESCE(CAST(OLD.customer_id AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.customer_id AS TEXT), char(0))) AND NEW.customer_id IS NOT NULL;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'bank_accounts' AND account_id = NEW.account_id AND cols = 'customer_id' AND vals = COALESCE(CAST(NEW.customer_id AS TEXT), char(0)) AND (COALESCE(CAST(OLD.customer_id AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.customer_id AS TEXT), char(0))) AND NEW.customer_id IS NOT NULL;
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'bank_accounts' AND account_id = OLD.account_id AND cols = 'verification_status' AND vals = COALESCE(CAST(OLD.verification_status AS TEXT), char(0)) AND (COALESCE(CAST(OLD.verification_status AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.verification_status AS TEXT), char(0)));
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'bank_accounts', NEW.account_id, 'verification_status', COALESCE(CAST(NEW.verification_status AS TEXT), char(0)), 0 WHERE (COALESCE(CAST(OLD.verification_status AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.verification_status AS TEXT), char(0)));
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'bank_accounts' AND account_id = NEW.account_id AND cols = 'verification_status' AND vals = COALESCE(CAST(NEW.verification_status AS TEXT), char(0)) AND (COALESCE(CAST(OLD.verification_status AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.verification_status AS TEXT), char(0)));
END;
DELETE FROM list_counts WHERE tbl = 'bank_accounts' AND cols = 'customer_id' AND vals = char(0);`,
    postgres: `-- PostgreSQL: the partial indexes only (there were no count triggers to replace, nor counts of NULLs to delete).
DROP INDEX IF EXISTS payment_sessions_external_id;
CREATE INDEX payment_sessions_external_id ON payment_sessions (account_id, external_id, seq) WHERE external_id IS NOT NULL;
DROP INDEX IF EXISTS payments_session_id;
CREATE INDEX payments_session_id ON payments (account_id, session_id, seq) WHERE session_id IS NOT NULL;
DROP INDEX IF EXISTS customers_email;
CREATE INDEX customers_email ON customers (account_id, email, seq) WHERE email IS NOT NULL;
DROP INDEX IF EXISTS invoices_subscription;
CREATE INDEX invoices_subscription ON invoices (account_id, subscription, seq) WHERE subscription IS NOT NULL;
DROP INDEX IF EXISTS bank_accounts_customer_id;
CREATE INDEX bank_accounts_customer_id ON bank_accounts (account_id, customer_id, seq) WHERE customer_id IS NOT NULL;
`,
  },
  {
    // Expired idempotency records are purged from the oldest row on (IdempotencyKeys.purgeExpired), which needs
    // no index on created_ms, an entry every create-session paid for.
    version: 901,
    name: 'store: idempotency keys purged in row order, without the created_ms index',
    sql: 'DROP INDEX IF EXISTS idempotency_keys_created;',
  },
  {
    // The list counts are kept by Collection (Store.count): tallied per transaction and written once per count
    // before COMMIT, instead of two trigger statements per count for every row written. The counts they kept stay.
    version: 902,
    name: 'store: list counts kept by the store, not by triggers',
    sql: `DROP TRIGGER IF EXISTS bank_accounts_count_delete;
DROP TRIGGER IF EXISTS bank_accounts_count_insert;
DROP TRIGGER IF EXISTS bank_accounts_count_update;
DROP TRIGGER IF EXISTS checkout_sessions_count_delete;
DROP TRIGGER IF EXISTS checkout_sessions_count_insert;
DROP TRIGGER IF EXISTS checkout_sessions_count_update;
DROP TRIGGER IF EXISTS customers_count_delete;
DROP TRIGGER IF EXISTS customers_count_insert;
DROP TRIGGER IF EXISTS customers_count_update;
DROP TRIGGER IF EXISTS identity_tokens_count_delete;
DROP TRIGGER IF EXISTS identity_tokens_count_insert;
DROP TRIGGER IF EXISTS identity_tokens_count_update;
DROP TRIGGER IF EXISTS invoices_count_delete;
DROP TRIGGER IF EXISTS invoices_count_insert;
DROP TRIGGER IF EXISTS invoices_count_update;
DROP TRIGGER IF EXISTS journal_entries_count_delete;
DROP TRIGGER IF EXISTS journal_entries_count_insert;
DROP TRIGGER IF EXISTS kyc_verifications_count_delete;
DROP TRIGGER IF EXISTS kyc_verifications_count_insert;
DROP TRIGGER IF EXISTS kyc_verifications_count_update;
DROP TRIGGER IF EXISTS ledger_account_events_count_delete;
DROP TRIGGER IF EXISTS ledger_account_events_count_insert;
DROP TRIGGER IF EXISTS ledger_account_events_count_update;
DROP TRIGGER IF EXISTS ledger_accounts_count_delete;
DROP TRIGGER IF EXISTS ledger_accounts_count_insert;
DROP TRIGGER IF EXISTS ledger_accounts_count_update;
DROP TRIGGER IF EXISTS ledger_entries_count_delete;
DROP TRIGGER IF EXISTS ledger_entries_count_insert;
DROP TRIGGER IF EXISTS ledger_entries_count_update;
DROP TRIGGER IF EXISTS ledger_holds_count_delete;
DROP TRIGGER IF EXISTS ledger_holds_count_insert;
DROP TRIGGER IF EXISTS ledger_holds_count_update;
DROP TRIGGER IF EXISTS network_tokens_count_delete;
DROP TRIGGER IF EXISTS network_tokens_count_insert;
DROP TRIGGER IF EXISTS payment_sessions_count_delete;
DROP TRIGGER IF EXISTS payment_sessions_count_insert;
DROP TRIGGER IF EXISTS payment_sessions_count_update;
DROP TRIGGER IF EXISTS payments_count_delete;
DROP TRIGGER IF EXISTS payments_count_insert;
DROP TRIGGER IF EXISTS payments_count_update;
DROP TRIGGER IF EXISTS portal_sessions_count_delete;
DROP TRIGGER IF EXISTS portal_sessions_count_insert;
DROP TRIGGER IF EXISTS portal_sessions_count_update;
DROP TRIGGER IF EXISTS prices_count_delete;
DROP TRIGGER IF EXISTS prices_count_insert;
DROP TRIGGER IF EXISTS prices_count_update;
DROP TRIGGER IF EXISTS products_count_delete;
DROP TRIGGER IF EXISTS products_count_insert;
DROP TRIGGER IF EXISTS products_count_update;
DROP TRIGGER IF EXISTS subscription_items_count_delete;
DROP TRIGGER IF EXISTS subscription_items_count_insert;
DROP TRIGGER IF EXISTS subscription_items_count_update;
DROP TRIGGER IF EXISTS subscriptions_count_delete;
DROP TRIGGER IF EXISTS subscriptions_count_insert;
DROP TRIGGER IF EXISTS subscriptions_count_update;
DROP TRIGGER IF EXISTS usage_records_count_delete;
DROP TRIGGER IF EXISTS usage_records_count_insert;
DROP TRIGGER IF EXISTS usage_records_count_update;
DROP TRIGGER IF EXISTS vault_tokens_count_delete;
DROP TRIGGER IF EXISTS vault_tokens_count_insert;
DROP TRIGGER IF EXISTS webhook_deliveries_count_delete;
DROP TRIGGER IF EXISTS webhook_deliveries_count_insert;
DROP TRIGGER IF EXISTS webhook_deliveries_count_update;
DROP TRIGGER IF EXISTS webhook_endpoints_count_delete;
DROP TRIGGER IF EXISTS webhook_endpoints_count_insert;`,
    postgres: `-- PostgreSQL: its forms of the versions before this one never created the count triggers: nothing to drop.`,
  },
  {
    // Filter sets whose values each name a few rows (tables.ts `narrow`) are counted through their index when a
    // list asks, no longer kept: a kept count took a row of list_counts, and a write, for almost every payment,
    // customer, session with an external id and usage record.
    version: 903,
    name: 'store: narrow filters counted through their index, not kept',
    sql: `DELETE FROM count_specs WHERE (tbl = 'payments' AND cols = 'session_id') OR (tbl = 'payment_sessions' AND cols = 'external_id') OR (tbl = 'customers' AND cols = 'email') OR (tbl = 'usage_records' AND cols = 'subscription_item,ts');
DELETE FROM list_counts WHERE (tbl = 'payments' AND cols = 'session_id') OR (tbl = 'payment_sessions' AND cols = 'external_id') OR (tbl = 'customers' AND cols = 'email') OR (tbl = 'usage_records' AND cols = 'subscription_item,ts');`,
  },
  {
    // A customer has one default bank account. The rule reads the customer's accounts and writes the new default
    // (clearing the old one): two accounts created at once for a customer without a default each saw none, and an
    // engine that runs them at once (PostgreSQL) kept both as defaults. The index refuses the second; its
    // transaction runs again and finds the first. A database with several defaults for one customer keeps the
    // newest as the default.
    version: 905,
    name: 'payments: one default bank account per customer, kept by a unique index',
    sql: `CREATE TABLE bank_accounts_new (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  account_id TEXT NOT NULL,
  customer_id TEXT,
  verification_status TEXT NOT NULL,
  is_default INTEGER NOT NULL DEFAULT 0,
  data TEXT NOT NULL
);
INSERT INTO bank_accounts_new (seq, id, account_id, customer_id, verification_status, data)
  SELECT seq, id, account_id, customer_id, verification_status, data FROM bank_accounts ORDER BY seq;
DROP TABLE bank_accounts;
ALTER TABLE bank_accounts_new RENAME TO bank_accounts;
CREATE INDEX bank_accounts_account_seq ON bank_accounts (account_id, seq);
CREATE INDEX bank_accounts_customer_id ON bank_accounts (account_id, customer_id, seq) WHERE customer_id IS NOT NULL;
CREATE INDEX bank_accounts_verification_status ON bank_accounts (account_id, verification_status, seq);
UPDATE bank_accounts SET data = json_set(data, '$.is_default', json('false')) WHERE json_extract(data, '$.is_default') = 1 AND EXISTS (SELECT 1 FROM bank_accounts n WHERE n.account_id = bank_accounts.account_id AND n.customer_id = bank_accounts.customer_id AND n.seq > bank_accounts.seq AND json_extract(n.data, '$.is_default') = 1);
UPDATE bank_accounts SET is_default = 1 WHERE json_extract(data, '$.is_default') = 1;
CREATE UNIQUE INDEX bank_accounts_default ON bank_accounts (account_id, customer_id) WHERE is_default = 1;`,
    postgres: `ALTER TABLE bank_accounts ADD COLUMN is_default bigint NOT NULL DEFAULT 0;
UPDATE bank_accounts b SET data = jsonb_set(b.data::jsonb, '{is_default}', 'false')::text WHERE (b.data::jsonb ->> 'is_default') = 'true' AND EXISTS (SELECT 1 FROM bank_accounts n WHERE n.account_id = b.account_id AND n.customer_id = b.customer_id AND n.seq > b.seq AND (n.data::jsonb ->> 'is_default') = 'true');
UPDATE bank_accounts SET is_default = 1 WHERE (data::jsonb ->> 'is_default') = 'true';
CREATE UNIQUE INDEX bank_accounts_default ON bank_accounts (account_id, customer_id) WHERE is_default = 1;`,
  },
  {
    // Several server processes on one database (PostgreSQL) dispatch webhooks together: each endpoint is served by
    // one process at a time (one attempt in flight per endpoint, in event order), the one that claimed it last, as
    // long as that process is alive — it beats (seen_ms, on the database's clock) while its dispatcher runs, and an
    // endpoint whose process stopped beating (and was not claimed in the last lease either: claimed_ms) is taken
    // over. SQLite's single server needs neither table.
    version: 907,
    name: 'webhooks: which server process dispatches each endpoint, and whether it is alive',
    sql: `
CREATE TABLE webhook_dispatchers (
  id TEXT PRIMARY KEY,
  seen_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE webhook_endpoint_claims (
  webhook_endpoint TEXT PRIMARY KEY,
  dispatcher TEXT,
  claimed_ms INTEGER
) WITHOUT ROWID;
`,
    postgres: `
CREATE TABLE webhook_dispatchers (
  id text PRIMARY KEY,
  seen_ms bigint NOT NULL
);
CREATE TABLE webhook_endpoint_claims (
  webhook_endpoint text PRIMARY KEY,
  dispatcher text,
  claimed_ms bigint
);
-- Every endpoint has its claim row from its creation (openCursor), free until a dispatcher takes it.
INSERT INTO webhook_endpoint_claims (webhook_endpoint) SELECT webhook_endpoint FROM webhook_cursors;
`,
  },
  {
    // Work that runs once and may not run again (due work's steps, the dispatcher's scans: Store.alone) takes turns
    // across the server processes of one database (PostgreSQL): each such transaction first locks this table, before
    // its snapshot is taken, so that it sees what the previous one committed and the two never abort each other.
    // SQLite has one writer at a time and never locks it. It holds no rows.
    version: 909,
    name: 'store: the table work that runs once takes turns on',
    sql: `CREATE TABLE serial_work (id TEXT PRIMARY KEY) WITHOUT ROWID;`,
    postgres: `CREATE TABLE serial_work (id text PRIMARY KEY);`,
  },
  {
    // The server processes of one database (PostgreSQL) share the fault rules added over the API (each rule's counts
    // used up once across them) and the request log behind `GET /request-log` (every process's requests, numbered per
    // account in request_log_seqs). A server on SQLite is alone on its data directory and keeps both in memory: it
    // never writes these tables.
    version: 910,
    name: 'http: fault rules and the request log, shared by the processes of one database',
    sql: `
CREATE TABLE fault_rules (
  seq INTEGER PRIMARY KEY,
  account_id TEXT NOT NULL,
  target TEXT NOT NULL,
  method TEXT NOT NULL,
  path TEXT,
  endpoint TEXT,
  fault TEXT NOT NULL,
  rate REAL NOT NULL,
  count INTEGER,
  matched INTEGER NOT NULL DEFAULT 0,
  injected INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX fault_rules_account ON fault_rules (account_id, seq);
CREATE TABLE request_log (
  account_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  entry TEXT NOT NULL,
  PRIMARY KEY (account_id, seq)
) WITHOUT ROWID;
CREATE TABLE request_log_seqs (
  account_id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL
) WITHOUT ROWID;
`,
    postgres: `
CREATE TABLE fault_rules (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id text NOT NULL,
  target text NOT NULL,
  method text NOT NULL,
  path text,
  endpoint text,
  fault text NOT NULL,
  rate double precision NOT NULL,
  count bigint,
  matched bigint NOT NULL DEFAULT 0,
  injected bigint NOT NULL DEFAULT 0
);
CREATE INDEX fault_rules_account ON fault_rules (account_id, seq);
CREATE TABLE request_log (
  account_id text NOT NULL,
  seq bigint NOT NULL,
  entry text NOT NULL,
  PRIMARY KEY (account_id, seq)
);
CREATE TABLE request_log_seqs (
  account_id text PRIMARY KEY,
  seq bigint NOT NULL
);
`,
  },
];

/** All migrations; each area keeps its own in store/migrations/<area>.ts, in its own version range. */
export const migrations: Migration[] = [
  ...coreMigrations,
  ...paymentsMigrations,
  ...billingMigrations,
  ...ledgerMigrations,
  ...identityMigrations,
  ...eventsMigrations,
  ...storeMigrations,
];
