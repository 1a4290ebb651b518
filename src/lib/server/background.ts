// What a listening server runs beside its requests, on the store in use: the store's background threads, webhook
// deliveries, due work and purges. Stopped and started again around a restore, which replaces the store.
import type { Seeding } from './datadir.js';
import type { OpenEngine } from './adapters/engine.js';
import type { Store } from './store/seam.js';
import type { Services } from './domain/services.js';
import type { FileLogger } from './log.js';
import { VERSION } from './version.js';
import { runSteps } from './store/steps.js';
import { Dispatcher, type DispatcherOptions } from './dispatch/dispatcher.js';
import type { Parts } from './server.js';
import { Started } from './started.js';

/** What the work on the store needs of its server. */
export interface OnStore {
  parts: Parts;
  /** The port the server listens on, and one byte per local port the webhook sender has a connection from. */
  port: number;
  ownPorts: SharedArrayBuffer;
  seeding: Seeding | undefined;
  webhooks: DispatcherOptions | undefined;
  dueWorkIntervalMs: number;
}

/**
 * Starts the work on the store in use now; the list it returns stops it. Unless `backgroundStarted`, it resolves
 * before the store's background threads run (a restore does not hold requests for them).
 */
export async function runOnStore(
  { parts, port, ownPorts, seeding, webhooks, dueWorkIntervalMs }: OnStore,
  { backgroundStarted = true } = {},
): Promise<Started> {
  const { log, services } = parts;
  const on = new Started();
  try {
    const background = storeInBackground(on, parts.engine, parts.opened.store); // the store in use then (a restore replaces it)
    if (backgroundStarted) await background;
    else background.catch((err) => log.logger.error({ err }, "the store's background work did not start"));
    // Webhook deliveries: only a listening server sends them (the embedded default lives for one command; the CLI
    // hands what it leaves to the background server: InProcessServer.pendingDeliveries).
    const dispatcher = new Dispatcher(
      {
        ...services,
        faults: parts.runtime.faults,
        userAgent: `payorch/${VERSION}`,
        own: { port, shared: ownPorts },
        onError: (err) => log.logger.error({ err }, 'webhook dispatch failed'),
        // Seeded: outcomes wait for the account's clock advance in progress (docs/api.md "Deterministic mode").
        advancing: seeding ? (accountId) => services.scheduler.advancing(accountId) : undefined,
      },
      webhooks,
    );
    on.add(() => dispatcher.stop()); // POSTs in flight are aborted; their deliveries stay pending for the next start
    dueWork(on, services, log, dueWorkIntervalMs);
    every(on, 10 * 60_000, () => {
      parts.runtime.idempotency
        .purgeExpired()
        .catch((err) => log.logger.error({ err }, 'purging expired idempotency records failed'));
    });
  } catch (err) {
    await on.stopAll();
    throw err;
  }
  return on;
}

/**
 * The store's background work (the SQLite engine's checkpoints and long reads in worker threads of their own), for as
 * long as the server runs; resolves once it runs (until then the store does that work on this thread, as it does
 * without it).
 */
function storeInBackground(started: Started, engine: OpenEngine<Store>, store: Store): Promise<void> {
  const background = engine.background(store);
  started.add(() => background.stop());
  return background.started;
}

/**
 * Due work (store/steps.ts): every `everyMs`, what came due on every account's clock, in steps that let other
 * requests run between them; one catch-up at a time. Stopping ends the catch-up under way at its next step.
 */
function dueWork(started: Started, services: Services, log: FileLogger, everyMs: number): void {
  if (everyMs <= 0) return;
  let catchingUp: Promise<unknown> | undefined;
  let stopping = false;
  const timer = setInterval(() => {
    // The clocks as the store has them (another process may have advanced one), then what is due on them.
    catchingUp ??= Promise.resolve(services.changes.check())
      .then(() => runSteps(services.store, services.scheduler.catchUp(), () => stopping))
      .catch((err) => log.logger.error({ err }, 'scheduled work failed'))
      .finally(() => (catchingUp = undefined));
  }, everyMs);
  timer.unref();
  started.add(async () => {
    clearInterval(timer);
    stopping = true;
    await catchingUp;
  });
}

/** Calls `fn` every `everyMs` while the server runs. */
export function every(started: Started, everyMs: number, fn: () => void): void {
  const timer = setInterval(fn, everyMs);
  timer.unref();
  started.add(() => clearInterval(timer));
}
