// The idempotency records (http/idempotency.ts) in PostgreSQL: table idempotency_keys, one row per (account, key)
// (its unique index), numbered by `seq` in insertion order.
//
// One effect per key across processes: `find` and `save` run in one REPEATABLE READ transaction. Of two requests with
// one key, both may find nothing; the second's INSERT … ON CONFLICT waits on the unique index and is aborted (40001)
// once the first commits; run again, it finds the first's record (replay or 409). A record is never written over
// by a request that did not see it. Saved responses (a Buffer) are kept in the text column as 'b64:' + base64 (no
// JSON or sealed text starts so).
import type { IdempotencyRecord, IdempotencyRecords } from '../../http/idempotency.js';
import type { PostgresDatabase } from './db.js';
import { pgQuery } from './query.js';

const FIND =
  'SELECT fingerprint, state, status, body, created_ms FROM idempotency_keys WHERE account_id = $1 AND key = $2';
const SAVE = `INSERT INTO idempotency_keys (account_id, key, fingerprint, state, owner, status, body, created_ms)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
  ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, state = excluded.state,
    owner = excluded.owner, status = excluded.status, body = excluded.body, created_ms = excluded.created_ms`;
const FORGET = 'DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2';
const OLDEST = 'SELECT seq, created_ms FROM idempotency_keys ORDER BY seq LIMIT $1';
// Rows another process's purge holds are passed over (it is deleting them): two purges never wait on each other.
const PURGE =
  'DELETE FROM idempotency_keys WHERE seq IN (SELECT seq FROM idempotency_keys WHERE seq <= $1 FOR UPDATE SKIP LOCKED)';

const BYTES = 'b64:';

const toText = (body: Buffer | string | null): string | null =>
  body === null || typeof body === 'string' ? body : BYTES + body.toString('base64');

const fromText = (body: string | null): Buffer | string | null =>
  body !== null && body.startsWith(BYTES) ? Buffer.from(body.slice(BYTES.length), 'base64') : body;

export function pgIdempotencyRecords(store: PostgresDatabase): IdempotencyRecords {
  return {
    async find(accountId, key) {
      const rows = await pgQuery<Omit<IdempotencyRecord, 'body'> & { body: string | null }>(store.current(), FIND, [
        accountId,
        key,
      ]);
      const row = rows[0];
      if (!row) return undefined;
      return {
        fingerprint: row.fingerprint,
        state: row.state,
        status: row.status,
        body: fromText(row.body),
        created_ms: row.created_ms,
      };
    },
    async save(accountId, key, r) {
      const args = [accountId, key, r.fingerprint, r.state, r.owner, r.status, toText(r.body), r.created_ms];
      await store.send((q) => pgQuery(q, SAVE, args));
    },
    async forget(accountId, key) {
      await pgQuery(store.current(), FORGET, [accountId, key]);
    },
    async oldest(limit) {
      return pgQuery<{ seq: number; created_ms: number }>(store.current(), OLDEST, [limit]);
    },
    async forgetUpTo(seq) {
      return (await pgQuery(store.current(), PURGE, [seq])).count;
    },
  };
}
