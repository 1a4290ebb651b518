// The list commands' shared part: the cursor flags, and one page or (with --all) every page.
import { Flags } from '@oclif/core';
import type { CliIO } from './io.js';

/** `--limit`, `--starting-after`, `--ending-before`: a page of a cursor-paginated list. */
export const cursorFlags = {
  limit: Flags.integer({ description: 'Page size, 1–100 (default 10)', min: 1, max: 100 }),
  'starting-after': Flags.string({ description: 'Cursor: the id after which the page starts' }),
  'ending-before': Flags.string({ description: 'Cursor: the id before which the page ends' }),
};

/** The cursor flags and `--all`, for every list command that can fetch every page. */
export const listFlags = {
  ...cursorFlags,
  all: Flags.boolean({
    description: 'Fetch every page (auto-pagination)',
    exclusive: ['starting-after', 'ending-before'],
  }),
};

export interface CursorFlagValues {
  limit?: number;
  'starting-after'?: string;
  'ending-before'?: string;
}

/** The cursor flags as the API's query parameters. */
export function cursor(flags: CursorFlagValues): { limit?: number; starting_after?: string; ending_before?: string } {
  return { limit: flags.limit, starting_after: flags['starting-after'], ending_before: flags['ending-before'] };
}

export type ListFlagValues = CursorFlagValues & { all?: boolean };
type Query<P> = ReturnType<typeof cursor> & P;
export type PageCall<P, L> = (params: Query<P>) => Promise<L>;
export type AllCall<P, T> = (params: Query<P>) => AsyncIterable<T>;

export type AllList<T> = { object: 'list'; data: T[]; has_more: false; total_count: number };

/** Drains an auto-paginating iterator into one list, with a progress count on the command's stderr when it is a terminal. */
export async function listAll<T>(
  items: AsyncIterable<T>,
  io: Pick<CliIO, 'stderr'>,
  json: boolean,
): Promise<AllList<T>> {
  const data: T[] = [];
  const progress = !json && Boolean(io.stderr.isTTY);
  for await (const item of items) {
    data.push(item);
    if (progress && data.length % 100 === 0) io.stderr.write(`\r${data.length} fetched…`);
  }
  if (progress && data.length >= 100) io.stderr.write('\r\x1b[K');
  return { object: 'list', data, has_more: false, total_count: data.length };
}

/**
 * One page (the cursor flags and `params`), or with --all every page drained into one list. `page` and `all`
 * are the client's two calls for the same list.
 */
export async function pageOrAll<P extends object, T, L>(
  flags: ListFlagValues,
  params: P,
  page: PageCall<P, L>,
  all: AllCall<P, T>,
  out: { io: Pick<CliIO, 'stderr'>; json: boolean },
): Promise<L | AllList<T>> {
  const query = { ...cursor(flags), ...params };
  return flags.all ? await listAll(all(query), out.io, out.json) : await page(query);
}
