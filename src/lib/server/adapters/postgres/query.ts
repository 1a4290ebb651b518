// How this adapter sends a statement with parameters: prepared (the driver prepares each text once per connection),
// on the handle it is given — the caller's transaction (`store.current()`), or the pool outside one.
import type { PendingQuery } from 'postgres';
import type { Handle } from './db.js';

/** A statement's parameter: a value, or an array of values (a PostgreSQL array). */
export type Value = string | number | null | readonly (string | number | null)[];

/** The rows `sql` answers with `args` ($1, $2, …), on `q`; sent when awaited (or `.execute()`d). */
export const pgQuery = <R extends object>(q: Handle, sql: string, args: readonly Value[] = []): PendingQuery<R[]> =>
  q.unsafe<R[]>(sql, args as (string | number)[], { prepare: true });

/** Adds `v` to `args` and answers its placeholder (`$n`). */
export const bind = (args: Value[], v: Value): string => {
  args.push(v);
  return `$${args.length}`;
};
