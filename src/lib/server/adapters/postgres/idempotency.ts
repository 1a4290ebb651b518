// PostgreSQL: not written yet (each function is filled in by its own change; see ports.ts).
import type { IdempotencyRecords } from '../../http/idempotency.js';
import type { PostgresStore } from './db.js';

export function pgIdempotencyRecords(_store: PostgresStore): IdempotencyRecords {
  throw new Error('pgIdempotencyRecords: not written yet');
}
