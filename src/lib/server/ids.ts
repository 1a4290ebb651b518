// The one place that makes identifiers (contract.md §1).
// Payment sessions and payments: UUIDv7 (time-ordered, indexes well). Everything else: prefix + 24 base62
// characters, the first 8 encoding the millisecond time so ids also sort by creation, the rest random.
import { secureRandomBytes, secureRandomUint32 } from './crypto.js';
import { V7Generator } from 'uuidv7';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'; // ASCII order: sorts as it counts

export type IdPrefix =
  | 'acct' | 'key' | 'cus' | 'prod' | 'price' | 'sub' | 'si' | 'in' | 'il' | 'ur' | 'ba' | 'nt' | 'cks' | 'pts'
  | 'la' | 'je' | 'ent' | 'hold' | 'kyc' | 'kchk' | 'idt' | 'tok' | 'co' | 'evt' | 'req' | 'att';

/** `n` random base62 characters (rejection sampling: no modulo bias). */
export function randomBase62(n: number): string {
  let out = '';
  while (out.length < n) {
    const bytes = secureRandomBytes(n * 2);
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
  return `${prefix}_${base62Time(Date.now())}${randomBase62(16)}`;
}

/**
 * UUIDv7s with their random bits from the pooled CSPRNG (crypto.ts). Measured: the library's own source refills
 * 32 bytes at a time, one `getRandomValues` call per two or three ids, ~1% of a create-session's CPU.
 */
const uuids = new V7Generator({ nextUint32: secureRandomUint32 });

export function newUuid(): string {
  return uuids.generate().toString();
}

export function newRequestId(): string {
  return `req_${randomBase62(20)}`;
}

/**
 * A client secret (`cs_` + 48 base62, contract.md §1) made from 64 pseudo-random bytes, such as an HMAC output
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

export function newApiKey(): string {
  return `sk_test_${randomBase62(32)}`;
}
