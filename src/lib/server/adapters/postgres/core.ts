// The core's persistence in PostgreSQL: accounts and their API keys, the accounts' clocks, payment sessions, and what a
// test trigger reads back of the event log — the same answers as adapters/sqlite/core.ts, with PostgreSQL's SQL.
import { randomInt } from 'node:crypto';
import type { AccountsPort, KeyFacts, KeyRow } from '../../domain/accounts.js';
import type { ClockPort } from '../../clock.js';
import type { SecretFacts, SessionsPort, StoredSession } from '../../domain/sessions.js';
import type { TriggerPort } from '../../domain/events.js';
import type { Event } from '../../../contract/events.js';
import type { Owned } from '../../store/seam.js';
import { tables } from '../../store/tables.js';
import type { PostgresDatabase } from './db.js';
import { pgDocuments, pgUpdateAll } from './documents.js';
import { pgQuery, type Value } from './query.js';

/**
 * The meta record whose value moves whenever state every process keeps in memory changes, by any process: a key
 * revoked or un-revoked, a clock advanced, processors marked, a fault rule added or deleted, a restore
 * (AccountsPort.changeMark). Written in the transaction that makes the change, so that it moves exactly when the
 * change becomes visible (a mark moved before the COMMIT would let another process cache the value it is about to
 * lose, and never look again). Each process looks at it once per event-loop turn (store/changes.ts).
 *
 * A key added does not move it: a new key cannot make a cached one wrong, and every account made would otherwise
 * write this one row (two at once: a conflict). Its value is random, not a count, so a restore that copies the
 * record back cannot bring a mark some process already saw with other state. Its key is its first use's name.
 */
export const CHANGE_MARK = 'api_keys_mark';

const BUMP_MARK =
  'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value';

/** Moves the change mark, in the caller's transaction (a restore must call it: it replaced what every process keeps). */
export async function moveChangeMark(store: PostgresDatabase): Promise<void> {
  await pgQuery(store.current(), BUMP_MARK, [CHANGE_MARK, String(randomInt(1, 2 ** 47))]);
}

const KEY_COLUMNS = 'id, account_id, last4, created_ms, revoked_ms';

export function pgAccountsStore(store: PostgresDatabase): AccountsPort {
  return {
    async keyFacts(hash) {
      const rows = await pgQuery<KeyFacts>(
        store.current(),
        'SELECT id, account_id, revoked_ms FROM api_keys WHERE hash = $1',
        [hash],
      );
      return rows[0];
    },
    // One primary-key read, outside any transaction on the pool: it sees what every process has committed.
    async changeMark() {
      const rows = await pgQuery<{ value: string }>(store.current(), 'SELECT value FROM meta WHERE key = $1', [
        CHANGE_MARK,
      ]);
      return rows.length ? Number(rows[0]!.value) : 0;
    },
    async addAccount(accountId, createdMs) {
      await pgQuery(store.current(), 'INSERT INTO accounts (id, created_ms) VALUES ($1, $2)', [accountId, createdMs]);
    },
    async keepAccount(accountId, createdMs) {
      await pgQuery(store.current(), 'INSERT INTO accounts (id, created_ms) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
        accountId,
        createdMs,
      ]);
    },
    async addKey(key, hash) {
      await pgQuery(
        store.current(),
        'INSERT INTO api_keys (id, account_id, hash, last4, created_ms) VALUES ($1, $2, $3, $4, $5)',
        [key.id, key.account_id, hash, key.last4, key.created_ms],
      );
    },
    async keyAccount(hash) {
      const rows = await pgQuery<{ account_id: string }>(
        store.current(),
        'SELECT account_id FROM api_keys WHERE hash = $1',
        [hash],
      );
      return rows[0]?.account_id;
    },
    async unrevokeKey(hash) {
      // The mark moves only when a key was revoked (every server start un-revokes its default key).
      const r = await pgQuery(
        store.current(),
        'UPDATE api_keys SET revoked_ms = NULL WHERE hash = $1 AND revoked_ms IS NOT NULL',
        [hash],
      );
      if (r.count > 0) await moveChangeMark(store);
    },
    keys: async () =>
      pgQuery<KeyRow>(store.current(), `SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_ms, id COLLATE "C"`),
    async keyByHash(hash) {
      return (await pgQuery<KeyRow>(store.current(), `SELECT ${KEY_COLUMNS} FROM api_keys WHERE hash = $1`, [hash]))[0];
    },
    async keyById(id) {
      return (await pgQuery<KeyRow>(store.current(), `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]))[0];
    },
    async revokeKey(id, revokedMs) {
      const r = await pgQuery(
        store.current(),
        'UPDATE api_keys SET revoked_ms = $1 WHERE id = $2 AND revoked_ms IS DISTINCT FROM $1',
        [revokedMs, id],
      );
      if (r.count > 0) await moveChangeMark(store);
    },
  };
}

export function pgClockStore(store: PostgresDatabase): ClockPort {
  return {
    async offset(accountId) {
      const rows = await pgQuery<{ clock_offset_ms: number }>(
        store.current(),
        'SELECT clock_offset_ms FROM accounts WHERE id = $1',
        [accountId],
      );
      return rows[0]?.clock_offset_ms;
    },
    offsets: async () =>
      (
        await pgQuery<{ id: string; clock_offset_ms: number }>(
          store.current(),
          'SELECT id, clock_offset_ms FROM accounts WHERE clock_offset_ms != 0 ORDER BY id COLLATE "C"',
        )
      ).map((r): [string, number] => [r.id, r.clock_offset_ms]),
    async setOffset(accountId, offsetMs) {
      await pgQuery(store.current(), 'UPDATE accounts SET clock_offset_ms = $1 WHERE id = $2', [offsetMs, accountId]);
      await moveChangeMark(store);
    },
    // In the order of their ids, as SQLite answers (it reads them from the primary key's index).
    accounts: async () =>
      (await pgQuery<{ id: string }>(store.current(), 'SELECT id FROM accounts ORDER BY id COLLATE "C"')).map(
        (r) => r.id,
      ),
  };
}

/**
 * What client-secret authentication reads of a session: the row's columns, and its form read from the document here
 * (a cast to jsonb would fail on a document that holds U+0000 or a lone surrogate in any field: db.ts).
 */
const SECRET_FACTS = 'SELECT account_id, expires_ms, secret_hash, data FROM payment_sessions WHERE id = $1';

const owned = (rows: { account_id: string; data: string }[]): Owned<StoredSession>[] =>
  rows.map((r) => ({ accountId: r.account_id, doc: JSON.parse(r.data) as StoredSession }));

export function pgSessionsStore(store: PostgresDatabase): SessionsPort {
  return {
    sessions: pgDocuments<StoredSession>(store, tables.payment_sessions),
    async secretFacts(id) {
      const row = (await pgQuery<Omit<SecretFacts, 'form'> & { data: string }>(store.current(), SECRET_FACTS, [id]))[0];
      if (!row) return undefined;
      const { data, ...facts } = row;
      return {
        ...facts,
        form: (JSON.parse(data) as { secret_form?: SecretFacts['form'] }).secret_form ?? null,
      } as SecretFacts;
    },
    async find(id) {
      const rows = await pgQuery<{ account_id: string; data: string }>(
        store.current(),
        'SELECT account_id, data FROM payment_sessions WHERE id = $1 ORDER BY seq',
        [id],
      );
      return owned(rows)[0];
    },
    async nextExpiry(accountId, statuses) {
      if (statuses.length === 0) return undefined;
      // Per status, the first of (account_id, status, expires_ms): a single seek. ORDER BY … LIMIT 1, not MIN: on a
      // table not yet analyzed (a sandbox's first minutes) the planner reads every row of the status for a MIN.
      const parts = statuses.map(
        (_, i) =>
          `SELECT (SELECT expires_ms FROM payment_sessions WHERE account_id = $1 AND status = $${i + 2} ORDER BY expires_ms LIMIT 1) AS t`,
      );
      const rows = await pgQuery<{ t: number | null }>(
        store.current(),
        `SELECT MIN(t) AS t FROM (${parts.join(' UNION ALL ')}) AS due`,
        [accountId, ...statuses],
      );
      return rows[0]?.t ?? undefined;
    },
    async expiring(statuses, now, accountId, limit) {
      if (statuses.length === 0) return [];
      const args: Value[] = [...statuses, now];
      const list = statuses.map((_, i) => `$${i + 1}`).join(', ');
      let cond = `status IN (${list}) AND expires_ms <= $${args.length}`;
      if (accountId !== undefined) {
        args.push(accountId);
        cond += ` AND account_id = $${args.length}`;
      }
      let tail = '';
      if (limit >= 0) {
        args.push(Math.trunc(limit));
        tail = ` LIMIT $${args.length}`;
      }
      // Due work claimed: the rows are locked as they are read, and those another process's transaction holds are
      // passed over (it is expiring them), so two processes never take the same session nor wait on each other.
      // Outside a write transaction (no lock to take) it is a plain read.
      const lock = store.inTransaction() ? ' FOR UPDATE SKIP LOCKED' : '';
      const rows = await pgQuery<{ account_id: string; data: string }>(
        store.current(),
        `SELECT account_id, data FROM payment_sessions WHERE ${cond} ORDER BY seq${tail}${lock}`,
        args,
      );
      return owned(rows);
    },
    async expiringInOrder(accountId, statuses, until, limit) {
      if (statuses.length === 0 || limit < 1) return [];
      // Per status, the first `limit` by (expires_ms, seq), claimed as `expiring` claims them; then merged. The index
      // (account_id, status, expires_ms) does not order ties by seq, so the rows are bounded first by the expiry time
      // of the status's `limit`-th (an index-only seek): without it the planner of a table not yet analyzed sorts
      // every row due (each with its document) for each set.
      const lock = store.inTransaction() ? ' FOR UPDATE SKIP LOCKED' : '';
      const n = Math.trunc(limit);
      const bound = `(SELECT expires_ms FROM payment_sessions WHERE account_id = $2 AND status = st.status AND expires_ms <= $3 ORDER BY expires_ms OFFSET $4 - 1 LIMIT 1)`;
      const rows = await pgQuery<{ data: string }>(
        store.current(),
        `SELECT d.data FROM unnest($1::text[]) AS st(status) CROSS JOIN LATERAL (SELECT data, expires_ms, seq FROM payment_sessions WHERE account_id = $2 AND status = st.status AND expires_ms <= LEAST($3, ${bound}) ORDER BY expires_ms, seq LIMIT $4${lock}) AS d ORDER BY d.expires_ms, d.seq LIMIT $4`,
        [statuses as unknown as Value, accountId, until, n],
      );
      return rows.map((r) => JSON.parse(r.data) as StoredSession);
    },
    updateAll: pgUpdateAll<StoredSession>(store, tables.payment_sessions),
  };
}

export function pgTriggerStore(store: PostgresDatabase): TriggerPort {
  return {
    // The mark is the event log's last seq in the transaction's snapshot: of the events after it, that snapshot
    // shows only the transaction's own (others' commit later, or are not in it), as SQLite's one writer guarantees.
    lastEvent: async () =>
      (await pgQuery<{ seq: number }>(store.current(), 'SELECT COALESCE(MAX(seq), 0) AS seq FROM events'))[0]!.seq,
    eventsAfter: async (accountId, after) =>
      (
        await pgQuery<{ body: string }>(
          store.current(),
          'SELECT body FROM events WHERE account_id = $1 AND seq > $2 ORDER BY seq',
          [accountId, after],
        )
      ).map((r) => JSON.parse(r.body) as Event),
  };
}
