// PostgreSQL: not written yet (each function is filled in by its own change; see ports.ts).
import type { BillingStore } from '../../domain/billing/store.js';
import type { PostgresStore } from './db.js';

export function pgBillingStore(_store: PostgresStore): BillingStore {
  throw new Error('pgBillingStore: not written yet');
}
