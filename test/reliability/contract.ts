// The contract's error rules (docs/api.md "Conventions", "Errors") as one checker the reliability tests share: every response carries
// `Request-Id`; every non-2xx answers `{error: {type, code, message, param?, request_id, decline_code?, payment_id?}}`
// with `request_id` equal to the header, a type and code from §2's table, and never a 5xx.

export interface Answer {
  status: number;
  headers: Headers | Record<string, string | undefined>;
  text: string;
}

const REQUEST_ID = /^req_[0-9A-Za-z]+$/;
const ERROR_KEYS = new Set(['type', 'code', 'message', 'param', 'request_id', 'decline_code', 'payment_id']);
/**
 * §2's 409 row is closed, with one pattern: `<resource>_unexpected_state`. It names eight resources; areas use
 * the same pattern for their other resources (customer, journal_entry, checkout_session, …), so the checker
 * accepts it for any resource name.
 */
const UNEXPECTED_STATE = /^[a-z][a-z_]*[a-z]_unexpected_state$/;

/** §2's table: status → type → allowed codes (a function where the table lists "..."). */
const TABLE: Record<number, { type: string; code: (c: string) => boolean }[]> = {
  400: [
    {
      type: 'validation_error',
      code: (c) => ['parameter_missing', 'parameter_invalid', 'parameter_unknown'].includes(c),
    },
    // "invalid_json, idempotency_key_reused, payment_method_not_allowed, … ": the row is open-ended
    { type: 'invalid_request_error', code: (c) => /^[a-z][a-z0-9_]*$/.test(c) },
  ],
  401: [
    {
      type: 'authentication_error',
      code: (c) =>
        [
          'missing_api_key',
          'invalid_api_key',
          'api_key_revoked',
          'livemode_unavailable',
          'missing_client_secret',
          'invalid_client_secret',
        ].includes(c),
    },
  ],
  402: [
    {
      type: 'card_error',
      code: (c) =>
        [
          'card_declined',
          'insufficient_funds',
          'expired_card',
          'incorrect_cvc',
          'processing_error',
          'lost_card',
          'stolen_card',
          'authentication_failed',
        ].includes(c),
    },
  ],
  404: [{ type: 'invalid_request_error', code: (c) => c === 'resource_missing' || c === 'route_not_found' }],
  405: [{ type: 'invalid_request_error', code: (c) => c === 'method_not_allowed' }],
  409: [
    {
      type: 'invalid_request_error',
      code: (c) =>
        [
          'idempotency_key_in_use',
          'ledger_account_frozen',
          'insufficient_available_balance',
          'resource_exists',
        ].includes(c) || UNEXPECTED_STATE.test(c),
    },
  ],
  413: [{ type: 'invalid_request_error', code: (c) => c === 'payload_too_large' }],
  415: [{ type: 'invalid_request_error', code: (c) => c === 'unsupported_media_type' }],
  429: [
    {
      type: 'invalid_request_error',
      code: (c) => ['rate_limit_exceeded', 'daily_limit_exceeded', 'concurrency_limit_exceeded'].includes(c),
    },
  ],
  503: [{ type: 'api_error', code: (c) => c === 'storage_unavailable' }],
};

function header(h: Answer['headers'], name: string): string | undefined {
  if (typeof (h as Headers).get === 'function') return (h as Headers).get(name) ?? undefined;
  const rec = h as Record<string, string | undefined>;
  return rec[name.toLowerCase()];
}

/** The contract violations of one answer ([] when it is fine). */
export function violations(res: Answer): string[] {
  const out: string[] = [];
  const rid = header(res.headers, 'request-id');
  if (!rid || !REQUEST_ID.test(rid)) out.push(`Request-Id header missing or malformed: ${String(rid)}`);
  if (res.status >= 500 && res.status !== 503) out.push(`status ${res.status}`);
  if (res.status < 400) return out;
  const ct = header(res.headers, 'content-type') ?? '';
  if (!/^application\/json/.test(ct)) out.push(`error content-type ${ct}`);
  let body: any;
  try {
    body = JSON.parse(res.text);
  } catch {
    out.push(`error body is not JSON: ${res.text.slice(0, 200)}`);
    return out;
  }
  if (!body || typeof body !== 'object' || Object.keys(body).join() !== 'error' || typeof body.error !== 'object') {
    out.push(`error body shape: ${res.text.slice(0, 200)}`);
    return out;
  }
  const e = body.error;
  for (const k of Object.keys(e)) if (!ERROR_KEYS.has(k)) out.push(`unexpected error key ${k}`);
  if (typeof e.message !== 'string' || !e.message) out.push('error.message missing');
  else if (/\n\s+at /.test(e.message)) out.push('stack trace in error.message');
  if (e.request_id !== rid) out.push(`error.request_id ${e.request_id} ≠ Request-Id ${rid}`);
  const rows = TABLE[res.status];
  if (!rows) out.push(`status ${res.status} is not in contract §2`);
  else if (!rows.some((r) => r.type === e.type && typeof e.code === 'string' && r.code(e.code)))
    out.push(`status ${res.status} with type ${e.type} / code ${e.code} is not in contract §2`);
  if (e.param !== undefined && typeof e.param !== 'string') out.push('error.param is not a string');
  if ((res.status === 429 || res.status === 503) && !/^\d+$/.test(header(res.headers, 'retry-after') ?? ''))
    out.push('429 without Retry-After');
  if (res.status === 405 && !header(res.headers, 'allow')) out.push('405 without Allow');
  return out;
}
