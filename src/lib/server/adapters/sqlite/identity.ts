// The identity area's persistence in SQLite: the vault's tokens, KYC verifications.
import type { StoredToken, VaultPort } from '../../domain/identity/vault.js';
import type { KycPort, StoredKyc } from '../../domain/identity/kyc.js';
import type { SqliteDatabase } from './db.js';
import { asyncDocuments, Collection } from './collection.js';
import { tables } from '../../store/tables.js';

export function sqliteVaultStore(store: SqliteDatabase): VaultPort {
  const tokens = new Collection<StoredToken>(store, tables.identity_tokens);
  return {
    tokens: asyncDocuments(tokens),
    async page(accountId, type, limit, offset) {
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

export function sqliteKycStore(store: SqliteDatabase): KycPort {
  const verifications = new Collection<StoredKyc>(store, tables.kyc_verifications);
  return {
    verifications: asyncDocuments(verifications),
    async nextDecision(accountId) {
      const row = store
        .statement(`SELECT MIN(due_ms) AS t FROM kyc_verifications WHERE account_id = ? AND status = 'processing'`)
        .get(accountId) as { t: number | null };
      return row.t ?? undefined;
    },
    async dueDecisions(now, accountId, limit) {
      return verifications.selectFirst(
        limit,
        `status = 'processing' AND due_ms <= ?${accountId ? ' AND account_id = ?' : ''}`,
        now,
        ...(accountId ? [accountId] : []),
      );
    },
  };
}
