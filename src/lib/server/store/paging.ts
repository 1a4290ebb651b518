// The one rule of every list's pagination, in no engine's words: a cursor names an object of the list, rows are read
// newest first (or oldest first after `ending_before`), and a page is at most `limit` of them. An adapter writes the
// keyset (`keyset`) in its SQL; lists made in memory page with pageOfList.
import type { List } from '../../contract/common.js';
import { errors } from '../errors.js';

/** What a list request asks of its page: at most `limit` objects, after or before the object a cursor names. */
export interface PageQuery {
  limit?: number;
  starting_after?: string;
  ending_before?: string;
}

/** A page read by keyset on the rows' `seq` (their order of creation), for an adapter to write in its SQL. */
export interface Keyset {
  /** The order to read rows in: newest first, or oldest first after `ending_before`. */
  readonly order: 'ASC' | 'DESC';
  /** The cursor's bound (the page's rows have `seq op seq`); none without a cursor. */
  readonly after?: { op: '<' | '>'; seq: number };
  /** How many rows to read: the page's limit and one more, which says whether more follow. */
  readonly fetch: number;
  /** The page of the rows read in `order`: newest first, and whether more follow. */
  readonly page: <R>(rows: R[]) => { page: R[]; has_more: boolean };
  /** The list answer of the rows read, each made an object by `doc`, with the list's total. */
  readonly list: <R, T>(rows: R[], doc: (row: R) => T, total: number, url: string) => List<T>;
}

/**
 * The keyset of `opts`: `starting_after` and `ending_before` name an object of the list (both at once → 400; an
 * unknown id → 400 resource_missing naming the parameter); `seqOf` finds the object's `seq`.
 */
export function keyset(opts: PageQuery, seqOf: (id: string) => number | undefined): Keyset {
  if (opts.starting_after !== undefined && opts.ending_before !== undefined) {
    throw errors.parameterInvalid('ending_before', 'cannot be used together with starting_after');
  }
  const order = opts.ending_before !== undefined ? 'ASC' : 'DESC';
  const limit = opts.limit ?? 10;
  const page = <R>(rows: R[]) => {
    const kept = rows.slice(0, limit);
    if (order === 'ASC') kept.reverse();
    return { page: kept, has_more: rows.length > limit };
  };
  const list = <R, T>(rows: R[], doc: (row: R) => T, total: number, url: string): List<T> => {
    const { page: kept, has_more } = page(rows);
    return { object: 'list', data: kept.map(doc), has_more, total_count: total, url };
  };
  const cursorId = opts.starting_after ?? opts.ending_before;
  if (cursorId === undefined) return { order, fetch: limit + 1, page, list };
  const seq = seqOf(cursorId);
  const param = opts.starting_after !== undefined ? 'starting_after' : 'ending_before';
  if (seq === undefined)
    throw errors.invalidRequest('resource_missing', `No such object for ${param}: '${cursorId}'`, param);
  return { order, after: { op: order === 'DESC' ? '<' : '>', seq }, fetch: limit + 1, page, list };
}

/**
 * `keyset` for a store whose lookups answer with a promise: the cursor's id is looked up first (before its checks,
 * which `keyset` makes).
 */
export async function keysetAsync(
  opts: PageQuery,
  seqOf: (id: string) => Promise<number | undefined>,
): Promise<Keyset> {
  const cursorId = opts.starting_after ?? opts.ending_before;
  const at = cursorId === undefined ? undefined : await seqOf(cursorId);
  return keyset(opts, () => at);
}

/**
 * The same rule over a list made in memory (`all`, newest first, each object once): the page the cursor and
 * limit of `opts` ask for, newest first, and whether more follow in that direction.
 */
export function pageOfList<R extends { id: string }>(all: R[], opts: PageQuery): { page: R[]; has_more: boolean } {
  // An object's seq is its place counted from the oldest, as a table's seq would be.
  const seqOf = (id: string) => {
    const i = all.findIndex((x) => x.id === id);
    return i < 0 ? undefined : all.length - 1 - i;
  };
  const k = keyset(opts, seqOf);
  const at = k.after?.seq;
  const rows =
    k.order === 'DESC'
      ? all.slice(at === undefined ? 0 : all.length - at)
      : all.slice(0, all.length - 1 - at!).reverse();
  return k.page(rows.slice(0, k.fetch));
}

/**
 * A list's `created` filters (whole seconds, Stripe's forms) as bounds on a column of milliseconds: `created=s` is
 * that second (created ≥ s and created ≤ s); created > s ⇔ ms ≥ (s+1)·1000; created ≤ s ⇔ ms < (s+1)·1000. Empty
 * when the query has none. Each engine writes them in its SQL.
 */
export function createdBounds(q: {
  created?: number;
  'created[gt]'?: number;
  'created[gte]'?: number;
  'created[lt]'?: number;
  'created[lte]'?: number;
}): { op: '>=' | '<'; ms: number }[] {
  const range: [keyof typeof q, '>=' | '<', number][] = [
    ['created', '>=', 0],
    ['created', '<', 1000],
    ['created[gt]', '>=', 1000],
    ['created[gte]', '>=', 0],
    ['created[lt]', '<', 0],
    ['created[lte]', '<', 1000],
  ];
  const out: { op: '>=' | '<'; ms: number }[] = [];
  for (const [key, op, plus] of range) {
    const v = q[key];
    if (v !== undefined) out.push({ op, ms: v * 1000 + plus });
  }
  return out;
}
