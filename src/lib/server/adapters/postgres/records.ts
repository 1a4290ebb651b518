// PostgreSQL: not written yet (each function is filled in by its own change; see ports.ts).
import type { ServerRecords } from '../engine.js';
import type { PostgresStore } from './db.js';

export function pgServerRecords(_store: PostgresStore): ServerRecords {
  throw new Error('pgServerRecords: not written yet');
}
