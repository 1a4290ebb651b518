// The webhook signature scheme (docs/api.md "Events and webhooks"), shared by the server's deliveries, the CLI's
// `listen --forward-to` and the library's verifyWebhook: the live service's scheme,
//   X-Payorch-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>", keyed by the whole secret>
// A header may carry several v1 values (while a secret is being rolled); one matching is enough.
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Payorch-Signature';
export const EVENT_TYPE_HEADER = 'X-Payorch-Event-Type';
export const EVENT_ID_HEADER = 'X-Payorch-Event-Id';
export const TEST_MODE_HEADER = 'X-Payorch-Test-Mode';

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
