// What the domain asks of its storage: one port per area, each declared beside the rules that use it, in the
// domain's own words (a token stored, a page of tokens read). An engine's adapter implements every port
// (adapters/sqlite/ports.ts); domain/services.ts hands each area its own.
import type { VaultPort } from './identity/vault.js';
import type { AccountsPort } from './accounts.js';
import type { ClockPort } from '../clock.js';
import type { SessionsPort } from './sessions.js';
import type { PaymentsPort } from './payments/persistence.js';
import type { KycPort } from './identity/kyc.js';
import type { LedgerPort } from './ledger/port.js';
import type { BillingPort } from './billing/store.js';
import type { EventLogPort, TriggerPort } from './events.js';
import type { WebhooksPort } from './webhooks/persistence.js';

export interface StorePorts {
  vault: VaultPort;
  accounts: AccountsPort;
  clock: ClockPort;
  sessions: SessionsPort;
  triggers: TriggerPort;
  payments: PaymentsPort;
  kyc: KycPort;
  ledger: LedgerPort;
  billing: BillingPort;
  events: EventLogPort;
  webhooks: WebhooksPort;
}
