// Merchant accounts and their API keys. Keys are stored as SHA-256 hashes; each key belongs to one account.
import type { Store } from '../store/seam.js';
import { ChangeWatch } from '../store/changes.js';
import { newApiKey, newId } from '../ids.js';
import { sha256 } from '../crypto.js';
import { errors } from '../errors.js';

export interface ApiKeyInfo {
  id: string;
  account_id: string;
  /** `sk_test_…abcd` — never the whole key. */
  masked: string;
  created_at: string;
  revoked_at: string | null;
}

/** An API key as stored: its hash is kept beside it, never returned. */
export interface KeyRow {
  id: string;
  account_id: string;
  last4: string;
  created_ms: number;
  revoked_ms: number | null;
}

/** What authentication reads of a key found by its hash. */
export type KeyFacts = Pick<KeyRow, 'id' | 'account_id' | 'revoked_ms'>;

/** What the accounts keep: the accounts, and their keys found by the SHA-256 hash of the key or by the key's id. */
export interface AccountsPort {
  /** The key whose hash is `hash` (revoked or not): authentication's lookup, on every request's path. */
  keyFacts(hash: string): Promise<KeyFacts | undefined>;
  /**
   * A number that moves whenever another connection (another process) has written to the store since: keys
   * remembered in memory may be stale then.
   */
  changeMark(): Promise<number>;
  /** Stores a new account. */
  addAccount(accountId: string, createdMs: number): Promise<void>;
  /** Stores the account unless it exists. */
  keepAccount(accountId: string, createdMs: number): Promise<void>;
  /** Stores a new, active key under `hash`. */
  addKey(key: Omit<KeyRow, 'revoked_ms'>, hash: string): Promise<void>;
  /** The account of the key whose hash is `hash`, if there is one. */
  keyAccount(hash: string): Promise<string | undefined>;
  /** Makes the key whose hash is `hash` active again (no longer revoked). */
  unrevokeKey(hash: string): Promise<void>;
  /** Every key, oldest first (by creation time, then id). */
  keys(): Promise<KeyRow[]>;
  /** The key whose hash is `hash`. */
  keyByHash(hash: string): Promise<KeyRow | undefined>;
  /** The key whose id is `id`. */
  keyById(id: string): Promise<KeyRow | undefined>;
  /** Marks the key revoked at `revokedMs`. */
  revokeKey(id: string, revokedMs: number): Promise<void>;
}

const info = (r: KeyRow): ApiKeyInfo => ({
  id: r.id,
  account_id: r.account_id,
  masked: `sk_test_…${r.last4}`,
  created_at: new Date(r.created_ms).toISOString(),
  revoked_at: r.revoked_ms === null ? null : new Date(r.revoked_ms).toISOString(),
});

export class Accounts {
  /**
   * Active keys already looked up, by the key itself (never persisted). Emptied when this process revokes a
   * key, and whenever another connection has written to the database (AccountsPort.changeMark moved, `changes`:
   * e.g. a `payorch server keys revoke` run against the same data directory): no hash and select per request.
   */
  private readonly active = new Map<string, { id: string; account_id: string }>();

  /**
   * `now`: when keys are created and revoked (the machine's clock; a seeded server's fixed epoch, seed.ts).
   * `changes`: looked at by `authenticate` (once per event-loop turn), for every value kept in memory it guards
   * (the server's: domain/services.ts).
   */
  constructor(
    private readonly store: Store,
    private readonly stored: AccountsPort,
    private readonly now: () => number = Date.now,
    private readonly changes: ChangeWatch = new ChangeWatch(() => stored.changeMark()),
  ) {
    changes.onChange(() => this.active.clear());
  }

  /** A new account with its first key. The plaintext key is returned once and never stored. */
  createAccountWithKey(): Promise<{ account_id: string; api_key: string; key: ApiKeyInfo }> {
    return this.store.tx(async () => {
      const accountId = newId('acct');
      await this.stored.addAccount(accountId, this.now());
      const { api_key, key } = await this.addKey(accountId);
      return { account_id: accountId, api_key, key };
    });
  }

  /** True when `apiKey` exists and is not revoked. */
  async isActive(apiKey: string): Promise<boolean> {
    const row = await this.stored.keyFacts(sha256(apiKey));
    return row !== undefined && row.revoked_ms === null;
  }

  /** The id (`key_…`) of key `apiKey`, or undefined when there is no such key. */
  async keyIdOf(apiKey: string): Promise<string | undefined> {
    return (await this.stored.keyFacts(sha256(apiKey)))?.id;
  }

  /** A further key for an existing account (printed once, stored hashed). */
  async addKey(accountId: string): Promise<{ api_key: string; key: ApiKeyInfo }> {
    const apiKey = newApiKey();
    const row: KeyRow = {
      id: newId('key'),
      account_id: accountId,
      last4: apiKey.slice(-4),
      created_ms: this.now(),
      revoked_ms: null,
    };
    await this.stored.addKey(row, sha256(apiKey));
    return { api_key: apiKey, key: info(row) };
  }

  /**
   * Makes `apiKey` an active key of account `accountId` again: the account and the key are added if missing, the
   * key un-revoked if revoked. After a snapshot is restored, the key the CLI uses for the data directory (its
   * default key) keeps working whatever the snapshot held (docs/api.md "Snapshots").
   */
  async keepKey(accountId: string, apiKey: string): Promise<void> {
    await this.store.tx(async () => {
      await this.stored.keepAccount(accountId, this.now());
      const hash = sha256(apiKey);
      if ((await this.stored.keyAccount(hash)) === undefined) {
        await this.stored.addKey(
          { id: newId('key'), account_id: accountId, last4: apiKey.slice(-4), created_ms: this.now() },
          hash,
        );
      } else await this.stored.unrevokeKey(hash);
    });
    this.active.clear();
  }

  async listKeys(): Promise<ApiKeyInfo[]> {
    return (await this.stored.keys()).map(info);
  }

  /** Revokes by key id (`key_…`) or by the key itself. */
  async revoke(idOrKey: string): Promise<ApiKeyInfo> {
    const row = idOrKey.startsWith('sk_')
      ? await this.stored.keyByHash(sha256(idOrKey))
      : await this.stored.keyById(idOrKey);
    if (!row) throw errors.notFound('api key', idOrKey.startsWith('sk_') ? `sk_test_…${idOrKey.slice(-4)}` : idOrKey);
    if (row.revoked_ms === null) {
      row.revoked_ms = this.now();
      await this.stored.revokeKey(row.id, row.revoked_ms);
      this.active.clear();
    }
    return info(row);
  }

  /** The account a bearer key authenticates, or the 401 that explains why not (docs/api.md "Errors", "Authentication and tenancy"). */
  async authenticate(token: string | undefined): Promise<{ accountId: string; keyId: string }> {
    if (!token)
      throw errors.authentication('missing_api_key', 'No API key provided. Send `Authorization: Bearer sk_test_...`.');
    if (token.startsWith('sk_live_')) {
      throw errors.authentication(
        'livemode_unavailable',
        'Live keys (sk_live_...) are not accepted by the local test-mode server. Use an sk_test_ key.',
      );
    }
    // Once per event-loop turn (ChangeWatch.check): the keys, and the clocks, as another connection left them.
    const looking = this.changes.check();
    if (looking) await looking;
    const known = this.active.get(token);
    if (known) return { accountId: known.account_id, keyId: known.id };
    const row = token.startsWith('sk_test_') ? await this.stored.keyFacts(sha256(token)) : undefined;
    if (!row)
      throw errors.authentication(
        'invalid_api_key',
        `Invalid API key provided: ${token.startsWith('sk_') ? token.slice(0, 8) : ''}…${token.length > 12 ? token.slice(-4) : ''}`,
      );
    if (row.revoked_ms !== null) throw errors.authentication('api_key_revoked', 'This API key has been revoked.');
    if (this.active.size >= 1000) this.active.clear();
    this.active.set(token, { id: row.id, account_id: row.account_id });
    return { accountId: row.account_id, keyId: row.id };
  }
}
