// PostgreSQL: not written yet (each function is filled in by its own change; see ports.ts).
import type { WebhooksStore } from '../../domain/webhooks/persistence.js';
import type { PostgresStore } from './db.js';

export function pgWebhooksStore(_store: PostgresStore): WebhooksStore {
  throw new Error('pgWebhooksStore: not written yet');
}
