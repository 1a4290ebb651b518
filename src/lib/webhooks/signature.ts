// The webhook signatures (docs/api.md "Signatures"), shared by the server's deliveries, the CLI's
// `listen --forward-to` and the library's verifyWebhook. Every request carries two header sets, made with the same
// `whsec_…` secret and the same timestamp:
// - the live service's scheme:
//     X-Payorch-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>", keyed by the whole secret>
// - Standard Webhooks (standardwebhooks.com):
//     webhook-id: <event id>   webhook-timestamp: <unix seconds>
//     webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<t>.<raw body>", keyed by the bytes the base64 after
//     `whsec_` encodes>
// A header may carry several signatures (while a secret is being rolled); one matching is enough.
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Payorch-Signature';
export const EVENT_TYPE_HEADER = 'X-Payorch-Event-Type';
export const EVENT_ID_HEADER = 'X-Payorch-Event-Id';
export const TEST_MODE_HEADER = 'X-Payorch-Test-Mode';
/** Standard Webhooks' headers (lower case, as the specification writes them). */
export const STANDARD_ID_HEADER = 'webhook-id';
export const STANDARD_TIMESTAMP_HEADER = 'webhook-timestamp';
export const STANDARD_SIGNATURE_HEADER = 'webhook-signature';

/** Hex HMAC-SHA256 of `<timestamp>.<body>` keyed by `secret` (the whole `whsec_…` string). */
export function computeSignature(body: string | Uint8Array, secret: string, timestamp: number): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** The header value for `body` signed with each of `secrets` at `timestamp` (Unix seconds). */
export function signatureHeader(body: string | Uint8Array, secrets: string | string[], timestamp: number): string {
  const list = Array.isArray(secrets) ? secrets : [secrets];
  return [`t=${timestamp}`, ...list.map((s) => `v1=${computeSignature(body, s, timestamp)}`)].join(',');
}

/** `t` and the `v1` values of a header, or undefined when it has no valid `t` or no `v1`. Other schemes are ignored. */
export function parseSignatureHeader(header: string): { timestamp: number; signatures: string[] } | undefined {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  return timestamp === undefined || signatures.length === 0 ? undefined : { timestamp, signatures };
}

const BASE64 = /^(?=.)(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Standard Webhooks' HMAC key: the bytes the base64 after `whsec_` encodes (every secret payorch makes is
 * `whsec_` + base62 or hex characters, a multiple of four: valid base64). Throws a TypeError for another secret.
 */
export function standardKey(secret: string): Buffer {
  const text = secret.startsWith('whsec_') ? secret.slice(6) : secret;
  if (!BASE64.test(text)) throw new TypeError('A Standard Webhooks secret is whsec_ followed by base64');
  return Buffer.from(text, 'base64');
}

/** Base64 HMAC-SHA256 of `<id>.<timestamp>.<body>` keyed by standardKey(secret). */
export function computeStandardSignature(
  id: string,
  body: string | Uint8Array,
  secret: string,
  timestamp: number,
): string {
  return createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.`).update(body).digest('base64');
}

/** The `webhook-signature` value: `v1,<base64>` for each of `secrets`, separated by spaces. */
export function standardSignatureHeader(
  id: string,
  body: string | Uint8Array,
  secrets: string | string[],
  timestamp: number,
): string {
  const list = Array.isArray(secrets) ? secrets : [secrets];
  return list.map((s) => `v1,${computeStandardSignature(id, body, s, timestamp)}`).join(' ');
}

/** The `v1` signatures of a `webhook-signature` value (32 bytes each); other versions are ignored. */
export function parseStandardSignatureHeader(header: string): Buffer[] {
  const out: Buffer[] = [];
  for (const part of header.split(' ')) {
    const comma = part.indexOf(',');
    if (comma < 0 || part.slice(0, comma) !== 'v1') continue;
    const value = part.slice(comma + 1);
    if (value.length === 44 && BASE64.test(value)) out.push(Buffer.from(value, 'base64'));
  }
  return out;
}

/**
 * The headers that sign and describe an event's POST — the live service's set and Standard Webhooks' — for `body`
 * (the event's JSON) signed with each of `secrets` at `timestamp` (Unix seconds). One place makes them for the
 * server's deliveries and `listen --forward-to`.
 */
export function webhookHeaders(
  event: { id: string; type: string },
  body: string,
  secrets: string | string[],
  timestamp: number,
): Record<string, string> {
  return {
    [SIGNATURE_HEADER]: signatureHeader(body, secrets, timestamp),
    [EVENT_TYPE_HEADER]: event.type,
    [EVENT_ID_HEADER]: event.id,
    [TEST_MODE_HEADER]: 'true',
    [STANDARD_ID_HEADER]: event.id,
    [STANDARD_TIMESTAMP_HEADER]: String(timestamp),
    [STANDARD_SIGNATURE_HEADER]: standardSignatureHeader(event.id, body, secrets, timestamp),
  };
}
