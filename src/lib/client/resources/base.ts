import type { List, ListParams } from '../../contract/common.js';
import type { QueryValue, RequestOptions } from '../request.js';
import { InvalidIdError } from '../errors.js';

/** What a resource needs of the client. */
export interface Requester {
  request<T>(method: string, path: string, options?: RequestOptions): Promise<T>;
}

export type CallOptions = Pick<RequestOptions, 'idempotencyKey' | 'timeoutMs' | 'maxRetries' | 'simulate'>;

/**
 * One path segment (an id), percent-encoded. A blank one would change which route is called (`/sessions/`
 * lists), and so would `.` or `..` wherever dot segments are resolved (percent-encoding does not help: the
 * URL standard resolves `%2e` too): refused with InvalidIdError.
 */
export const enc = (segment: string): string => {
  if (typeof segment !== 'string' || segment.trim() === '')
    throw new InvalidIdError('An id in a request path must not be blank.');
  if (segment === '.' || segment === '..')
    throw new InvalidIdError(`"${segment}" is not an id: a request path cannot hold it as one segment.`);
  return encodeURIComponent(segment);
};

/** Every page of a list, following `starting_after` until `has_more` is false. */
export async function* paginate<T extends { id: string }, P extends ListParams>(
  fetchPage: (params: P) => Promise<List<T>>,
  params: P,
): AsyncGenerator<T> {
  let cursor = params.starting_after;
  for (;;) {
    const page = await fetchPage({ ...params, starting_after: cursor, limit: params.limit ?? 100 });
    for (const item of page.data) yield item;
    if (!page.has_more || page.data.length === 0) return;
    cursor = page.data[page.data.length - 1]!.id;
  }
}

export const asQuery = (params: object | undefined) => params as Record<string, QueryValue> | undefined;
