// Idempotency keys (docs/api.md "Idempotency"): scope (account, key), 24 h, replay with `Idempotent-Replayed: true`,
// reuse with another request → 400, a key whose first request is still running → 409.
// The record is written in the same transaction as the operation's own writes, so a crash can never leave
// an acknowledged write without its replayable response, nor a response without its write.
import type { Store } from '../store/seam.js';
import { errors, ServiceError } from '../errors.js';
import { IDEMPOTENCY_KEY_LENGTH } from '../../contract/limits.js';
import { DAY_MS } from '../../contract/time.js';

export const IDEMPOTENCY_TTL_MS = DAY_MS;
/** Records looked at (and deleted) per purge step. */
const PURGE_CHUNK = 1000;
/** An in-progress record older than this is taken to be from a process that died mid-request. */
const ABANDONED_AFTER_MS = 60_000;

export interface StoredResponse {
  status: number;
  body: string;
  replayed: boolean;
}

/** An idempotency record as stored: one per (account, key). */
export interface IdempotencyRecord {
  fingerprint: string;
  state: 'in_progress' | 'done';
  status: number | null;
  /** Sealed bytes (sealBytes); older records: sealed text (seal) or plain JSON. */
  body: Buffer | string | null;
  created_ms: number;
}

/**
 * Where the idempotency records are kept. Every method runs in the caller's transaction (the request's, so that the
 * record commits with the operation's own writes). Records are numbered in the order they were created (`seq`).
 */
export interface IdempotencyRecords {
  /** The record of (account, key), if any. */
  find(accountId: string, key: string): Promise<IdempotencyRecord | undefined>;
  /**
   * Writes the record of (account, key), replacing the one there in place (same `seq`); a key with no record gets a
   * new one, the newest.
   */
  save(accountId: string, key: string, record: IdempotencyRecord & { owner: string }): Promise<void>;
  /** Deletes the record of (account, key), if any. */
  forget(accountId: string, key: string): Promise<void>;
  /** The `limit` oldest records' `seq` and creation time, oldest first. */
  oldest(limit: number): Promise<{ seq: number; created_ms: number }[]>;
  /** Deletes every record up to `seq` (included); how many there were. */
  forgetUpTo(seq: number): Promise<number>;
}

const INDEX_KEY = /^(?:0|[1-9]\d{0,9})$/;
const isIndexKey = (k: string) => INDEX_KEY.test(k) && Number(k) < 4294967295;

/**
 * JSON with object keys sorted — the same text as JSON.stringify of a copy built from the sorted keys (so
 * fingerprints stored by earlier versions still match), without building the copy. A JavaScript object lists
 * array-index keys ("0", "12") first in numeric order, then the others in insertion order.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  const indexKeys = keys.filter(isIndexKey);
  const ordered = indexKeys.length
    ? [...indexKeys.sort((a, b) => Number(a) - Number(b)), ...keys.filter((k) => !isIndexKey(k))]
    : keys;
  let out = '';
  for (const k of ordered) {
    const v = obj[k];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    out += `${out ? ',' : ''}${JSON.stringify(k)}:${canonicalJson(v)}`;
  }
  return `{${out}}`;
}

/**
 * What identifies "the same request" under one key. Keyed (`mac`, an HMAC under the data directory's
 * secret): bodies can hold vault values or account numbers, and a plain hash of a short number could be
 * reversed by trying every value.
 */
export function fingerprint(mac: (data: string) => string, method: string, path: string, body: unknown): string {
  return mac(`${method} ${path}\n${canonicalJson(body ?? {})}`);
}

/** Whether a failure is the operation's recorded outcome (replayed later) or a request that never ran. */
export function isSavedOutcome(err: ServiceError): boolean {
  if (err.status === 402 || err.status === 404 || err.status === 409) return true;
  return err.status === 400 && err.type === 'invalid_request_error';
}

export class IdempotencyKeys {
  /**
   * `sealer` encrypts the saved responses at rest: they can hold secrets (create-session answers carry the
   * session's client_secret). Records written before sealing (plain JSON) still replay.
   */
  constructor(
    private readonly store: Store,
    private readonly records: IdempotencyRecords,
    private readonly owner: string,
    private readonly now: () => number = Date.now,
    private readonly sealer?: {
      sealBytes(plaintext: string): Buffer;
      openBytes(sealed: Uint8Array): string;
      open(sealed: string): string;
    },
  ) {}

  static validateKey(key: string): void {
    if (key.length < IDEMPOTENCY_KEY_LENGTH.min || key.length > IDEMPOTENCY_KEY_LENGTH.max) {
      throw errors.parameterInvalid(
        'Idempotency-Key',
        `must be ${IDEMPOTENCY_KEY_LENGTH.min} to ${IDEMPOTENCY_KEY_LENGTH.max} characters`,
      );
    }
  }

  /**
   * Inside a transaction: the earlier outcome for this key (replay), a conflict, or undefined when the
   * request should run. Expired records are ignored.
   */
  async lookup(accountId: string, key: string, fp: string): Promise<StoredResponse | undefined> {
    const row = await this.records.find(accountId, key);
    if (!row) return undefined;
    const age = this.now() - row.created_ms;
    if (age >= IDEMPOTENCY_TTL_MS) {
      // The key is free again; the new record is a new one, so records stay in the order of their creation (purge).
      await this.records.forget(accountId, key);
      return undefined;
    }
    if (row.fingerprint !== fp) {
      throw errors.invalidRequest(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request (method, path or body). Use a new key for a new request.',
      );
    }
    if (row.state === 'in_progress') {
      if (age < ABANDONED_AFTER_MS) {
        throw errors.conflict(
          'idempotency_key_in_use',
          'A request with this Idempotency-Key is still being processed. Retry after it finishes.',
        );
      }
      await this.records.forget(accountId, key);
      return undefined;
    }
    const stored = row.body!;
    const body =
      typeof stored !== 'string'
        ? this.sealer!.openBytes(stored)
        : this.sealer && !stored.startsWith('{')
          ? this.sealer.open(stored)
          : stored;
    return { status: row.status!, body, replayed: true };
  }

  /** `sealed: false` for a body that holds no secret (RouteSpec.saved): kept as JSON text. */
  async save(accountId: string, key: string, fp: string, status: number, body: string, sealed = true): Promise<void> {
    await this.records.save(accountId, key, {
      fingerprint: fp,
      state: 'done',
      owner: this.owner,
      status,
      body: this.sealer && sealed ? this.sealer.sealBytes(body) : body,
      created_ms: this.now(),
    });
  }

  /** For requests that await between transactions: mark the key taken before the work starts. */
  async claim(accountId: string, key: string, fp: string): Promise<void> {
    await this.records.save(accountId, key, {
      fingerprint: fp,
      state: 'in_progress',
      owner: this.owner,
      status: null,
      body: null,
      created_ms: this.now(),
    });
  }

  async release(accountId: string, key: string): Promise<void> {
    await this.records.forget(accountId, key);
  }

  /**
   * Deletes expired records from the oldest on. Records are in the order they were created (`seq`; a reused key
   * gets a new record, see lookup), so the scan stops at the first one still valid and needs no index on
   * created_ms (migration 901 dropped it: one index entry less per write).
   * A record kept a little longer behind a younger one (claim, then save) is still never replayed once expired.
   */
  async purgeExpired(): Promise<number> {
    const cutoff = this.now() - IDEMPOTENCY_TTL_MS;
    let purged = 0;
    for (;;) {
      const rows = await this.records.oldest(PURGE_CHUNK);
      let upTo: number | undefined;
      for (const r of rows) {
        if (r.created_ms >= cutoff) break;
        upTo = r.seq;
      }
      if (upTo === undefined) return purged;
      purged += await this.store.alone(() => this.records.forgetUpTo(upTo));
      if (upTo !== rows[rows.length - 1]!.seq) return purged;
    }
  }
}
