// PostgreSQL: not written yet (each function is filled in by its own change; see ports.ts).
import type { PaymentsStore } from '../../domain/payments/persistence.js';
import type { PostgresStore } from './db.js';

export function pgPaymentsStore(_store: PostgresStore): PaymentsStore {
  throw new Error('pgPaymentsStore: not written yet');
}
