// What the PostgreSQL area adapters share: documents by a query, the earliest due time, the claim of due work, and
// unique indexes that keep a rule's check against concurrent transactions.
//
// Due work (domain/due.ts) reads its due rows in the write transaction that changes them, locked by that query so
// that two processes never double its effect:
// - at most `limit` rows (the scheduler's bounded steps): `FOR UPDATE SKIP LOCKED` — rows another transaction holds
//   are left to it, and neither waits;
// - all of them (`limit` -1: a request catching up with its account's due work before it checks anything, e.g. the
//   available balance before a hold): `FOR UPDATE`, waiting. Skipping would let the request check a row as it was
//   before it came due (a hold still pending), which no serial order gives; waiting, it is aborted (40001) once the
//   holder commits, and run again.
import type { Owned } from '../../store/seam.js';
import type { PostgresDatabase } from './db.js';
import { pgQuery } from './query.js';

type Arg = string | number;

/** The documents (`data`) the query `sql` answers, in its order. */
export async function docsOf<T>(store: PostgresDatabase, sql: string, args: Arg[]): Promise<T[]> {
  const rows = await pgQuery<{ data: string }>(store.current(), sql, args);
  return rows.map((r) => JSON.parse(r.data) as T);
}

/** The single value `t` (a MIN of a bigint column) the query answers for the account, or undefined when NULL. */
export async function earliest(store: PostgresDatabase, sql: string, accountId: string): Promise<number | undefined> {
  const rows = await pgQuery<{ t: number | null }>(store.current(), sql, [accountId]);
  return rows[0]?.t ?? undefined;
}

/**
 * The rows of `table` matching `due` (a condition on `$1`, the time `now`), of one account (all when undefined or
 * ''), in creation order, at most `limit` (all when negative), locked for the caller's transaction as the file's
 * comment says.
 */
export async function claimDue<T>(
  store: PostgresDatabase,
  table: string,
  due: string,
  now: number,
  accountId: string | undefined,
  limit: number,
): Promise<Owned<T>[]> {
  const args: Arg[] = [now];
  let where = due;
  if (accountId) {
    args.push(accountId);
    where += ` AND account_id = $${args.length}`;
  }
  let tail = ' FOR UPDATE';
  if (limit >= 0) {
    args.push(Math.trunc(limit));
    tail = ` LIMIT $${args.length} FOR UPDATE SKIP LOCKED`;
  }
  const rows = await pgQuery<{ account_id: string; data: string }>(
    store.current(),
    `SELECT account_id, data FROM ${table} WHERE ${where} ORDER BY seq${tail}`,
    args,
  );
  return rows.map((r) => ({ accountId: r.account_id, doc: JSON.parse(r.data) as T }));
}

/** An error the store runs the transaction again for, as it does PostgreSQL's own serialization failures (40001). */
export function conflict(message: string, cause?: unknown): Error {
  return Object.assign(new Error(message, { cause }), { code: '40001' });
}

/**
 * A write's failure, with a violation of one of the unique indexes `raced` reported as a conflict: the rule that wrote
 * checked the key first (in its snapshot), so the row in the way is a concurrent transaction's. The transaction runs
 * again, and the rule's check then sees that row (and answers as it does on SQLite, where one ran after the other).
 * Documents are given their raced indexes when they are made (documents.ts `pgDocuments`).
 */
export function raceLost(err: unknown, raced: readonly string[]): never {
  const e = err as { code?: string; constraint_name?: string };
  if (e.code === '23505' && e.constraint_name && raced.includes(e.constraint_name))
    throw conflict(`${e.constraint_name}: the key was taken by a concurrent transaction`, err);
  throw err;
}
