// Migrations of the ledger area. Versions: payments 100–199, billing 200–299, ledger 300–399, identity/KYC 400–499.
import type { Migration } from '../migrations.js';
import { documentTable } from '../db.js';

export const ledgerMigrations: Migration[] = [
  {
    version: 300,
    name: 'ledger: accounts, journal entries, entries, holds, account events',
    sql: [
      documentTable(
        'ledger_accounts',
        {
          status: 'TEXT NOT NULL',
          customer_id: 'TEXT',
          currency: 'TEXT NOT NULL',
          account_number: 'TEXT NOT NULL',
          system_key: 'TEXT',
          balance: 'INTEGER NOT NULL',
          pending: 'INTEGER NOT NULL',
        },
        [['status'], ['customer_id'], ['currency']],
      ),
      'CREATE UNIQUE INDEX ledger_accounts_number ON ledger_accounts (account_id, account_number);',
      'CREATE UNIQUE INDEX ledger_accounts_system ON ledger_accounts (account_id, system_key) WHERE system_key IS NOT NULL;',
      documentTable('journal_entries', { currency: 'TEXT NOT NULL', reverses: 'TEXT' }),
      'CREATE UNIQUE INDEX journal_entries_reverses ON journal_entries (account_id, reverses) WHERE reverses IS NOT NULL;',
      documentTable(
        'ledger_entries',
        {
          ledger_account_id: 'TEXT NOT NULL',
          journal_entry_id: 'TEXT NOT NULL',
          direction: "TEXT NOT NULL CHECK (direction IN ('debit', 'credit'))",
          amount: 'INTEGER NOT NULL CHECK (amount > 0)',
          delta: 'INTEGER NOT NULL',
          currency: 'TEXT NOT NULL',
        },
        [['ledger_account_id']],
      ),
      documentTable('ledger_holds', { ledger_account_id: 'TEXT NOT NULL', status: 'TEXT NOT NULL', expires_ms: 'INTEGER' }, [['ledger_account_id'], ['ledger_account_id', 'status']]),
      'CREATE INDEX ledger_holds_due ON ledger_holds (account_id, status, expires_ms);',
      documentTable('ledger_account_events', { ledger_account_id: 'TEXT NOT NULL' }, [['ledger_account_id']]),
    ].join('\n'),
  },
];
