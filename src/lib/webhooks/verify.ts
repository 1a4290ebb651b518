// verifyWebhook: what a receiver calls on each delivery (docs/api.md "Events and webhooks"), like Stripe's
// constructEvent — checks the signature over the raw body in constant time and the timestamp against a
// tolerance, then returns the event. Depends on node:crypto only (import it from 'payorch/webhooks' to load
// nothing else).
import { timingSafeEqual } from 'node:crypto';
import type { Event } from '../contract/events.js';
import { computeSignature, parseSignatureHeader } from './signature.js';

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
 * The event a delivery carries, once its `X-Payorch-Signature` header is checked against `secret` (the endpoint's
 * `whsec_…`). `rawBody` must be the body exactly as received (not re-serialized JSON). Throws WebhookSignatureError.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | undefined | null,
  secret: string,
  opts: VerifyOptions = {},
): Event {
  if (signatureHeader === undefined || signatureHeader === null || signatureHeader === '') {
    throw new WebhookSignatureError(
      'missing_header',
      'No X-Payorch-Signature header: this request was not sent by payorch (or a proxy dropped the header).',
    );
  }
  if (typeof signatureHeader !== 'string' || signatureHeader.length > 4096) {
    throw new WebhookSignatureError(
      'malformed_header',
      'The X-Payorch-Signature header is not of the form t=<unix seconds>,v1=<hex signature>.',
    );
  }
  const parsed = parseSignatureHeader(signatureHeader);
  if (!parsed)
    throw new WebhookSignatureError(
      'malformed_header',
      'The X-Payorch-Signature header is not of the form t=<unix seconds>,v1=<hex signature>.',
    );
  if (typeof secret !== 'string' || secret === '')
    throw new TypeError('verifyWebhook: the secret must be the endpoint’s whsec_… string');

  const expected = Buffer.from(computeSignature(rawBody, secret, parsed.timestamp), 'hex');
  let match = false;
  for (const sig of parsed.signatures) {
    const given = Buffer.from(sig, 'hex'); // 64 hex characters (parseSignatureHeader): 32 bytes, like `expected`
    if (given.length === expected.length && timingSafeEqual(given, expected)) match = true;
  }
  if (!match)
    throw new WebhookSignatureError(
      'signature_mismatch',
      'No signature in the header matches the body and secret (is the body the raw bytes received, and the secret this endpoint’s?).',
    );

  const tolerance = opts.toleranceSeconds ?? 300;
  if (tolerance > 0) {
    const now = typeof opts.now === 'function' ? opts.now() : (opts.now ?? Math.floor(Date.now() / 1000));
    if (Math.abs(now - parsed.timestamp) > tolerance) {
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
