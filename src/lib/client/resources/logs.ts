// The server's live request log (docs/api.md "Request log").
import type { RequestLogPage, RequestLogQuery } from '../../contract/requestlog.js';
import { asQuery, type CallOptions, type Requester } from './base.js';

export class RequestLogResource {
  constructor(private readonly c: Requester) {}

  /** Entries after `after` (oldest first), else the newest `limit`; `status` (`404`, `4xx`) and `path` (prefix) filter. */
  read(params: RequestLogQuery = {}, options?: CallOptions): Promise<RequestLogPage> {
    return this.c.request('GET', '/request-log', { query: asQuery(params), ...options });
  }
}
