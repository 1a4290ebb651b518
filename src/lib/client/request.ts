// What one call of the client may say about its request: query, body, key, bearer, time limits. Here rather
// than in client.ts so that the resources, which client.ts composes, can name it without importing it back.

export type QueryValue = string | number | boolean | undefined | null | (string | number)[];

export interface RequestOptions {
  query?: Record<string, QueryValue>;
  body?: unknown;
  /**
   * Defaults to a new random key for POST/PATCH/DELETE; `false` sends none (a request that is idempotent by
   * itself and not retried, e.g. a listener's lease renewal: no replay record is kept for it).
   */
  idempotencyKey?: string | false;
  /** Overrides the client's API key (e.g. a client secret for one call). */
  bearer?: string;
  timeoutMs?: number;
  deadlineMs?: number;
  maxRetries?: number;
  /** A fault for this call's first attempt (overrides the client's `simulate`; `false`: none). See ClientOptions.simulate. */
  simulate?: string | false;
}
