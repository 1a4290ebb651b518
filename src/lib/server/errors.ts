// The one place that decides error shapes and status codes (docs/api.md "Errors").
import type { ErrorBody, ErrorType } from '../contract/common.js';

export interface ErrorInit {
  status: number;
  type: ErrorType;
  code: string;
  message: string;
  param?: string;
  decline_code?: string;
  payment_id?: string;
  /** Extra response headers (Retry-After, Allow). */
  headers?: Record<string, string>;
}

/** A failure the API answers with the contract's error body. Thrown by routes and domain code. */
export class ServiceError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string;
  readonly param?: string;
  readonly decline_code?: string;
  readonly payment_id?: string;
  readonly headers?: Record<string, string>;

  constructor(init: ErrorInit) {
    super(init.message);
    this.name = 'ServiceError';
    this.status = init.status;
    this.type = init.type;
    this.code = init.code;
    this.param = init.param;
    this.decline_code = init.decline_code;
    this.payment_id = init.payment_id;
    this.headers = init.headers;
  }

  body(requestId: string): ErrorBody {
    const error: ErrorBody['error'] = { type: this.type, code: this.code, message: this.message };
    if (this.param !== undefined) error.param = this.param;
    if (this.decline_code !== undefined) error.decline_code = this.decline_code;
    if (this.payment_id !== undefined) error.payment_id = this.payment_id;
    error.request_id = requestId;
    return { error };
  }
}

/** Seconds a client is asked to wait after 503 storage_unavailable. */
export const STORAGE_RETRY_AFTER = 5;

/** Human names used in "No such …" messages, by id prefix / resource. */
export const errors = {
  parameterMissing: (param: string) =>
    new ServiceError({
      status: 400,
      type: 'validation_error',
      code: 'parameter_missing',
      param,
      message: `Missing required param: ${param}.`,
    }),
  parameterInvalid: (param: string, detail: string) =>
    new ServiceError({
      status: 400,
      type: 'validation_error',
      code: 'parameter_invalid',
      param,
      message: `Invalid ${param}: ${detail}.`,
    }),
  parameterUnknown: (param: string, didYouMean?: string) =>
    new ServiceError({
      status: 400,
      type: 'validation_error',
      code: 'parameter_unknown',
      param,
      message: `Received unknown parameter: ${param}.${didYouMean ? ` Did you mean ${didYouMean}?` : ''}`,
    }),
  /**
   * 400 `invalid_request_error`. Not for the `parameter_*` codes: those are validation errors, made by the three
   * above (docs/api.md "Errors"), so a `parameter_*` code here does not compile.
   */
  invalidRequest: <C extends string>(
    code: C extends `parameter_${string}` ? never : C,
    message: string,
    param?: string,
  ) => new ServiceError({ status: 400, type: 'invalid_request_error', code, message, param }),
  invalidJson: (detail: string) =>
    new ServiceError({
      status: 400,
      type: 'invalid_request_error',
      code: 'invalid_json',
      message: `Invalid JSON in the request body: ${detail}`,
    }),
  authentication: (code: string, message: string) =>
    new ServiceError({ status: 401, type: 'authentication_error', code, message }),
  notFound: (resource: string, id: string, param?: string) =>
    new ServiceError({
      status: 404,
      type: 'invalid_request_error',
      code: 'resource_missing',
      param,
      message: `No such ${resource}: '${id}'`,
    }),
  routeNotFound: (method: string, path: string) =>
    new ServiceError({
      status: 404,
      type: 'invalid_request_error',
      code: 'route_not_found',
      message: `Unrecognized request URL (${method}: ${path}). See docs/api.md for the routes this server answers.`,
    }),
  methodNotAllowed: (method: string, path: string, allow: string[]) =>
    new ServiceError({
      status: 405,
      type: 'invalid_request_error',
      code: 'method_not_allowed',
      message: `${method} is not allowed on ${path}; allowed: ${allow.join(', ')}.`,
      headers: { Allow: allow.join(', ') },
    }),
  /** 409 `<resource>_unexpected_state`. */
  unexpectedState: (resource: string, message: string) =>
    new ServiceError({ status: 409, type: 'invalid_request_error', code: `${resource}_unexpected_state`, message }),
  conflict: (code: string, message: string, param?: string) =>
    new ServiceError({ status: 409, type: 'invalid_request_error', code, message, param }),
  payloadTooLarge: (limit: number) =>
    new ServiceError({
      status: 413,
      type: 'invalid_request_error',
      code: 'payload_too_large',
      message: `The request body exceeds ${limit} bytes.`,
    }),
  unsupportedMediaType: (got: string) =>
    new ServiceError({
      status: 415,
      type: 'invalid_request_error',
      code: 'unsupported_media_type',
      message: `Request bodies must be JSON with Content-Type: application/json (got ${JSON.stringify(got)}).`,
    }),
  rateLimited: (
    code: 'rate_limit_exceeded' | 'daily_limit_exceeded' | 'concurrency_limit_exceeded',
    message: string,
    retryAfter: number,
  ) =>
    new ServiceError({
      status: 429,
      type: 'invalid_request_error',
      code,
      message,
      headers: { 'Retry-After': String(retryAfter) },
    }),
  /**
   * A write the data directory could not take (disk full, I/O error): nothing of it was stored. Or, with
   * `unreachable`, a database server that could not be reached (stopped, restarting): the request did not complete.
   */
  storageUnavailable: (unreachable = false) =>
    new ServiceError({
      status: 503,
      type: 'api_error',
      code: 'storage_unavailable',
      message: unreachable
        ? 'The server could not reach its database; the request did not complete. Retry later with the same Idempotency-Key.'
        : 'The server could not store this request (its data directory is full or failing); nothing was written. Retry later; reads still work.',
      headers: { 'Retry-After': String(STORAGE_RETRY_AFTER) },
    }),
  internal: () =>
    new ServiceError({
      status: 500,
      type: 'api_error',
      code: 'internal_error',
      message: 'An internal error occurred. The request id identifies it in the server log.',
    }),
  /**
   * A status injected by fault injection (docs/api.md "Fault injection"): the type and code this server gives that
   * status, a message that says it was simulated and whether the request ran, Retry-After when the fault gives one.
   */
  simulated: (status: number, fault: string, committed: boolean, retryAfter?: number) => {
    const [type, code] = SIMULATED_CODES[status] ?? ['api_error', 'simulated_error'];
    const what = committed
      ? 'after the request ran and its changes (if any) were committed; send it again with the same Idempotency-Key to get its saved answer'
      : 'instead of running the request; nothing was done';
    return new ServiceError({
      status,
      type,
      code,
      message: `Simulated ${status} (fault "${fault}"), ${what}.`,
      headers: retryAfter === undefined ? undefined : { 'Retry-After': String(retryAfter) },
    });
  },
};

/** The type and code of each status a fault may inject: the ones this server answers it with. */
const SIMULATED_CODES: Record<number, [ErrorType, string]> = {
  408: ['invalid_request_error', 'request_timeout'],
  409: ['invalid_request_error', 'idempotency_key_in_use'],
  429: ['invalid_request_error', 'rate_limit_exceeded'],
  500: ['api_error', 'internal_error'],
  502: ['api_error', 'bad_gateway'],
  503: ['api_error', 'service_unavailable'],
  504: ['api_error', 'gateway_timeout'],
};
