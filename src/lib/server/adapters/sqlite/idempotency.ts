// The idempotency records (http/idempotency.ts) in SQLite: table idempotency_keys, one row per (account, key),
// numbered by `seq` in the order the rows were created.
import type { IdempotencyRecord, IdempotencyRecords } from '../../http/idempotency.js';
import type { SqliteDatabase } from './db.js';

export function sqliteIdempotencyRecords(store: SqliteDatabase): IdempotencyRecords {
  const db = store.db;
  const find = db.prepare(
    'SELECT fingerprint, state, status, body, created_ms FROM idempotency_keys WHERE account_id = ? AND key = ?',
  );
  const insert = db.prepare(
    `INSERT INTO idempotency_keys (account_id, key, fingerprint, state, owner, status, body, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, state = excluded.state, owner = excluded.owner,
         status = excluded.status, body = excluded.body, created_ms = excluded.created_ms`,
  );
  const remove = db.prepare('DELETE FROM idempotency_keys WHERE account_id = ? AND key = ?');
  const purge = db.prepare('DELETE FROM idempotency_keys WHERE seq <= ?');
  const oldest = db.prepare('SELECT seq, created_ms FROM idempotency_keys ORDER BY seq LIMIT ?');
  return {
    async find(accountId, key) {
      return find.get(accountId, key) as IdempotencyRecord | undefined;
    },
    async save(accountId, key, r) {
      insert.run(accountId, key, r.fingerprint, r.state, r.owner, r.status, r.body, r.created_ms);
    },
    async forget(accountId, key) {
      remove.run(accountId, key);
    },
    async oldest(limit) {
      return oldest.all(limit) as { seq: number; created_ms: number }[];
    },
    async forgetUpTo(seq) {
      return purge.run(seq).changes;
    },
  };
}
