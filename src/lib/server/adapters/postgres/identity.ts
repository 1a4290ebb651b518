// The identity area's persistence on PostgreSQL: the vault's tokens, KYC verifications (the same answers as
// adapters/sqlite/identity.ts). The decisions due are claimed by the query that reads them (claim.ts).
import type { StoredToken, VaultPort } from '../../domain/identity/vault.js';
import type { KycPort, StoredKyc } from '../../domain/identity/kyc.js';
import { tables } from '../../store/tables.js';
import type { PostgresDatabase } from './db.js';
import { pgDocuments } from './documents.js';
import { claimDue, docsOf, earliest } from './claim.js';

export function pgVaultStore(store: PostgresDatabase): VaultPort {
  return {
    tokens: pgDocuments<StoredToken>(store, tables.identity_tokens),
    async page(accountId, type, limit, offset) {
      return type
        ? docsOf<StoredToken>(
            store,
            'SELECT data FROM identity_tokens WHERE account_id = $1 AND type = $2 ORDER BY seq DESC LIMIT $3 OFFSET $4',
            [accountId, type, limit, offset],
          )
        : docsOf<StoredToken>(
            store,
            'SELECT data FROM identity_tokens WHERE account_id = $1 ORDER BY seq DESC LIMIT $2 OFFSET $3',
            [accountId, limit, offset],
          );
    },
  };
}

export function pgKycStore(store: PostgresDatabase): KycPort {
  return {
    verifications: pgDocuments<StoredKyc>(store, tables.kyc_verifications),
    async nextDecision(accountId) {
      return earliest(
        store,
        "SELECT MIN(due_ms) AS t FROM kyc_verifications WHERE account_id = $1 AND status = 'processing'",
        accountId,
      );
    },
    async dueDecisions(now, accountId, limit) {
      return claimDue<StoredKyc>(
        store,
        'kyc_verifications',
        "status = 'processing' AND due_ms <= $1",
        now,
        accountId,
        limit,
      );
    },
  };
}
