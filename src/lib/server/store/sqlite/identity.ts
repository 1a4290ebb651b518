// The identity area's persistence in SQLite: the vault's tokens.
import type { StoredToken, VaultStore } from '../../domain/identity/vault.js';
import type { SqliteStore } from './db.js';
import { Collection } from './collection.js';
import { tables } from './tables.js';

export function sqliteVaultStore(store: SqliteStore): VaultStore {
  const tokens = new Collection<StoredToken>(store, tables.identity_tokens);
  return {
    tokens,
    page(accountId, type, limit, offset) {
      const rows = (
        type
          ? store
              .statement(
                'SELECT data FROM identity_tokens WHERE account_id = ? AND type = ? ORDER BY seq DESC LIMIT ? OFFSET ?',
              )
              .all(accountId, type, limit, offset)
          : store
              .statement('SELECT data FROM identity_tokens WHERE account_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?')
              .all(accountId, limit, offset)
      ) as { data: string }[];
      return rows.map((r) => JSON.parse(r.data) as StoredToken);
    },
  };
}
