// The event log's persistence on PostgreSQL: the `events` table (migration 500), the same answers as SQLite's
// (adapters/sqlite/events.ts). Totals are an exact COUNT(*) (no kept counts on PostgreSQL yet).
//
// Order of commits. `seq` is an identity column: PostgreSQL hands the number out at INSERT, not at COMMIT. Left
// alone, of two transactions recording events of one account at once, the one with the lower number could commit
// last — and every reader that follows an account's log forward by number (a webhook endpoint's dispatch cursor,
// `payorch listen` paging with `ending_before`, the events a trigger reads after its mark) would already have read
// past it and never see it. So an append takes the account's log lock first, in the same statement: a
// transaction-level advisory lock on the account (`pg_advisory_xact_lock(EVENT_LOG_LOCK, hashtext(account))`), held
// until COMMIT or rollback. Two transactions appending to one account's log take turns from the first append to
// COMMIT: the second gets its number only after the first committed, so an account's events commit in the order of
// their numbers (the identity's sequence keeps PostgreSQL's default CACHE 1: numbers are handed out in time order
// across connections), and a cursor over one account never skips (every cursor that reads the log is per account: the
// dispatcher's are per endpoint and read the endpoint's account, listeners read their account's, a trigger reads its
// account's). Different accounts never wait on each other (apart from a hash collision, which only serializes more).
// Why a lock and not a counter row per account updated in the appending transaction: under REPEATABLE READ the
// second writer of that row is aborted (40001) once the first commits and its whole request runs again; the lock
// makes it wait instead, and nothing is re-run. Why not readers that stop below the oldest number in flight: a
// number in flight is not visible to other transactions (it would take pg_locks or a registry of writers), and a
// single number per cursor cannot describe "committed above, in flight below". The cost: transactions of one account
// that record events take turns for their COMMIT — short, as the append is the last statement before it (`last`).
import type { List } from '../../../contract/common.js';
import type { Event, ListEventsQuery } from '../../../contract/events.js';
import type { EventLogPort } from '../../domain/events.js';
import { createdBounds, keysetAsync } from '../../store/paging.js';
import type { PostgresDatabase } from './db.js';
import { JSON_TEXTS, jsonTexts, pgKeyset } from './documents.js';
import { bind, pgQuery, type Value } from './query.js';

/** The first key of the event log's advisory locks ('evts'); the second is the account's hashtext. */
export const EVENT_LOG_LOCK = 0x65767473;

/**
 * The FROM item that takes the account's log lock (parameter `$n` is the account id) before the statement's row is
 * made: an INSERT … SELECT … FROM it gets its `seq` only once the lock is held.
 */
export const accountLogLock = (n: number): string =>
  `(SELECT pg_advisory_xact_lock(${EVENT_LOG_LOCK}, hashtext($${n}::text))) AS account_log_lock`;

/** A type pattern (`[a-z_.*]`, ListEventsQuery) as a LIKE pattern: `*` any text, `_` itself. */
const likePattern = (type: string): string => type.replace(/_/g, '\\_').replace(/\*/g, '%');

export function pgEventLogStore(store: PostgresDatabase): EventLogPort {
  const appendSql = `INSERT INTO events (id, account_id, type, object_id, created_ms, body) SELECT $1::text, $2::text, $3::text, $4::text, $5::bigint, $6::text FROM ${accountLogLock(2)}`;

  const appendAllSql = `INSERT INTO events (id, account_id, type, object_id, created_ms, body) SELECT e.id, $1::text, e.type, e.object_id, e.created_ms, e.body FROM ${accountLogLock(1)}, unnest($2::text[], $3::text[], $4::text[], $5::bigint[], ${jsonTexts(6)}) WITH ORDINALITY AS e(id, type, object_id, created_ms, body, n) ORDER BY e.n`;

  return {
    async append(accountId, e) {
      const args = [e.id, accountId, e.type, e.objectId, e.createdMs, e.body];
      // Held to the end of the transaction (`last`): the account's log lock is the last lock it takes.
      await store.last('events', (q) => pgQuery(q, appendSql, args));
    },

    // One INSERT of every row, under the account's log lock as `append`, and held to the end as it is (`last`), so
    // that a transaction's appends keep their order; `seq` is handed out in the order of the rows.
    async appendAll(accountId, events) {
      if (events.length === 0) return;
      if (events.length === 1) {
        const e = events[0]!;
        const args = [e.id, accountId, e.type, e.objectId, e.createdMs, e.body];
        await store.last('events', (q) => pgQuery(q, appendSql, args));
        return;
      }
      const args = [
        accountId,
        events.map((e) => e.id),
        events.map((e) => e.type),
        events.map((e) => e.objectId),
        events.map((e) => e.createdMs),
        events.map((e) => e.body).join(JSON_TEXTS),
      ] as never[];
      await store.last('events', (q) => pgQuery(q, appendAllSql, args));
    },

    async find(accountId, id) {
      const rows = await pgQuery<{ body: string }>(
        store.current(),
        'SELECT body FROM events WHERE id = $1 AND account_id = $2',
        [id, accountId],
      );
      return rows.length ? (JSON.parse(rows[0]!.body) as Event) : undefined;
    },

    /**
     * As on SQLite: a filter on type or time without an object id reads through the account's whole log (no index
     * serves it), so that page is read away (`store.away`: its page and total from one snapshot, off the request's
     * transaction); the object's events (an index) and the newest of the whole log are read here.
     */
    async page(accountId, url, q: ListEventsQuery) {
      const cond = ['account_id = $1'];
      const args: Value[] = [accountId];
      const param = (v: Value) => bind(args, v);
      if (q.object_id !== undefined) cond.push(`object_id = ${param(q.object_id)}`);
      if (q.type !== undefined)
        cond.push(q.type.includes('*') ? `type LIKE ${param(likePattern(q.type))}` : `type = ${param(q.type)}`);
      const bounds = createdBounds(q);
      const timed = bounds.length > 0;
      for (const { op, ms } of bounds) cond.push(`created_ms ${op} ${param(ms)}::bigint`);
      const where = cond.join(' AND ');
      const read = async (): Promise<List<Event>> => {
        const h = store.current();
        const pageArgs = [...args];
        const { keyset: k, cond: after } = await pgKeyset(h, 'events', 'account_id', accountId, q, pageArgs, {
          cast: '::bigint',
        });
        const pageSql = `SELECT body FROM events WHERE ${where}${after} ORDER BY seq ${k.order} LIMIT ${bind(pageArgs, k.fetch)}`;
        const [rows, counted] = await Promise.all([
          pgQuery<{ body: string }>(h, pageSql, pageArgs),
          pgQuery<{ n: number }>(h, `SELECT COUNT(*) AS n FROM events WHERE ${where}`, args),
        ]);
        return k.list(rows, (r) => JSON.parse(r.body) as Event, counted[0]!.n, url);
      };
      if (q.object_id !== undefined || (q.type === undefined && !timed)) return read();
      // An unknown cursor is the request's 400 at once, as on SQLite (the page itself is read away).
      if (q.starting_after !== undefined || q.ending_before !== undefined) {
        // Only whether the cursor's event is there counts here, not its place.
        const known = async (id: string) => {
          const rows = await pgQuery(store.current(), 'SELECT 1 FROM events WHERE id = $1 AND account_id = $2', [
            id,
            accountId,
          ]);
          return rows.length ? 0 : undefined;
        };
        await keysetAsync(q, known);
      }
      return store.away(read);
    },

    async oldestMs(accountId) {
      const rows = await pgQuery<{ created_ms: number }>(
        store.current(),
        'SELECT created_ms FROM events WHERE account_id = $1 ORDER BY seq LIMIT 1',
        [accountId],
      );
      return rows[0]?.created_ms;
    },

    async accounts() {
      const rows = await pgQuery<{ account_id: string }>(store.current(), 'SELECT DISTINCT account_id FROM events');
      return rows.map((r) => r.account_id);
    },

    async lastRecordedBy(accountId, before, n) {
      const rows = await pgQuery<{ seq: number | null }>(
        store.current(),
        // LIMIT NULL is no limit (n = -1: all).
        'SELECT MAX(seq) AS seq FROM (SELECT seq FROM events WHERE account_id = $1 AND created_ms <= $2 ORDER BY seq LIMIT $3) AS first',
        n < 0 ? [accountId, before, null as unknown as number] : [accountId, before, n],
      );
      return rows[0]?.seq ?? undefined;
    },

    async prune(accountId, lastSeq, before) {
      // In the log's order (SQLite's answer: the order it deleted them in).
      return pgQuery<{ id: string; type: string; body: string }>(
        store.current(),
        'WITH gone AS (DELETE FROM events WHERE account_id = $1 AND seq <= $2 AND created_ms <= $3 RETURNING seq, id, type, body) SELECT id, type, body FROM gone ORDER BY seq',
        [accountId, lastSeq, before],
      );
    },
  };
}
