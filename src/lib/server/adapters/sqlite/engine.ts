// The SQLite engine (adapters/engine.ts): one database file per data directory (WAL), snapshots made by SQLite itself
// (snapshots.ts: VACUUM INTO, from a read transaction of its own), an in-memory database's bytes by
// serialize/deserialize, and the checkpointer and long-read worker threads of a long-running server.
import type { Engine, ServerRecords } from '../engine.js';
import { Accounts } from '../../domain/accounts.js';
import { openSqliteDatabase, serializeSqliteDatabase, type SqliteDatabase } from './db.js';
import { sqliteIdempotencyRecords } from './idempotency.js';
import { sqlitePorts } from './ports.js';
import { sqliteAccountsStore } from './core.js';
import { sqliteSnapshots } from './snapshots.js';

export const sqliteEngine: Engine<SqliteDatabase> = {
  ...sqliteSnapshots,
  open: (source) =>
    openSqliteDatabase(source === null ? ':memory:' : typeof source === 'string' ? source : source.image),
  ports: sqlitePorts,
  accounts: (store, now) => new Accounts(store, sqliteAccountsStore(store), now),
  idempotency: sqliteIdempotencyRecords,
  records: sqliteServerRecords,
  image: serializeSqliteDatabase,
  background(store) {
    store.readInBackground();
    return {
      started: store.checkpointInBackground(),
      async stop() {
        await store.stopBackgroundReads();
        await store.stopBackgroundCheckpoints();
      },
    };
  },
};

/** The server's own records: table meta (key, value). */
function sqliteServerRecords(store: SqliteDatabase): ServerRecords {
  const value = store.db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
  const get = (key: string) => (value.get(key) as string | null | undefined) ?? undefined;
  const change = (key: string, v: string) => {
    store.statement('UPDATE meta SET value = ? WHERE key = ?').run(v, key);
  };
  return {
    get: async (key) => get(key),
    has: async (key) => store.statement('SELECT 1 FROM meta WHERE key = ?').get(key) !== undefined,
    async put(key, v) {
      store.statement('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(key, v);
    },
    async add(key, v) {
      store.statement('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)').run(key, v);
    },
    change: async (key, v) => change(key, v),
    hasAccounts: async () => store.statement('SELECT 1 FROM accounts LIMIT 1').get() !== undefined,
    exclusive: (fn) => store.alone(fn),
    cell: (key) => ({ get: () => get(key), change: (v) => change(key, v) }),
  };
}
