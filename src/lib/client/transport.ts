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
  constructor(message: string, readonly timeout: boolean, override readonly cause?: unknown) {
    super(message);
    this.name = 'TransportFailure';
  }
}

export function flattenHeaders(h: Record<string, string | string[] | number | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  return out;
}
