// Migrations of the ledger area. Versions: payments 100–199, billing 200–299, ledger 300–399, identity/KYC 400–499.
import type { Migration } from '../migrations.js';

export const ledgerMigrations: Migration[] = [];
