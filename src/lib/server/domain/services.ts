// The domain's composition: everything a route handler can reach of the domain — the store, the clock, the
// sealer, cross-area hooks, and one object per domain area. Each area builds its own services in
// domain/<area>/area.ts. What serves HTTP (idempotency, rate limits, the request log) is composed beside it, in
// http/runtime.ts.
import type { Store } from '../store/seam.js';
import { ChangeWatch } from '../store/changes.js';
import { ScopedStore } from '../store/scoped.js';
import { AccountClock } from '../clock.js';
import type { Sealer } from '../crypto.js';
import { Accounts } from './accounts.js';
import { Sessions } from './sessions.js';
import { Scheduler } from './due.js';
import { Hooks } from './hooks.js';
import { Events } from './events.js';
import { createPaymentsArea, type PaymentsArea } from './payments/area.js';
import { createBillingArea, type BillingArea } from './billing/area.js';
import { createLedgerArea, type LedgerArea } from './ledger/area.js';
import { createIdentityArea, type IdentityArea } from './identity/area.js';
import { createWebhooksArea, type WebhooksArea } from './webhooks/area.js';
import type { CoreServices, ServerConfig } from './core.js';
import type { StorePorts } from './ports.js';

export interface Services extends CoreServices, PaymentsArea, BillingArea, LedgerArea, IdentityArea, WebhooksArea {
  scheduler: Scheduler;
}

/**
 * The domain over `engineStore`, its accounts' clocks read (AccountClock.load): ready for the first request. The
 * engine's store is given a frame per transaction (store/scoped.ts) unless the composition root did (a seeded
 * server's on PostgreSQL, in turn): `services.store` is that ScopedStore, and every transaction of the domain is
 * opened through it.
 */
export async function createServices(
  engineStore: Store,
  ports: StorePorts,
  sealer: Sealer,
  config: ServerConfig,
): Promise<Services> {
  const store = engineStore instanceof ScopedStore ? engineStore : new ScopedStore(engineStore);
  const changes = new ChangeWatch(() => ports.accounts.changeMark());
  // The mark first, then the offsets: a write of another connection in between moves the mark again.
  await changes.start();
  const clock = new AccountClock(store, ports.clock, config.now, changes);
  await clock.load();
  const events = new Events(store, ports.events, clock);
  const hooks = new Hooks();
  const core: CoreServices = {
    store,
    ports,
    clock,
    sealer,
    hooks,
    events,
    config,
    changes,
    accounts: new Accounts(store, ports.accounts, config.now, changes),
    sessions: new Sessions(ports.sessions, sealer, events, hooks, config.publicUrl),
  };
  // Ledger first: it subscribes to payment events that the payments and billing areas emit.
  const ledger = createLedgerArea(core);
  const identity = createIdentityArea(core);
  const payments = await createPaymentsArea(core);
  const billing = createBillingArea({ ...core, ...payments.area });
  const webhooks = createWebhooksArea(core);
  const due = [
    core.events,
    core.sessions,
    ...payments.due,
    ...billing.due,
    ...ledger.due,
    ...identity.due,
    webhooks.area.webhooks.deliveries,
    webhooks.area.webhooks.listeners,
  ];
  const scheduler = new Scheduler(store, clock, due);
  core.hooks.on('dueNow', (accountId) => scheduler.wake(accountId));
  return { ...core, ...ledger.area, ...identity.area, ...payments.area, ...billing.area, ...webhooks.area, scheduler };
}
