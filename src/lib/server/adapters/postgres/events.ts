// The event log's persistence on PostgreSQL: table `events`, the same answers as adapters/sqlite/events.ts (totals
// are an exact COUNT(*)).
//
// An account's events commit in the order of their numbers. `seq` (an identity, CACHE 1) is handed out at INSERT, so
// an append first takes the account's log lock in the same statement (`accountLogLock`: a transaction-level advisory
// lock held to COMMIT); else a lower number could commit after a reader following the log by number (a dispatch
// cursor, `payorch listen`, a trigger; every such cursor is per account) had read past it. Accounts never wait on
// each other. A lock, not a counter row: REPEATABLE READ would abort and re-run the second writer of the row, the
// lock makes it wait (readers cannot skip numbers in flight: those are invisible to them). The append is sent last
// (`store.last`), so the lock is held only for the COMMIT.
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
