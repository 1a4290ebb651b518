// What every domain area is built on: the store, the clock, the sealer, the event log, cross-area hooks, the
// accounts and the sessions. domain/services.ts makes it and hands it to each area's domain/<area>/area.ts.
import type { ScopedStore } from '../store/scoped.js';
import type { ChangeWatch } from '../store/changes.js';
import type { StorePorts } from './ports.js';
import type { Clock } from '../clock.js';
import type { Sealer } from '../crypto.js';
import type { Accounts } from './accounts.js';
import type { Sessions } from './sessions.js';
import type { Hooks } from './hooks.js';
import type { Events } from './events.js';
import type { RoutingRule } from '../../contract/payments.js';

/** The payments area's server options (`payorch server start --routing FILE --psp-down ID`). */
export interface PaymentsConfig {
  /** Replaces the default routing rules. */
  routing?: RoutingRule[];
  /** Processors marked down at start. */
  pspDown?: string[];
}

export interface ServerConfig {
  /** Routing rules and processors down at start (payments area). */
  payments?: PaymentsConfig;
  /** The server's base URL now: links to its hosted pages are made from it on every read (links.ts). */
  publicUrl: () => string;
  /** The time under the accounts' clocks (ms): the machine's clock, or a seeded server's fixed epoch (seed.ts). */
  now?: () => number;
}

export interface CoreServices {
  store: ScopedStore;
  /** Each area's persistence (domain/ports.ts). */
  ports: StorePorts;
  clock: Clock;
  sealer: Sealer;
  hooks: Hooks;
  /** The event log: every area records its changes here, in the change's transaction. */
  events: Events;
  config: ServerConfig;
  /**
   * Writes of other connections (another server process, a command on the same data directory), noticed:
   * authentication looks once per event-loop turn, and the accounts' keys and clocks are read again after one.
   */
  changes: ChangeWatch;
  accounts: Accounts;
  sessions: Sessions;
}
