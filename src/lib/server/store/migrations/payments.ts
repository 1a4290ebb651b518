// Migrations of the payments area. Versions: payments 100–199, billing 200–299, ledger 300–399, identity/KYC 400–499.
import type { Migration } from '../migrations.js';
import { documentTable } from '../db.js';

export const paymentsMigrations: Migration[] = [
  {
    version: 100,
    name: 'payments: payments, vault tokens, network tokens, bank accounts',
    sql: [
      documentTable('payments', { session_id: 'TEXT', status: 'TEXT NOT NULL', settle_ms: 'INTEGER' }, [['session_id'], ['status']]),
      'CREATE INDEX payments_settle ON payments (account_id, status, settle_ms);',
      documentTable('vault_tokens'),
      documentTable('network_tokens'),
      documentTable('bank_accounts', { customer_id: 'TEXT', verification_status: 'TEXT NOT NULL' }, [['customer_id'], ['verification_status']]),
    ].join('\n'),
  },
];
