// The SQLite adapter's ports: every area's persistence (domain/ports.ts) over one SQLite store.
import type { StorePorts } from '../../domain/ports.js';
import type { SqliteDatabase } from './db.js';
import { sqliteAccountsStore, sqliteClockStore, sqliteSessionsStore, sqliteTriggerStore } from './core.js';
import { sqlitePaymentsStore } from './payments.js';
import { sqliteKycStore, sqliteVaultStore } from './identity.js';
import { sqliteLedgerStore } from './ledger.js';
import { sqliteBillingStore } from './billing.js';
import { sqliteEventLogStore } from './events.js';
import { sqliteWebhooksStore } from './webhooks.js';

export function sqlitePorts(store: SqliteDatabase): StorePorts {
  return {
    vault: sqliteVaultStore(store),
    accounts: sqliteAccountsStore(store),
    clock: sqliteClockStore(store),
    sessions: sqliteSessionsStore(store),
    triggers: sqliteTriggerStore(store),
    payments: sqlitePaymentsStore(store),
    kyc: sqliteKycStore(store),
    ledger: sqliteLedgerStore(store),
    billing: sqliteBillingStore(store),
    events: sqliteEventLogStore(store),
    webhooks: sqliteWebhooksStore(store),
  };
}
