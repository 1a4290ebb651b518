// The PostgreSQL adapter's ports: every area's persistence (domain/ports.ts) over one PostgreSQL store.
import type { StorePorts } from '../../domain/ports.js';
import type { PostgresDatabase } from './db.js';
import { pgAccountsStore, pgClockStore, pgSessionsStore, pgTriggerStore } from './core.js';
import { pgPaymentsStore } from './payments.js';
import { pgKycStore, pgVaultStore } from './identity.js';
import { pgLedgerStore } from './ledger.js';
import { pgBillingStore } from './billing.js';
import { pgEventLogStore } from './events.js';
import { pgWebhooksStore } from './webhooks.js';

export function postgresPorts(store: PostgresDatabase): StorePorts {
  return {
    vault: pgVaultStore(store),
    accounts: pgAccountsStore(store),
    clock: pgClockStore(store),
    sessions: pgSessionsStore(store),
    triggers: pgTriggerStore(store),
    payments: pgPaymentsStore(store),
    kyc: pgKycStore(store),
    ledger: pgLedgerStore(store),
    billing: pgBillingStore(store),
    events: pgEventLogStore(store),
    webhooks: pgWebhooksStore(store),
  };
}
