// Migrations of the events area (events, webhook endpoints, deliveries). Versions 500–599. Released migrations
// are literal SQL and never change (test/foundation/migrations.test.ts checks each version's SHA-256).
import type { Migration } from '../migrations.js';

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
  },
];
