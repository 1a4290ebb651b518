// The one place that makes identifiers (docs/api.md "Conventions").
// Payment sessions and payments: UUIDv7 (time-ordered, indexes well). Everything else: prefix + 24 base62
// characters, the first 8 encoding the millisecond time so ids also sort by creation, the rest random.
// In deterministic mode (`server start --seed N`, docs/api.md "Deterministic mode") the random bytes come from the
// seed's stream and the "time" of an id is the number of ids made before it, so ids still sort by creation.
import { secureRandomBytes, secureRandomUint32 } from './crypto.js';
import { V7Generator } from 'uuidv7';

/** Where ids' bytes come from: the CSPRNG, or a seeded stream (seed.ts). */
export interface IdStream {
  bytes(n: number): Uint8Array;
  /** The "time" an id made now carries (ms): a count of the ids made, so that seeded ids sort by creation. */
  tick(): number;
  /** 64 bytes that depend on `subject` only (not on what was drawn before): see newIdFor. */
  derive(subject: string): Uint8Array;
}

/** A seeded server's sources: the ids stream, and request ids (bytes for the n-th request of its kind). */
export interface SeededIds {
  ids: IdStream;
  /** 64 bytes for a request id: they depend only on the request's method and URL and how many such came before. */
  requestBytes(method: string, url: string): Uint8Array;
}

let seeded: SeededIds | undefined;

/**
 * Makes every id, key, secret and request id of this process come from `streams` until the returned function is
 * called (a seeded server holds the process: server.ts refuses a second server beside it).
 */
export function useSeededIds(streams: SeededIds): () => void {
  seeded = streams;
  return () => {
    if (seeded === streams) seeded = undefined;
  };
}

/** `n` bytes for values a client sees (tokens, cryptograms, simulated processor values): seeded in deterministic mode. */
export function idBytes(n: number): Buffer {
  return seeded ? Buffer.from(seeded.ids.bytes(n)) : secureRandomBytes(n);
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'; // ASCII order: sorts as it counts

export type IdPrefix =
  | 'acct'
  | 'key'
  | 'cus'
  | 'prod'
  | 'price'
  | 'sub'
  | 'si'
  | 'in'
  | 'il'
  | 'ur'
  | 'ba'
  | 'nt'
  | 'cks'
  | 'pts'
  | 'la'
  | 'je'
  | 'ent'
  | 'hold'
  | 'kyc'
  | 'kchk'
  | 'idt'
  | 'tok'
  | 'co'
  | 'evt'
  | 'req'
  | 'att'
  | 'we'
  | 'whd'
  | 'evl'
  | 'evr';

/** `n` random base62 characters (rejection sampling: no modulo bias). */
export function randomBase62(n: number, stream: IdStream | undefined = seeded?.ids): string {
  let out = '';
  while (out.length < n) {
    const bytes = stream ? stream.bytes(n * 2) : secureRandomBytes(n * 2);
    for (let i = 0; i < bytes.length && out.length < n; i++) {
      const b = bytes[i]! & 63;
      if (b < 62) out += ALPHABET[b];
    }
  }
  return out;
}

function base62Time(ms: number): string {
  let out = '';
  let v = Math.floor(ms);
  for (let i = 0; i < 8; i++) {
    out = ALPHABET[v % 62] + out;
    v = Math.floor(v / 62);
  }
  return out;
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${base62Time(seeded ? seeded.ids.tick() : Date.now())}${randomBase62(16)}`;
}

/**
 * An id for what background work makes about `subject` (a webhook delivery of an event to an endpoint): `newId`, but
 * seeded it is derived from the subject rather than drawn, so that it does not depend on when the work ran nor on
 * the requests around it. The subject must name one object: the same subject, the same id.
 */
export function newIdFor(prefix: IdPrefix, subject: string): string {
  if (!seeded) return newId(prefix);
  const ids = seeded.ids;
  return `${prefix}_${base62Of(24, (round) => ids.derive(`${prefix} ${subject}${round === 0 ? '' : ` #${round}`}`))}`;
}

/** `n` base62 characters from the bytes `more(0)`, `more(1)`… give (rejection sampling, as randomBase62). */
function base62Of(n: number, more: (round: number) => Uint8Array): string {
  let out = '';
  for (let round = 0; out.length < n; round++) {
    const bytes = more(round);
    for (let i = 0; i < bytes.length && out.length < n; i++) {
      const b = bytes[i]! & 63;
      if (b < 62) out += ALPHABET[b];
    }
  }
  return out;
}

/**
 * UUIDv7s with their random bits from the pooled CSPRNG (crypto.ts): the library's own source calls
 * `getRandomValues` every two or three ids.
 */
const uuids = new V7Generator({ nextUint32: secureRandomUint32 });

export function newUuid(): string {
  if (!seeded) return uuids.generate().toString();
  // RFC 9562 UUIDv7: 48 bits of time, version 7, 12 random bits, variant 10, 62 random bits.
  const ms = seeded.ids.tick();
  const b = Buffer.alloc(16);
  b.writeUIntBE(ms, 0, 6);
  b.set(seeded.ids.bytes(10), 6);
  b[6] = 0x70 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  return formatUuid(b);
}

/** `n` random decimal digits (rejection sampling: no modulo bias): seeded in deterministic mode. */
export function randomDigits(n: number): string {
  let out = '';
  while (out.length < n) {
    const bytes = idBytes(n + 4);
    for (let i = 0; i < bytes.length && out.length < n; i++) if (bytes[i]! < 250) out += String(bytes[i]! % 10);
  }
  return out;
}

/** A version 4 UUID (simulated network values such as a 3DS transaction id): seeded in deterministic mode. */
export function randomUuid(): string {
  const b = idBytes(16);
  b[6] = 0x40 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  return formatUuid(b);
}

function formatUuid(b: Buffer): string {
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A request id. Seeded, it depends on the request's method and URL and on how many requests with both came before
 * (docs/api.md "Deterministic mode"): a test that polls a URL a varying number of times changes no other request's id.
 */
export function newRequestId(request?: { method?: string; url?: string }): string {
  if (!seeded) return `req_${randomBase62(20)}`;
  const s = seeded;
  const method = request?.method ?? '';
  const url = request?.url ?? '';
  let first: Uint8Array | undefined;
  return `req_${base62Of(20, (round) => (round === 0 ? (first = s.requestBytes(method, url)) : s.ids.derive(`req ${Buffer.from(first!).toString('hex')} #${round}`)))}`;
}

/**
 * A client secret (`cs_` + 48 base62, docs/api.md "Conventions") made from 64 pseudo-random bytes, such as an HMAC output
 * (rejection sampling: no modulo bias; 64 bytes leave more than 48 usable characters but in ~10⁻¹⁵ of cases).
 */
export function clientSecretFrom(bytes: Uint8Array, more: () => Uint8Array): string {
  let out = '';
  let source = bytes;
  while (out.length < 48) {
    for (let i = 0; i < source.length && out.length < 48; i++) {
      const b = source[i]! & 63;
      if (b < 62) out += ALPHABET[b];
    }
    if (out.length < 48) source = more();
  }
  return `cs_${out}`;
}

/** A webhook endpoint's signing secret: `whsec_` + 32 base62 (docs/api.md "Events and webhooks"). */
export function newWebhookSecret(): string {
  return `whsec_${randomBase62(32)}`;
}

export function newApiKey(): string {
  return `sk_test_${randomBase62(32)}`;
}

/** 16 bytes of session id + 19 bytes of MAC: 280 bits, which 48 base62 characters (~285.8 bits) always hold. */
export const SECRET_MAC_BYTES = 19;
/** The number as 12 limbs of 24 bits (288 bits: one leading zero byte). */
const LIMBS = 12;
const LIMB = 2 ** 24;
/** Base conversion runs four base62 digits at a time; 62⁴ · 2²⁴ < 2⁵³, so every step is exact in a double. */
const CHUNK = 62 ** 4;

/**
 * A client secret that names its session (as a Stripe `pi_…_secret_…` does), still `cs_` + 48 base62:
 * the session's UUID and a MAC of it (`mac`, at least 19 bytes, only the first 19 used) as one big-endian
 * number, by long division on 24-bit limbs (faster than BigInt or division byte by byte).
 */
export function clientSecretNaming(sessionId: string, mac: Uint8Array): string {
  const hex =
    sessionId.slice(0, 8) +
    sessionId.slice(9, 13) +
    sessionId.slice(14, 18) +
    sessionId.slice(19, 23) +
    sessionId.slice(24);
  const bytes = new Uint8Array(LIMBS * 3);
  bytes.set(Buffer.from(hex, 'hex'), 1);
  bytes.set(mac.subarray(0, SECRET_MAC_BYTES), 17);
  const limbs = new Array<number>(LIMBS);
  for (let k = 0; k < LIMBS; k++) limbs[k] = (bytes[3 * k]! << 16) | (bytes[3 * k + 1]! << 8) | bytes[3 * k + 2]!;
  let out = '';
  for (let i = 0; i < 12; i++) {
    let rem = 0;
    for (let j = 0; j < LIMBS; j++) {
      const cur = rem * LIMB + limbs[j]!;
      const q = Math.floor(cur / CHUNK);
      limbs[j] = q;
      rem = cur - q * CHUNK;
    }
    let four = '';
    for (let k = 0; k < 4; k++) {
      const q = (rem / 62) | 0;
      four = ALPHABET[rem - q * 62]! + four;
      rem = q;
    }
    out = four + out;
  }
  return `cs_${out}`;
}

/**
 * The session id and MAC a client secret made by clientSecretNaming carries, or undefined when `secret` cannot
 * be one (wrong shape, or a number over 280 bits: most secrets older versions made). The MAC is not checked here.
 */
export function clientSecretParts(secret: string): { sessionId: string; mac: Buffer } | undefined {
  if (secret.length !== 51 || !secret.startsWith('cs_')) return undefined;
  const limbs = new Array<number>(LIMBS).fill(0);
  for (let i = 3; i < 51; i += 4) {
    let carry = 0;
    for (let k = 0; k < 4; k++) {
      const d = ALPHABET.indexOf(secret[i + k]!);
      if (d < 0) return undefined;
      carry = carry * 62 + d;
    }
    for (let j = LIMBS - 1; j >= 0; j--) {
      const cur = limbs[j]! * CHUNK + carry;
      carry = Math.floor(cur / LIMB);
      limbs[j] = cur - carry * LIMB;
    }
    if (carry !== 0) return undefined;
  }
  if (limbs[0]! >= 1 << 16) return undefined; // the leading byte must be zero: at most 280 bits
  const bytes = Buffer.alloc(LIMBS * 3);
  for (let k = 0; k < LIMBS; k++) {
    bytes[3 * k] = limbs[k]! >>> 16;
    bytes[3 * k + 1] = (limbs[k]! >>> 8) & 255;
    bytes[3 * k + 2] = limbs[k]! & 255;
  }
  const hex = bytes.subarray(1, 17).toString('hex');
  const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { sessionId: id, mac: Buffer.from(bytes.subarray(17)) };
}
