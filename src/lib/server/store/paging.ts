// The one rule of every list's pagination, in no engine's words: a cursor names an object of the list, rows are read
// newest first (or oldest first after `ending_before`), and a page is at most `limit` of them. The adapters turn the
// cursor into their query; lists made in memory page with pageOfList.
import { errors } from '../errors.js';

/** Where a page starts: after (DESC) or before (ASC) the object at `seq`; undefined `seq` when no cursor was given. */
export interface Cursor {
  seq?: number;
  order: 'ASC' | 'DESC';
}

/**
 * The cursor of `opts`: `starting_after` and `ending_before` name an object of the list (both at once → 400; an
 * unknown id → 400 resource_missing naming the parameter). `seqOf` finds the object's place (its `seq`).
 */
export function cursorOf(
  opts: { starting_after?: string; ending_before?: string },
  seqOf: (id: string) => number | undefined,
): Cursor {
  if (opts.starting_after !== undefined && opts.ending_before !== undefined) {
    throw errors.parameterInvalid('ending_before', 'cannot be used together with starting_after');
  }
  const order = opts.ending_before !== undefined ? 'ASC' : 'DESC';
  const cursorId = opts.starting_after ?? opts.ending_before;
  if (cursorId === undefined) return { order };
  const seq = seqOf(cursorId);
  const param = opts.starting_after !== undefined ? 'starting_after' : 'ending_before';
  if (seq === undefined)
    throw errors.invalidRequest('resource_missing', `No such object for ${param}: '${cursorId}'`, param);
  return { seq, order };
}

/** The page of up to `limit + 1` rows read in `order` (see cursorOf): newest first, and whether more follow. */
export function pageOf<R>(rows: R[], limit: number, order: 'ASC' | 'DESC'): { page: R[]; has_more: boolean } {
  const page = rows.slice(0, limit);
  if (order === 'ASC') page.reverse();
  return { page, has_more: rows.length > limit };
}

/**
 * The same rule over a list made in memory (`all`, newest first, each object once): the page the cursor and
 * limit of `opts` ask for, newest first, and whether more follow in that direction.
 */
export function pageOfList<R extends { id: string }>(
  all: R[],
  opts: { limit?: number; starting_after?: string; ending_before?: string },
): { page: R[]; has_more: boolean } {
  // An object's seq is its place counted from the oldest, as a table's seq would be.
  const seqOf = (id: string) => {
    const i = all.findIndex((x) => x.id === id);
    return i < 0 ? undefined : all.length - 1 - i;
  };
  const { seq: at, order } = cursorOf(opts, seqOf);
  const limit = opts.limit ?? 10;
  const rows =
    order === 'DESC' ? all.slice(at === undefined ? 0 : all.length - at) : all.slice(0, all.length - 1 - at!).reverse();
  return pageOf(rows.slice(0, limit + 1), limit, order);
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
