// The request log (docs/api.md "Request log"): a short, live summary of the account's recent API requests,
// for `payorch logs tail`. Never headers, bodies, query strings, keys or client secrets (an API key is named by
// its id, as `payorch server keys list` shows it).
import { Type, type Static } from '@sinclair/typebox';
import { MAX_SAFE_INTEGER } from './numbers.js';
import { Nullable } from './common.js';

export const RequestLogEntry = Type.Object(
  {
    object: Type.Literal('request_log_entry'),
    /** Position in the server's log; `after` takes it. */
    seq: Type.Integer({ minimum: 1, description: "position in the server's log (use it as `after`)" }),
    request_id: Type.String(),
    method: Type.String(),
    path: Type.String({ description: 'the path under the base URL, without the query string' }),
    status: Type.Integer(),
    duration_ms: Type.Integer({
      minimum: 0,
      description: 'whole milliseconds from the first byte to the answer (rounded)',
    }),
    created_at: Type.String({ description: 'ISO 8601, when the answer was sent (wall clock)' }),
    ip_address: Type.String({ description: "the client's address, as the server saw it" }),
    api_key: Nullable(
      Type.String({
        description: 'the id of the API key that made it (`key_…`, never the key); null for a client secret',
      }),
    ),
    simulated: Type.Optional(
      Type.String({
        description:
          'the fault injected into the request (docs/api.md "Fault injection"), in canonical form; `status` is then the one it answered, or the one it would have (its answer lost: `after_commit=reset`), or 0 (`reset`: no answer)',
      }),
    ),
  },
  { $id: 'RequestLogEntry' },
);
export type RequestLogEntry = Static<typeof RequestLogEntry>;

export const RequestLogPage = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(RequestLogEntry, { description: 'oldest first' }),
    has_more: Type.Boolean(),
    /** Where the next read starts: the last entry's seq, else the `after` given, else the newest entry's seq. */
    next_after: Type.Integer({ minimum: 0 }),
    url: Type.String(),
  },
  { $id: 'RequestLogPage' },
);
export type RequestLogPage = Static<typeof RequestLogPage>;

/** A status filter: codes (`404`) or classes (`4xx`), comma-separated: any of them matches. */
export const StatusFilter = Type.String({
  pattern: '^[1-5](xx|[0-9]{2})(,[1-5](xx|[0-9]{2}))*$',
  maxLength: 200,
  description: 'statuses (`404`) or classes (`4xx`, `5xx`), comma-separated: any of them',
});

export const RequestLogQuery = Type.Object(
  {
    after: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_SAFE_INTEGER,
        description: 'entries after this seq (oldest first); absent: the newest `limit` entries',
      }),
    ),
    status: Type.Optional(StatusFilter),
    path: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2048, pattern: '^/', description: 'a path prefix, e.g. `/sessions`' }),
    ),
    method: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]+(,[A-Za-z]+)*$',
        maxLength: 100,
        description: 'HTTP methods, comma-separated (`GET`, `post,delete`): any of them',
      }),
    ),
    request_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'one request, by its id' })),
    ip_address: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 400,
        description: 'client addresses, comma-separated (`127.0.0.1`, `::1`): any of them',
      }),
    ),
    api_key: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'requests made with the API key of this id (`key_…`)' }),
    ),
    request_status: Type.Optional(
      Type.Union([Type.Literal('succeeded'), Type.Literal('failed')], {
        description: '`succeeded`: answered 2xx; `failed`: anything else (4xx, 5xx, or no answer)',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
  },
  { additionalProperties: false },
);
export type RequestLogQuery = Static<typeof RequestLogQuery>;

/** Whether `status` passes the filter `404` / `4xx` (or a comma-separated list of them: any). */
export function statusMatches(filter: string, status: number): boolean {
  return filter
    .split(',')
    .some((f) => (f.endsWith('xx') ? Math.floor(status / 100) === Number(f[0]) : status === Number(f)));
}
