// A transport moves one request and its response. HTTP (node:http) and in-process (fastify inject) both go
// through the server's full pipeline, so auth, validation, idempotency and errors behave identically.

export interface TransportRequest {
  method: string;
  /** Path under the API base, with query string (`/sessions?limit=3`). */
  path: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

export interface TransportResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: string;
}

export interface Transport {
  /** Human description for messages: the base URL, or "embedded test-mode server". */
  readonly description: string;
  send(req: TransportRequest): Promise<TransportResponse>;
  close?(): Promise<void>;
}

/** Raised by transports when nothing came back: retried by the client, then surfaced as ConnectionError. */
export class TransportFailure extends Error {
  constructor(
    message: string,
    readonly timeout: boolean,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'TransportFailure';
  }
}

/**
 * The connection closed before an answer came (ECONNRESET): over HTTP a socket reset or hang-up, in process a
 * reply destroyed (a simulated `reset`, docs/api.md "Fault injection"). One failure either way: the request may
 * or may not have run, so only a request with an Idempotency-Key is safe to send again.
 */
export function connectionReset(description: string, cause?: unknown): TransportFailure {
  return new TransportFailure(`the connection to ${description} closed before an answer (ECONNRESET)`, false, cause);
}

export function flattenHeaders(h: Record<string, string | string[] | number | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h))
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  return out;
}
