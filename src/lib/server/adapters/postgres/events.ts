// PostgreSQL: not written yet (each function is filled in by its own change; see ports.ts).
import type { EventLogStore } from '../../domain/events.js';
import type { PostgresStore } from './db.js';

export function pgEventLogStore(_store: PostgresStore): EventLogStore {
  throw new Error('pgEventLogStore: not written yet');
}
