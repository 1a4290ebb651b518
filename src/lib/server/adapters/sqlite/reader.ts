// A worker thread that runs long reads (adapters/sqlite/longread.ts) on a read-only connection of its own, so that a
// query that has to look at many rows (a filter no index serves) does not hold up the HTTP thread. Each message
// is one read: its statements run together in one read transaction (WAL: the last committed snapshot), and
// their rows go back in order.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { ReadReply, ReadRequest } from './longread.js';

const { path } = workerData as { path: string };
const db = new Database(path, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 1000');

/** Prepared statements by their text; the queries are a few shapes, but the cache stays bounded anyway. */
const prepared = new Map<string, Database.Statement>();
const statement = (sql: string) => {
  let stmt = prepared.get(sql);
  if (!stmt) {
    if (prepared.size >= 200) prepared.clear();
    stmt = db.prepare(sql);
    prepared.set(sql, stmt);
  }
  return stmt;
};

const all = db.transaction((queries: ReadRequest['queries']) => queries.map((q) => statement(q.sql).all(...q.params)));

parentPort!.on('message', (message: ReadRequest | 'stop') => {
  if (message === 'stop') {
    db.close();
    parentPort!.close();
    return;
  }
  try {
    parentPort!.postMessage({ id: message.id, rows: all(message.queries) as unknown[][] } satisfies ReadReply);
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    parentPort!.postMessage({
      id: message.id,
      error: err instanceof Error ? err.message : String(err),
      code: typeof code === 'string' ? code : undefined,
    } satisfies ReadReply);
  }
});
