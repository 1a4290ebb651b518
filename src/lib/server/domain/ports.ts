// What the domain asks of its storage: one port per area, each declared beside the rules that use it, in the
// domain's own words (a token stored, a page of tokens read). An engine's adapter implements every port
// (adapters/sqlite/ports.ts); domain/services.ts hands each area its own.
import type { VaultStore } from './identity/vault.js';
import type { AccountsStore } from './accounts.js';
import type { ClockStore } from '../clock.js';
import type { SessionsStore } from './sessions.js';
import type { PaymentsStore } from './payments/persistence.js';
import type { KycStore } from './identity/kyc.js';
import type { LedgerStore } from './ledger/port.js';
import type { BillingStore } from './billing/store.js';
import type { EventLogStore, TriggerStore } from './events.js';
import type { WebhooksStore } from './webhooks/persistence.js';

export interface StorePorts {
  vault: VaultStore;
  accounts: AccountsStore;
  clock: ClockStore;
  sessions: SessionsStore;
  triggers: TriggerStore;
  payments: PaymentsStore;
  kyc: KycStore;
  ledger: LedgerStore;
  billing: BillingStore;
  events: EventLogStore;
  webhooks: WebhooksStore;
}
