// PostgreSQL: not written yet (each function is filled in by its own change; see ports.ts).
import type { AccountsStore } from '../../domain/accounts.js';
import type { ClockStore } from '../../clock.js';
import type { SessionsStore } from '../../domain/sessions.js';
import type { TriggerStore } from '../../domain/events.js';
import type { PostgresStore } from './db.js';

export function pgAccountsStore(_store: PostgresStore): AccountsStore {
  throw new Error('pgAccountsStore: not written yet');
}

export function pgClockStore(_store: PostgresStore): ClockStore {
  throw new Error('pgClockStore: not written yet');
}

export function pgSessionsStore(_store: PostgresStore): SessionsStore {
  throw new Error('pgSessionsStore: not written yet');
}

export function pgTriggerStore(_store: PostgresStore): TriggerStore {
  throw new Error('pgTriggerStore: not written yet');
}
