// Secrets at rest: AES-256-GCM with a key kept in the data directory (mode 0600), and hashes for lookups.
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hash,
  randomBytes,
  randomFillSync,
  timingSafeEqual,
} from 'node:crypto';

const SEALED_BYTES_V1 = Buffer.from([1]);
const POOL_SIZE = 8192;
const pool = Buffer.alloc(POOL_SIZE);
let poolOffset = POOL_SIZE;

/**
 * `n` bytes from the operating system's CSPRNG, drawn from a pool refilled 8 KiB at a time: one call into
 * OpenSSL per ~60 requests instead of several per request (ids, secrets, IVs). Each byte is handed out once.
 */
export function secureRandomBytes(n: number): Buffer {
  if (n > POOL_SIZE / 4) return randomBytes(n);
  if (poolOffset + n > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const out = Buffer.from(pool.subarray(poolOffset, poolOffset + n)); // a copy: the pool is refilled in place
  pool.fill(0, poolOffset, poolOffset + n);
  poolOffset += n;
  return out;
}

/** A random 32-bit unsigned integer from the same pool (each byte handed out once). */
export function secureRandomUint32(): number {
  if (poolOffset + 4 > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const value = pool.readUInt32BE(poolOffset);
  pool.fill(0, poolOffset, poolOffset + 4);
  poolOffset += 4;
  return value;
}

/** The longest text KeyedHmac keeps a buffer for. */
const MAX_KEPT = 64 * 1024;

/**
 * HMAC (RFC 2104) under one fixed key, as two one-shot hashes (`crypto.hash`) over buffers that hold the padded
 * key: the same bytes as `createHmac(algorithm, key)` without a Hmac object per call (cheaper on the hot path).
 */
export class KeyedHmac {
  private inner: Buffer;
  private readonly outer: Buffer;
  private readonly block: number;

  constructor(
    private readonly algorithm: 'sha256' | 'sha512',
    key: Buffer,
  ) {
    this.block = algorithm === 'sha512' ? 128 : 64;
    if (key.length > this.block) throw new Error('KeyedHmac: keys longer than a block are not supported');
    this.inner = Buffer.alloc(this.block + 256, 0x36);
    this.outer = Buffer.alloc(this.block + (algorithm === 'sha512' ? 64 : 32), 0x5c);
    for (let i = 0; i < key.length; i++) {
      this.inner[i]! ^= key[i]!;
      this.outer[i]! ^= key[i]!;
    }
  }

  digest(data: string): Buffer {
    const room = this.block + Buffer.byteLength(data);
    if (room > this.inner.length && room <= MAX_KEPT) {
      const grown = Buffer.alloc(Math.min(room * 2, MAX_KEPT));
      this.inner.copy(grown, 0, 0, this.block);
      this.inner = grown;
    }
    // Longer than is kept: a buffer of its own for this call.
    const inner =
      room <= this.inner.length
        ? this.inner
        : Buffer.concat([this.inner.subarray(0, this.block), Buffer.alloc(room - this.block)]);
    const n = inner.write(data, this.block, 'utf8');
    hash(this.algorithm, inner.subarray(0, this.block + n), 'buffer').copy(this.outer, this.block);
    inner.fill(0, this.block, this.block + n); // the text (a request body can hold secrets) does not stay in memory
    return hash(this.algorithm, this.outer, 'buffer');
  }
}

export class Sealer {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('Sealer needs a 32-byte key');
  }

  static random(): Sealer {
    return new Sealer(randomBytes(32));
  }

  /**
   * A keyed digest (HMAC-SHA256 under a key derived from the sealing key) for values that must be compared
   * later but must not be guessable from what is stored — a plain hash of a 9-digit SSN can be brute-forced.
   */
  mac(data: string): string {
    this.macHmac ??= new KeyedHmac('sha256', createHmac('sha256', this.key).update('payorch mac v1').digest());
    return this.macHmac.digest(data).toString('hex');
  }

  private macHmac?: KeyedHmac;

  /**
   * A secret derived from `subject` (HMAC-SHA512 under a key of its own, derived from the sealing key): the
   * same subject always gives the same secret, and nothing about it needs to be stored.
   */
  derive(purpose: string, subject: string): Buffer {
    let hmac = this.derivedKeys.get(purpose);
    if (!hmac) {
      hmac = new KeyedHmac('sha512', createHmac('sha256', this.key).update(`payorch derive v1 ${purpose}`).digest());
      this.derivedKeys.set(purpose, hmac);
    }
    return hmac.digest(subject);
  }

  private readonly derivedKeys = new Map<string, KeyedHmac>();

  /** `v1.<iv>.<tag>.<ciphertext>` in base64url. */
  seal(plaintext: string): string {
    const iv = secureRandomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join(
      '.',
    );
  }

  /** The same AEAD as `seal`, as bytes: 0x01, iv (12), tag (16), ciphertext — a third smaller than base64 text. */
  sealBytes(plaintext: string): Buffer {
    const iv = secureRandomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = cipher.update(plaintext, 'utf8');
    const last = cipher.final();
    return Buffer.concat([SEALED_BYTES_V1, iv, cipher.getAuthTag(), ct, last]);
  }

  openBytes(sealed: Uint8Array): string {
    const buf = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
    if (buf.length < 29 || buf[0] !== SEALED_BYTES_V1[0]) throw new Error('unrecognised sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, buf.subarray(1, 13));
    decipher.setAuthTag(buf.subarray(13, 29));
    return Buffer.concat([decipher.update(buf.subarray(29)), decipher.final()]).toString('utf8');
  }

  open(sealed: string): string {
    const [version, iv, tag, ct] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unrecognised sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }
}

export const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

/**
 * Constant-time comparison of a MAC as given with the first `bytes` bytes of the MAC as computed (a given MAC
 * of another length never matches).
 */
export function macsEqual(given: Uint8Array, computed: Uint8Array, bytes: number): boolean {
  return given.length === bytes && computed.length >= bytes && timingSafeEqual(given, computed.subarray(0, bytes));
}

/** Constant-time comparison of two secrets (through their hashes, so lengths never leak). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
