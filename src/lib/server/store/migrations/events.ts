// Migrations of the events area (events, webhook endpoints, deliveries). Versions 500–599. Released migrations
// are literal SQL and never change (test/store/migrations.test.ts checks each version's SHA-256).
import type { Migration } from './migration.js';

export const eventsMigrations: Migration[] = [
  {
    version: 500,
    name: 'events: the event log',
    sql: `
CREATE TABLE events (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  account_id TEXT NOT NULL,
  type TEXT NOT NULL,
  object_id TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX events_account_seq ON events (account_id, seq);
CREATE INDEX events_object ON events (account_id, object_id, seq);
`,
    postgres: `
CREATE TABLE events (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text NOT NULL UNIQUE,
  account_id text NOT NULL,
  type text NOT NULL,
  object_id text NOT NULL,
  created_ms bigint NOT NULL,
  body text NOT NULL
);
CREATE INDEX events_account_seq ON events (account_id, seq);
CREATE INDEX events_object ON events (account_id, object_id, seq);
`,
  },
  {
    version: 501,
    name: 'webhooks: endpoints, deliveries, dispatch cursors',
    sql: `
CREATE TABLE webhook_endpoints (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  account_id TEXT NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX webhook_endpoints_account_seq ON webhook_endpoints (account_id, seq);
INSERT INTO count_specs (tbl, cols) VALUES ('webhook_endpoints', '');
CREATE TRIGGER webhook_endpoints_count_insert AFTER INSERT ON webhook_endpoints BEGIN
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'webhook_endpoints', NEW.account_id, '', '', 0;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'webhook_endpoints' AND account_id = NEW.account_id AND cols = '' AND vals = '';
END;
CREATE TRIGGER webhook_endpoints_count_delete AFTER DELETE ON webhook_endpoints BEGIN
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'webhook_endpoints' AND account_id = OLD.account_id AND cols = '' AND vals = '';
END;
CREATE TABLE webhook_deliveries (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  account_id TEXT NOT NULL,
  event TEXT NOT NULL,
  webhook_endpoint TEXT NOT NULL,
  status TEXT NOT NULL,
  next_attempt_ms INTEGER,
  data TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_account_seq ON webhook_deliveries (account_id, seq);
CREATE INDEX IF NOT EXISTS webhook_deliveries_event ON webhook_deliveries (account_id, event, seq);
CREATE INDEX IF NOT EXISTS webhook_deliveries_webhook_endpoint ON webhook_deliveries (account_id, webhook_endpoint, seq);
CREATE INDEX IF NOT EXISTS webhook_deliveries_webhook_endpoint_status ON webhook_deliveries (account_id, webhook_endpoint, status, seq);
INSERT INTO count_specs (tbl, cols) VALUES ('webhook_deliveries', '');
INSERT INTO count_specs (tbl, cols) VALUES ('webhook_deliveries', 'event');
INSERT INTO count_specs (tbl, cols) VALUES ('webhook_deliveries', 'webhook_endpoint');
INSERT INTO count_specs (tbl, cols) VALUES ('webhook_deliveries', 'status,webhook_endpoint');
CREATE TRIGGER webhook_deliveries_count_insert AFTER INSERT ON webhook_deliveries BEGIN
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'webhook_deliveries', NEW.account_id, '', '', 0;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'webhook_deliveries' AND account_id = NEW.account_id AND cols = '' AND vals = '';
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'webhook_deliveries', NEW.account_id, 'event', COALESCE(CAST(NEW.event AS TEXT), char(0)), 0;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'webhook_deliveries' AND account_id = NEW.account_id AND cols = 'event' AND vals = COALESCE(CAST(NEW.event AS TEXT), char(0));
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'webhook_deliveries', NEW.account_id, 'webhook_endpoint', COALESCE(CAST(NEW.webhook_endpoint AS TEXT), char(0)), 0;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'webhook_deliveries' AND account_id = NEW.account_id AND cols = 'webhook_endpoint' AND vals = COALESCE(CAST(NEW.webhook_endpoint AS TEXT), char(0));
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'webhook_deliveries', NEW.account_id, 'status,webhook_endpoint', COALESCE(CAST(NEW.status AS TEXT), char(0)) || char(31) || COALESCE(CAST(NEW.webhook_endpoint AS TEXT), char(0)), 0;
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'webhook_deliveries' AND account_id = NEW.account_id AND cols = 'status,webhook_endpoint' AND vals = COALESCE(CAST(NEW.status AS TEXT), char(0)) || char(31) || COALESCE(CAST(NEW.webhook_endpoint AS TEXT), char(0));
END;
CREATE TRIGGER webhook_deliveries_count_delete AFTER DELETE ON webhook_deliveries BEGIN
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'webhook_deliveries' AND account_id = OLD.account_id AND cols = '' AND vals = '';
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'webhook_deliveries' AND account_id = OLD.account_id AND cols = 'event' AND vals = COALESCE(CAST(OLD.event AS TEXT), char(0));
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'webhook_deliveries' AND account_id = OLD.account_id AND cols = 'webhook_endpoint' AND vals = COALESCE(CAST(OLD.webhook_endpoint AS TEXT), char(0));
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'webhook_deliveries' AND account_id = OLD.account_id AND cols = 'status,webhook_endpoint' AND vals = COALESCE(CAST(OLD.status AS TEXT), char(0)) || char(31) || COALESCE(CAST(OLD.webhook_endpoint AS TEXT), char(0));
END;
CREATE TRIGGER webhook_deliveries_count_update AFTER UPDATE OF event, webhook_endpoint, status ON webhook_deliveries BEGIN
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'webhook_deliveries' AND account_id = OLD.account_id AND cols = 'event' AND vals = COALESCE(CAST(OLD.event AS TEXT), char(0)) AND (COALESCE(CAST(OLD.event AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.event AS TEXT), char(0)));
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'webhook_deliveries', NEW.account_id, 'event', COALESCE(CAST(NEW.event AS TEXT), char(0)), 0 WHERE (COALESCE(CAST(OLD.event AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.event AS TEXT), char(0)));
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'webhook_deliveries' AND account_id = NEW.account_id AND cols = 'event' AND vals = COALESCE(CAST(NEW.event AS TEXT), char(0)) AND (COALESCE(CAST(OLD.event AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.event AS TEXT), char(0)));
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'webhook_deliveries' AND account_id = OLD.account_id AND cols = 'webhook_endpoint' AND vals = COALESCE(CAST(OLD.webhook_endpoint AS TEXT), char(0)) AND (COALESCE(CAST(OLD.webhook_endpoint AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.webhook_endpoint AS TEXT), char(0)));
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'webhook_deliveries', NEW.account_id, 'webhook_endpoint', COALESCE(CAST(NEW.webhook_endpoint AS TEXT), char(0)), 0 WHERE (COALESCE(CAST(OLD.webhook_endpoint AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.webhook_endpoint AS TEXT), char(0)));
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'webhook_deliveries' AND account_id = NEW.account_id AND cols = 'webhook_endpoint' AND vals = COALESCE(CAST(NEW.webhook_endpoint AS TEXT), char(0)) AND (COALESCE(CAST(OLD.webhook_endpoint AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.webhook_endpoint AS TEXT), char(0)));
  UPDATE list_counts SET n = n - 1 WHERE tbl = 'webhook_deliveries' AND account_id = OLD.account_id AND cols = 'status,webhook_endpoint' AND vals = COALESCE(CAST(OLD.status AS TEXT), char(0)) || char(31) || COALESCE(CAST(OLD.webhook_endpoint AS TEXT), char(0)) AND (COALESCE(CAST(OLD.status AS TEXT), char(0)) || char(31) || COALESCE(CAST(OLD.webhook_endpoint AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.status AS TEXT), char(0)) || char(31) || COALESCE(CAST(NEW.webhook_endpoint AS TEXT), char(0)));
  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'webhook_deliveries', NEW.account_id, 'status,webhook_endpoint', COALESCE(CAST(NEW.status AS TEXT), char(0)) || char(31) || COALESCE(CAST(NEW.webhook_endpoint AS TEXT), char(0)), 0 WHERE (COALESCE(CAST(OLD.status AS TEXT), char(0)) || char(31) || COALESCE(CAST(OLD.webhook_endpoint AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.status AS TEXT), char(0)) || char(31) || COALESCE(CAST(NEW.webhook_endpoint AS TEXT), char(0)));
  UPDATE list_counts SET n = n + 1 WHERE tbl = 'webhook_deliveries' AND account_id = NEW.account_id AND cols = 'status,webhook_endpoint' AND vals = COALESCE(CAST(NEW.status AS TEXT), char(0)) || char(31) || COALESCE(CAST(NEW.webhook_endpoint AS TEXT), char(0)) AND (COALESCE(CAST(OLD.status AS TEXT), char(0)) || char(31) || COALESCE(CAST(OLD.webhook_endpoint AS TEXT), char(0))) IS NOT (COALESCE(CAST(NEW.status AS TEXT), char(0)) || char(31) || COALESCE(CAST(NEW.webhook_endpoint AS TEXT), char(0)));
END;
-- The dispatcher's queue: pending deliveries of an endpoint by when they are next due.
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_endpoint, next_attempt_ms) WHERE status = 'pending';
-- Per endpoint, the last event (events.seq) the dispatcher has looked at: nothing is lost or sent again wholesale
-- across a restart, and events another process wrote are found by the next poll.
CREATE TABLE webhook_cursors (
  webhook_endpoint TEXT PRIMARY KEY,
  event_seq INTEGER NOT NULL
) WITHOUT ROWID;
`,
    postgres: `-- PostgreSQL: without the count triggers (version 902 gives the counts to the store; no PostgreSQL database
-- was ever at a version before it).
CREATE TABLE webhook_endpoints (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text NOT NULL UNIQUE,
  account_id text NOT NULL,
  data text NOT NULL
);
CREATE INDEX webhook_endpoints_account_seq ON webhook_endpoints (account_id, seq);
INSERT INTO count_specs (tbl, cols) VALUES ('webhook_endpoints', '');
CREATE TABLE webhook_deliveries (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text NOT NULL UNIQUE,
  account_id text NOT NULL,
  event text NOT NULL,
  webhook_endpoint text NOT NULL,
  status text NOT NULL,
  next_attempt_ms bigint,
  data text NOT NULL
);
CREATE INDEX webhook_deliveries_account_seq ON webhook_deliveries (account_id, seq);
CREATE INDEX IF NOT EXISTS webhook_deliveries_event ON webhook_deliveries (account_id, event, seq);
CREATE INDEX IF NOT EXISTS webhook_deliveries_webhook_endpoint ON webhook_deliveries (account_id, webhook_endpoint, seq);
CREATE INDEX IF NOT EXISTS webhook_deliveries_webhook_endpoint_status ON webhook_deliveries (account_id, webhook_endpoint, status, seq);
INSERT INTO count_specs (tbl, cols) VALUES ('webhook_deliveries', '');
INSERT INTO count_specs (tbl, cols) VALUES ('webhook_deliveries', 'event');
INSERT INTO count_specs (tbl, cols) VALUES ('webhook_deliveries', 'webhook_endpoint');
INSERT INTO count_specs (tbl, cols) VALUES ('webhook_deliveries', 'status,webhook_endpoint');
-- The dispatcher's queue: pending deliveries of an endpoint by when they are next due.
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_endpoint, next_attempt_ms) WHERE status = 'pending';
-- Per endpoint, the last event (events.seq) the dispatcher has looked at: nothing is lost or sent again wholesale
-- across a restart, and events another process wrote are found by the next poll.
CREATE TABLE webhook_cursors (
  webhook_endpoint text PRIMARY KEY,
  event_seq bigint NOT NULL
);
`,
  },
  {
    version: 502,
    name: 'webhooks: the delivery log by age, without the pending deliveries (retention)',
    sql: `
-- Retention deletes an account's oldest deliveries that are no longer pending: found through this index without
-- reading past pending ones (a failing endpoint's backlog, a disabled endpoint's waiting deliveries).
CREATE INDEX webhook_deliveries_done ON webhook_deliveries (account_id, seq) WHERE status != 'pending';
`,
  },
  {
    // GET /events' total_count, and whether a type filter can match at all, from kept counts (Events.record and
    // retention keep them through Store.count) instead of a COUNT over the account's whole log on every list.
    version: 503,
    name: 'events: counts per account and per type',
    sql: `INSERT INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'events', account_id, '', '', COUNT(*) FROM events GROUP BY account_id;
INSERT INTO list_counts (tbl, account_id, cols, vals, n) SELECT 'events', account_id, 'type', type, COUNT(*) FROM events GROUP BY account_id, type;`,
  },
  {
    // Event numbers are never used twice (AUTOINCREMENT): without it, retention's deletion of the highest-numbered
    // events let SQLite give their numbers again, below the webhook endpoints' cursors, which skipped them; a
    // cursor past the newest event is such a case and starts over. The body of an event that leaves the log while a
    // delivery of it is pending is kept for it (webhook_event_bodies) until no pending delivery needs it.
    version: 504,
    name: 'webhooks: event numbers never reused; bodies kept for pending deliveries past retention',
    sql: `
UPDATE webhook_cursors SET event_seq = 0 WHERE event_seq > (SELECT COALESCE(MAX(seq), 0) FROM events);
CREATE TABLE events_numbered (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  account_id TEXT NOT NULL,
  type TEXT NOT NULL,
  object_id TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  body TEXT NOT NULL
);
INSERT INTO events_numbered (seq, id, account_id, type, object_id, created_ms, body) SELECT seq, id, account_id, type, object_id, created_ms, body FROM events ORDER BY seq;
DROP TABLE events;
ALTER TABLE events_numbered RENAME TO events;
CREATE INDEX events_account_seq ON events (account_id, seq);
CREATE INDEX events_object ON events (account_id, object_id, seq);
CREATE TABLE webhook_event_bodies (
  event TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  body TEXT NOT NULL
) WITHOUT ROWID;
`,
    postgres: `
-- PostgreSQL: events.seq is an identity column since version 500, and a sequence never gives a number twice:
-- only the cursors past the newest event start over, and the kept bodies get their table.
UPDATE webhook_cursors SET event_seq = 0 WHERE event_seq > (SELECT COALESCE(MAX(seq), 0) FROM events);
CREATE TABLE webhook_event_bodies (
  event text PRIMARY KEY,
  account_id text NOT NULL,
  body text NOT NULL
);
`,
  },
  {
    // POST /events/{id}/resend reaches the running `payorch listen`s of the account too (docs/api.md "Resends to
    // listeners"): each listener holds a lease it renews while it runs, and a resend queues one row per listener
    // whose lease is live; the listener lists its own queue.
    version: 505,
    name: 'events: listeners and the resends queued for them',
    sql: `
-- A running listener: seen_ms (the server's wall clock) is its last renewal; created_ms is on the account's clock;
-- enabled_events (a JSON array of types and patterns) are the events it shows.
CREATE TABLE event_listeners (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  account_id TEXT NOT NULL,
  enabled_events TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  seen_ms INTEGER NOT NULL
);
CREATE INDEX event_listeners_account_seen ON event_listeners (account_id, seen_ms);
-- One row per (resend, listener it was queued for); created_ms on the account's clock (retention: 30 days).
CREATE TABLE event_resends (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  account_id TEXT NOT NULL,
  listener TEXT NOT NULL,
  event TEXT NOT NULL,
  created_ms INTEGER NOT NULL
);
CREATE INDEX event_resends_listener ON event_resends (listener, seq);
CREATE INDEX event_resends_account_seq ON event_resends (account_id, seq);
`,
    postgres: `
-- A running listener: seen_ms (the server's wall clock) is its last renewal; created_ms is on the account's clock;
-- enabled_events (a JSON array of types and patterns) are the events it shows.
CREATE TABLE event_listeners (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text NOT NULL UNIQUE,
  account_id text NOT NULL,
  enabled_events text NOT NULL,
  created_ms bigint NOT NULL,
  seen_ms bigint NOT NULL
);
CREATE INDEX event_listeners_account_seen ON event_listeners (account_id, seen_ms);
-- One row per (resend, listener it was queued for); created_ms on the account's clock (retention: 30 days).
CREATE TABLE event_resends (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text NOT NULL UNIQUE,
  account_id text NOT NULL,
  listener text NOT NULL,
  event text NOT NULL,
  created_ms bigint NOT NULL
);
CREATE INDEX event_resends_listener ON event_resends (listener, seq);
CREATE INDEX event_resends_account_seq ON event_resends (account_id, seq);
`,
  },
];
