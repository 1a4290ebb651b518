// PostgreSQL: not written yet (each function is filled in by its own change; see ports.ts).
import type { VaultStore } from '../../domain/identity/vault.js';
import type { KycStore } from '../../domain/identity/kyc.js';
import type { PostgresStore } from './db.js';

export function pgVaultStore(_store: PostgresStore): VaultStore {
  throw new Error('pgVaultStore: not written yet');
}

export function pgKycStore(_store: PostgresStore): KycStore {
  throw new Error('pgKycStore: not written yet');
}
