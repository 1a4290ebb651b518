// Typed errors of the client: an API error carries the contract's error body; the others say the server
// could not be reached or did not answer in time.
import type { ErrorBody, ErrorType } from '../contract/common.js';
import { DEFAULT_BASE_URL } from '../contract/prefix.js';

export class PayorchError extends Error {
  override name = 'PayorchError';
}

/** The server answered with the contract's error body. */
export class ApiError extends PayorchError {
  override name = 'ApiError';
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string;
  readonly param?: string;
  readonly requestId?: string;
  readonly declineCode?: string;
  readonly paymentId?: string;
  /** `Retry-After` seconds on 429. */
  readonly retryAfter?: number;

  constructor(
    status: number,
    readonly body: ErrorBody,
    headers: Record<string, string> = {},
  ) {
    super(body.error.message);
    this.status = status;
    this.type = body.error.type;
    this.code = body.error.code;
    this.param = body.error.param;
    this.requestId = body.error.request_id ?? headers['request-id'];
    this.declineCode = body.error.decline_code;
    this.paymentId = body.error.payment_id;
    const ra = headers['retry-after'];
    if (ra !== undefined && ra !== '') this.retryAfter = Number(ra);
  }
}

/** The server could not be reached (refused, reset, DNS), after retries. */
export class ConnectionError extends PayorchError {
  override name = 'ConnectionError';
  constructor(
    message: string,
    readonly url: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

/** No answer within the timeout, after retries. */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError';
}

/** The server answered something that is not the contract's JSON (a proxy page, say). */
export class ProtocolError extends PayorchError {
  override name = 'ProtocolError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** A base URL the client refuses to send requests (and keys) to. */
export class InvalidBaseUrlError extends PayorchError {
  override name = 'InvalidBaseUrlError';
  constructor(
    readonly baseUrl: string,
    readonly reason: string,
  ) {
    super(`Invalid base URL ${JSON.stringify(baseUrl)}: ${reason}. Expected e.g. ${DEFAULT_BASE_URL}.`);
  }
}

/**
 * A request that cannot be sent as given, found before anything is sent: a header value (the API key, an
 * Idempotency-Key) with a line break or another character no header may carry, or a path with a character that
 * must be percent-encoded. `part` says which, so that a CLI can tell a bad key from a bad argument.
 */
export class UnsendableRequestError extends PayorchError {
  override name = 'UnsendableRequestError';
  constructor(
    readonly part: 'api_key' | 'header' | 'path',
    message: string,
  ) {
    super(message);
  }
}

/**
 * An id that cannot be one path segment: blank (`/sessions/` lists), or a dot segment (`.`, `..`), which a
 * server or proxy resolving dot segments turns into another route (`/sessions/.` → `/sessions/`).
 */
export class InvalidIdError extends PayorchError {
  override name = 'InvalidIdError';
}

/**
 * A fault (`Payorch-Simulate`, docs/api.md "Fault injection") asked for with a live key: fault injection is for
 * test mode only, and a header meant for a test server is never sent with a key that can move real money. Found
 * before anything is sent.
 */
export class SimulateWithLiveKeyError extends PayorchError {
  override name = 'SimulateWithLiveKeyError';
  readonly code = 'simulate_with_live_key';
  constructor() {
    super(
      'Payorch-Simulate (fault injection) is for test mode only: it is never sent with a live key (sk_live_…, rk_live_…). Use a test key, or drop the fault.',
    );
  }
}
