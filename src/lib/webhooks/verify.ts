// verifyWebhook: what a receiver calls on each delivery (docs/api.md "Events and webhooks"), like Stripe's
// constructEvent — checks the signature over the raw body in constant time and the timestamp against a
// tolerance, then returns the event. Depends on node:crypto only (import it from 'payorch/webhooks' to load
// nothing else).
import { timingSafeEqual } from 'node:crypto';
import type { Event } from '../contract/events.js';
import {
  computeSignature,
  computeStandardSignature,
  parseSignatureHeader,
  parseStandardSignatureHeader,
} from './signature.js';

export type WebhookSignatureErrorCode =
  | 'missing_header'
  | 'malformed_header'
  | 'signature_mismatch'
  | 'timestamp_outside_tolerance'
  | 'invalid_payload';

export class WebhookSignatureError extends Error {
  override readonly name = 'WebhookSignatureError';
  constructor(
    readonly code: WebhookSignatureErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface VerifyOptions {
  /** How far the header's timestamp may be from now, either way (seconds; default 300). 0 or less: not checked. */
  toleranceSeconds?: number;
  /** Now, in Unix seconds: a number, or a function that returns one (default the system clock). */
  now?: number | (() => number);
}

/**
 * A request's headers as a receiver has them: Node's `req.headers` (lower-case names), a Fetch `Headers`, or a
 * plain object (names in any case).
 */
export type WebhookHeaders =
  | { get(name: string): string | null | undefined }
  | Record<string, string | string[] | undefined>;

/**
 * The event a delivery carries, once its signature is checked against `secret` (the endpoint's `whsec_…`).
 * `headers` is the request's headers — then the X-Payorch-Signature header is checked, or, without it, Standard
 * Webhooks' `webhook-id`, `webhook-timestamp` and `webhook-signature` — or the X-Payorch-Signature value alone
 * (as Node types it: a string, or an array of them).
 * `rawBody` must be the body exactly as received (not re-serialized JSON). Throws WebhookSignatureError.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders | string | readonly string[] | undefined | null,
  secret: string,
  opts: VerifyOptions = {},
): Event {
  let timestamp: number;
  // The header's value as Node types it (string | string[] | undefined): several values are one list.
  const given = isList(headers) ? (headers.length > 0 ? headers.join(',') : undefined) : headers;
  if (given !== null && typeof given === 'object') {
    const payorch = headerOf(given, 'x-payorch-signature', ',');
    if (payorch !== undefined) timestamp = checkPayorch(rawBody, payorch, secret);
    else {
      const id = headerOf(given, 'webhook-id', ' ');
      const ts = headerOf(given, 'webhook-timestamp', ' ');
      const sig = headerOf(given, 'webhook-signature', ' ');
      if (id === undefined && ts === undefined && sig === undefined) throw missing();
      timestamp = checkStandard(rawBody, id, ts, sig, secret);
    }
  } else timestamp = checkPayorch(rawBody, given, secret);

  const tolerance = opts.toleranceSeconds ?? 300;
  if (tolerance > 0) {
    const now = typeof opts.now === 'function' ? opts.now() : (opts.now ?? Math.floor(Date.now() / 1000));
    if (Math.abs(now - timestamp) > tolerance) {
      throw new WebhookSignatureError(
        'timestamp_outside_tolerance',
        `The signature's timestamp is more than ${tolerance} s from now: a replayed or delayed delivery.`,
      );
    }
  }

  let event: unknown;
  try {
    event = JSON.parse(
      typeof rawBody === 'string'
        ? rawBody
        : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8'),
    );
  } catch {
    throw new WebhookSignatureError('invalid_payload', 'The body is not JSON.');
  }
  const e = event as Partial<Event> | null;
  if (
    !e ||
    typeof e !== 'object' ||
    e.object !== 'event' ||
    typeof e.id !== 'string' ||
    typeof e.type !== 'string' ||
    typeof e.data !== 'object' ||
    e.data === null
  ) {
    throw new WebhookSignatureError(
      'invalid_payload',
      'The body is not an event ({id, object: "event", type, data, …}).',
    );
  }
  return event as Event;
}

const isList = (v: unknown): v is readonly string[] => Array.isArray(v);

const missing = () =>
  new WebhookSignatureError(
    'missing_header',
    'No X-Payorch-Signature header and no webhook-signature header: this request was not sent by payorch (or a proxy dropped the headers).',
  );

const mismatch = () =>
  new WebhookSignatureError(
    'signature_mismatch',
    'No signature in the header matches the body and secret (is the body the raw bytes received, and the secret this endpoint’s?).',
  );

function checkSecret(secret: unknown): asserts secret is string {
  if (typeof secret !== 'string' || secret === '')
    throw new TypeError('verifyWebhook: the secret must be the endpoint’s whsec_… string');
}

/** A header's value (several values joined by `separator`), or undefined when absent or empty. */
function headerOf(headers: WebhookHeaders, name: string, separator: string): string | undefined {
  let value: unknown;
  if (typeof headers.get === 'function') value = (headers as { get(name: string): unknown }).get(name);
  else
    for (const key of Object.keys(headers))
      if (key.toLowerCase() === name) {
        value = (headers as Record<string, unknown>)[key];
        break;
      }
  if (Array.isArray(value)) value = value.filter((v) => typeof v === 'string').join(separator);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** X-Payorch-Signature checked against the body: its timestamp. */
function checkPayorch(rawBody: string | Uint8Array, header: unknown, secret: string): number {
  if (header === undefined || header === null || header === '') throw missing();
  const malformed = () =>
    new WebhookSignatureError(
      'malformed_header',
      'The X-Payorch-Signature header is not of the form t=<unix seconds>,v1=<hex signature>.',
    );
  if (typeof header !== 'string' || header.length > 4096) throw malformed();
  const parsed = parseSignatureHeader(header);
  if (!parsed) throw malformed();
  checkSecret(secret);
  const expected = Buffer.from(computeSignature(rawBody, secret, parsed.timestamp), 'hex');
  let match = false;
  for (const sig of parsed.signatures) {
    const given = Buffer.from(sig, 'hex'); // 64 hex characters (parseSignatureHeader): 32 bytes, like `expected`
    if (given.length === expected.length && timingSafeEqual(given, expected)) match = true;
  }
  if (!match) throw mismatch();
  return parsed.timestamp;
}

/** Standard Webhooks' headers checked against the body: their timestamp. */
function checkStandard(
  rawBody: string | Uint8Array,
  id: string | undefined,
  ts: string | undefined,
  sig: string | undefined,
  secret: string,
): number {
  const malformed = (what: string) =>
    new WebhookSignatureError(
      'malformed_header',
      `Standard Webhooks headers: ${what} (webhook-id, webhook-timestamp: <unix seconds>, webhook-signature: v1,<base64>).`,
    );
  if (id === undefined || ts === undefined || sig === undefined)
    throw malformed('webhook-id, webhook-timestamp and webhook-signature go together');
  if (id.length > 256 || ts.length > 12 || sig.length > 4096 || !/^\d{1,12}$/.test(ts))
    throw malformed('a header is not of its form');
  const signatures = parseStandardSignatureHeader(sig);
  if (signatures.length === 0) throw malformed('webhook-signature has no v1 signature');
  checkSecret(secret);
  const timestamp = Number(ts);
  const expected = Buffer.from(computeStandardSignature(id, rawBody, secret, timestamp), 'base64');
  let match = false;
  for (const given of signatures)
    if (given.length === expected.length && timingSafeEqual(given, expected)) match = true;
  if (!match) throw mismatch();
  return timestamp;
}
