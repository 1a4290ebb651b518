// PostgreSQL: not written yet (each function is filled in by its own change; see ports.ts).
import type { LedgerStore } from '../../domain/ledger/ledger.js';
import type { PostgresStore } from './db.js';

export function pgLedgerStore(_store: PostgresStore): LedgerStore {
  throw new Error('pgLedgerStore: not written yet');
}
