// The server assembled, whichever way it runs (listening.ts, embedded.ts): the data directory's or the shared
// database's store, the log, the domain's services and the app over them. A composition root: it picks the adapter.
import { join } from 'node:path';
import { buildApp } from './app.js';
import { LOG_FILE, openDataDir, ensureDir, forgetDatabase, type Seeding } from './datadir.js';
import { SeedError, seededStore } from './seed.js';
import { sqliteEngine } from './adapters/sqlite/engine.js';
import type { OpenEngine } from './adapters/engine.js';
import type { Store } from './store/seam.js';
import { createServices } from './domain/services.js';
import type { PaymentsConfig, ServerConfig } from './domain/core.js';
import { DEFAULT_RATE_LIMITS, type RateLimitConfig } from './http/ratelimit.js';
import { createHttpRuntime } from './http/runtime.js';
import type { Gate } from './http/gate.js';
import type { SnapshotAdmin } from './http/snapshots.js';
import { DEFAULT_TIMEOUTS, type Timeouts } from './http/fastify.js';
import { fileLogger, type FileLogger } from './log.js';
import { VERSION } from './version.js';
import { openShared, sharedHttpState, type SharedDatabase } from './shared-database.js';
import type { Started } from './started.js';

/**
 * The data directory's store and log, the domain's services and the app over them. The store closes and the
 * log is written out when `started` stops; the app is the caller's to close (it may never have listened).
 */
export async function assemble(
  started: Started,
  dataDir: string | null,
  memory: boolean,
  limits: Limits | undefined,
  publicUrl: () => string,
  payments: PaymentsConfig = {},
  timeouts?: Partial<Timeouts>,
  ownPorts?: Uint8Array,
  seeding?: Seeding,
  listening?: { gate: Gate; snapshots: SnapshotAdmin },
  shared?: SharedDatabase,
) {
  const parts = await openParts(started, dataDir, memory, limits, publicUrl, payments, seeding, shared);
  const app = await appOf(parts, publicUrl, { timeouts, ownPorts, ...listening });
  return { ...parts, app };
}

/** The rate limits a server starts with, and the clock their windows are read from. */
type Limits = Partial<RateLimitConfig> & { clock?: () => number };

/** `assemble` but the app. */
export async function openParts(
  started: Started,
  dataDir: string | null,
  memory: boolean,
  limits: Limits | undefined,
  publicUrl: () => string,
  payments: PaymentsConfig = {},
  seeding?: Seeding,
  shared?: SharedDatabase,
) {
  if (dataDir) ensureDir(dataDir);
  oneSeededServer(started, seeding !== undefined);
  const { engine, opened, raw } = shared
    ? await openShared(started, shared, dataDir, seeding)
    : {
        engine: sqliteEngine as OpenEngine<Store>,
        opened: await openDataDir(sqliteEngine, memory ? null : dataDir, seeding),
      };
  if (!shared) started.add(() => opened.store.close()); // the store in use then (a restore replaces it)
  // The directory's commands (`server keys …`) then open its SQLite file, not the database of an earlier start.
  if (!shared && dataDir) forgetDatabase(dataDir);
  started.add(() => opened.unseed?.());
  if (!seeding && (await seededStore(engine.records(opened.store)))) {
    throw new SeedError(
      shared
        ? `The database ${shared.where} was made by a seeded server: start it with the same --seed (\`payorch server start --seed N\`), or use another database.`
        : `The data directory ${dataDir} was made by a seeded server: start it with the same --seed (\`payorch server start --seed N\`), or reset it.`,
    );
  }
  const log = fileLogger(dataDir ? join(dataDir, LOG_FILE) : null);
  started.add(() => drainLog(log)); // the log file opens asynchronously: written out before the directory may go
  const config: ServerConfig = { payments, publicUrl, now: seeding?.now };
  const services = await createServices(opened.store, engine.ports(opened.store), opened.sealer, config);
  const { clock, ...given } = limits ?? {};
  const runtime = createHttpRuntime(
    opened.store,
    engine.idempotency(opened.store),
    opened.sealer,
    { ...DEFAULT_RATE_LIMITS, ...stripUndefined(given) },
    clock,
    raw?.shared ? await sharedHttpState(started, raw, () => services.changes, log) : undefined,
  );
  return { engine, opened, config, log, services, runtime, shared, raw };
}

/** What `openParts` opened: the store and its engine, the log, the services and the HTTP runtime. */
export type Parts = Awaited<ReturnType<typeof openParts>>;

/** The app over `parts`: every route, or those `only` lets through (the in-process server's). */
export function appOf(
  { services, runtime, log }: Parts,
  publicUrl: () => string,
  {
    timeouts,
    ownPorts,
    gate,
    snapshots,
    only,
  }: {
    timeouts?: Partial<Timeouts>;
    ownPorts?: Uint8Array;
    gate?: Gate;
    snapshots?: SnapshotAdmin;
    only?: (url: string) => boolean;
  },
) {
  return buildApp({
    services,
    runtime,
    logger: log.logger,
    accessLog: log.access,
    publicUrl,
    version: VERSION,
    timeouts: { ...DEFAULT_TIMEOUTS, ...stripUndefined(timeouts ?? {}) },
    ownPorts,
    gate,
    snapshots,
    only,
  });
}

/** Servers of this process open now, and whether one is seeded: a seeded server's streams are the process's (ids.ts). */
const thisProcess = { open: 0, seeded: false };

/** Refuses a seeded server beside any other server of this process, and any server beside a seeded one. */
function oneSeededServer(started: Started, seeded: boolean): void {
  if (thisProcess.seeded || (seeded && thisProcess.open > 0)) {
    throw new SeedError(
      'A seeded server needs its process to itself (ids are drawn from one stream per process): close the other server of this process first, or start it in a process of its own.',
    );
  }
  thisProcess.open++;
  thisProcess.seeded = seeded;
  started.add(() => {
    thisProcess.open--;
    if (seeded) thisProcess.seeded = false;
  });
}

/**
 * Waits until every line logged so far is in the file. The destination opens the file asynchronously and a
 * synchronous flush before it is open throws: a server closed within milliseconds of starting would lose its log.
 */
async function drainLog(log: FileLogger): Promise<void> {
  log.access.flush();
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 2000);
    log.logger.flush(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  log.flush();
}

/** `o` without its undefined members, so that they do not override defaults when spread. */
function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
