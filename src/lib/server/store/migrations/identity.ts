// Migrations of the identity area. Versions: payments 100–199, billing 200–299, ledger 300–399, identity/KYC 400–499.
import type { Migration } from '../migrations.js';
import { documentTable } from '../db.js';

export const identityMigrations: Migration[] = [
  {
    version: 400,
    name: 'identity vault tokens (values sealed), KYC verifications',
    sql: [
      documentTable('identity_tokens', { type: 'TEXT NOT NULL' }, [['type']]),
      documentTable('kyc_verifications', { status: 'TEXT NOT NULL', customer_id: 'TEXT NOT NULL', due_ms: 'INTEGER' }, [['status'], ['customer_id']]),
      'CREATE INDEX kyc_verifications_due ON kyc_verifications (account_id, status, due_ms);',
    ].join('\n'),
  },
];
