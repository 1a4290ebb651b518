// The event log's persistence in SQLite: the `events` table (seq is the order of recording, never used twice:
// migration 504) and its kept counts in `list_counts` (migration 503).
import type { Statement } from 'better-sqlite3';
import type { List } from '../../../contract/common.js';
import type { Event, ListEventsQuery } from '../../../contract/events.js';
import type { EventLogPort, LoggedEvent } from '../../domain/events.js';
import { createdBounds } from '../../store/paging.js';
import type { SqliteDatabase } from './db.js';
import { seqKeyset } from './collection.js';
import { LongRead } from './longread.js';

export function sqliteEventLogStore(store: SqliteDatabase): EventLogPort {
  let insertStmt: Statement | undefined;

  /** The statement that reads the kept count of a type or type pattern (`*`). */
  const typeCount = (accountId: string, type: string): { sql: string; params: string[] } => {
    const match = type.includes('*') ? 'GLOB' : '=';
    return {
      sql: `SELECT COALESCE(SUM(n), 0) AS n FROM list_counts WHERE tbl = 'events' AND account_id = ? AND cols = 'type' AND vals ${match} ?`,
      params: [accountId, type],
    };
  };

  /** The account's events, or those of a type or type pattern (`*`), from the kept counts. */
  const keptCount = (accountId: string, type: string | undefined): number => {
    if (type === undefined) return store.counted('events', accountId, '', '');
    store.flushCounts(); // the open transaction's own, if any
    const { sql, params } = typeCount(accountId, type);
    return (store.statement(sql).get(...params) as { n: number }).n;
  };

  const append = (accountId: string, e: LoggedEvent) => {
    insertStmt ??= store.db.prepare(
      'INSERT INTO events (id, account_id, type, object_id, created_ms, body) VALUES (?, ?, ?, ?, ?, ?)',
    );
    insertStmt.run(e.id, accountId, e.type, e.objectId, e.createdMs, e.body);
    store.count('events', accountId, '', '', 1);
    store.count('events', accountId, 'type', e.type, 1);
  };

  return {
    async append(accountId, e) {
      append(accountId, e);
    },

    async appendAll(accountId, events) {
      for (const e of events) append(accountId, e);
    },

    async find(accountId, id) {
      const row = store.statement('SELECT body FROM events WHERE id = ? AND account_id = ?').get(id, accountId) as
        | { body: string }
        | undefined;
      return row ? (JSON.parse(row.body) as Event) : undefined;
    },

    /**
     * A filter on type or time without an object id may have to look through the whole log (no index serves it):
     * that page is a long read (LongRead), run off the HTTP thread when the server has a background reader.
     */
    async page(accountId, url, q: ListEventsQuery) {
      const cond = ['account_id = ?'];
      const params: (string | number)[] = [accountId];
      if (q.object_id !== undefined) {
        cond.push('object_id = ?');
        params.push(q.object_id);
      }
      if (q.type !== undefined) {
        // The pattern's characters are [a-z_.*] (ListEventsQuery): GLOB's only special one among them is `*`.
        cond.push(q.type.includes('*') ? 'type GLOB ?' : 'type = ?');
        params.push(q.type);
      }
      const bounds = createdBounds(q);
      const timed = bounds.length > 0;
      for (const { op, ms } of bounds) {
        cond.push(`created_ms ${op} ?`);
        params.push(ms);
      }
      const where = cond.join(' AND ');
      // Without an object or time filter the count is kept (migration 503): a filter on a type nobody recorded
      // reads nothing, and no list counts the account's whole log.
      const kept = q.object_id === undefined && !timed ? keptCount(accountId, q.type) : undefined;
      const { keyset: k, cond: after, params: afterParams } = seqKeyset(store, 'events', 'account_id', accountId, q);
      if (kept === 0) return { object: 'list', data: [], has_more: false, total_count: 0, url };
      const rowsQuery = {
        sql: `SELECT body FROM events WHERE ${where}${after} ORDER BY seq ${k.order} LIMIT ?`,
        params: [...params, ...afterParams, k.fetch],
      };
      const countAll = { sql: `SELECT COUNT(*) AS n FROM events WHERE ${where}`, params };
      const finish = (rows: { body: string }[], total: number): List<Event> =>
        k.list(rows, (r) => JSON.parse(r.body) as Event, total, url);
      if (q.object_id !== undefined || (q.type === undefined && !timed)) {
        // An index lookup (the object's events), or the newest of the whole log with its kept count: here.
        const rows = store.statement(rowsQuery.sql).all(...rowsQuery.params) as { body: string }[];
        return finish(rows, kept ?? (store.statement(countAll.sql).get(...countAll.params) as { n: number }).n);
      }
      // The page and its total from one snapshot (a type's kept count too: events may commit meanwhile).
      const countQuery = timed ? countAll : typeCount(accountId, q.type!);
      return new LongRead([rowsQuery, countQuery], (rows) =>
        finish(rows[0] as { body: string }[], (rows[1]![0] as { n: number }).n),
      );
    },

    async oldestMs(accountId) {
      const row = store
        .statement('SELECT created_ms FROM events WHERE account_id = ? ORDER BY seq LIMIT 1')
        .get(accountId) as { created_ms: number } | undefined;
      return row?.created_ms;
    },

    async accounts() {
      return (store.statement('SELECT DISTINCT account_id FROM events').all() as { account_id: string }[]).map(
        (r) => r.account_id,
      );
    },

    async lastRecordedBy(accountId, before, n) {
      const last = store
        .statement(
          'SELECT MAX(seq) AS seq FROM (SELECT seq FROM events WHERE account_id = ? AND created_ms <= ? ORDER BY seq LIMIT ?)',
        )
        .get(accountId, before, n) as { seq: number | null };
      return last.seq ?? undefined;
    },

    async prune(accountId, lastSeq, before) {
      const gone = store
        .statement('DELETE FROM events WHERE account_id = ? AND seq <= ? AND created_ms <= ? RETURNING id, type, body')
        .all(accountId, lastSeq, before) as { id: string; type: string; body: string }[];
      for (const e of gone) {
        store.count('events', accountId, '', '', -1);
        store.count('events', accountId, 'type', e.type, -1);
      }
      return gone;
    },
  };
}
