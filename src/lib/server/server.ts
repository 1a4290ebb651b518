// Starting the test-mode server: on loopback over HTTP (`payorch server start`, `startServer()`), or
// in-process for the CLI's embedded default (`openEmbedded()`: the same app, reached through inject).
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../contract/common.js';
import { DEFAULT_BASE_URL, DEFAULT_HOST, DEFAULT_PORT } from '../contract/prefix.js';
import { appUrls, buildApp, mayMatch } from './app.js';
import {
  acquireLock,
  defaultDataDir,
  LOG_FILE,
  openDataDir,
  openSharedDatabase,
  ensureDir,
  forgetDatabase,
  recordDatabase,
  KeyError,
  sealerOfKey,
  type Lock,
  type OpenedDataDir,
  type Seeding,
} from './datadir.js';
import { refuseLiveWithSeed, Seed, SEEDED_EPOCH_MS, SeedError, seededStore, type SeedValue } from './seed.js';
import { sqliteEngine } from './adapters/sqlite/engine.js';
import type { OpenEngine } from './adapters/engine.js';
import type { SqliteStore } from './adapters/sqlite/db.js';
import type { PostgresStore } from './adapters/postgres/db.js';
import type { Store } from './store/seam.js';
import { Sealer } from './crypto.js';
import { describeUrl } from './database-url.js';
import { ScopedStore } from './store/scoped.js';
import { createServices, type Services } from './domain/services.js';
import type { ServerConfig } from './domain/core.js';
import { DEFAULT_RATE_LIMITS, type RateLimitConfig } from './http/ratelimit.js';
import { createHttpRuntime, type SharedHttpState } from './http/runtime.js';
import type { ChangeWatch } from './store/changes.js';
import { Gate } from './http/gate.js';
import type { RestoreResult, SnapshotAdmin } from './http/snapshots.js';
import { type SnapshotInfo } from './snapshots.js';
import { closeSilentConnectionsOnStop, DEFAULT_TIMEOUTS, type Timeouts } from './http/fastify.js';
import { fileLogger, type FileLogger } from './log.js';
import { VERSION } from './version.js';
import { runSteps, runStepsNow } from './store/steps.js';
import type { RoutingRule } from '../contract/payments.js';
import type { PaymentsConfig } from './domain/core.js';
import { Dispatcher, type DispatcherOptions } from './dispatch/dispatcher.js';
import { OWN_PORTS_BYTES } from './ownports.js';
import type { FaultRuleBody } from '../contract/faults.js';
import type { FaultRuleStore } from './http/faultrules.js';
import type { FixtureInput, FixtureRun } from '../fixtures/run.js';
import { ServerSnapshots, SharedSnapshots, Snapshot, type Snapshots } from './restore.js';

export { Snapshot, KeyError };

export interface ServerOptions {
  /** Default 4242; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /**
   * The origin clients reach the server at when it is not its own address (a load balancer in front of several
   * processes: README "A shared sandbox"), e.g. `https://sandbox.example.com`: the URLs the server writes into
   * objects and pages (a session's `fallback_url`, hosted checkout and invoice pages) start with it, whichever
   * process wrote them. Default: the server's own `http://host:port`.
   */
  publicUrl?: string;
  /**
   * Default: the user's data directory (see `defaultDataDir`). A relative path is taken from the working directory
   * and kept absolute (`RunningServer.dataDir`, the lock, `server status`), so that it names the same directory from
   * anywhere.
   */
  dataDir?: string;
  /** Keep the database in memory (nothing persists); runtime files go to `dataDir` if given. */
  memory?: boolean;
  /**
   * A PostgreSQL database (postgres://user:password@host:port/database) that holds the server's state instead of the
   * data directory's SQLite file: any number of server processes on one database serve one sandbox (README "A
   * shared sandbox"). Migrated at start (once, whichever process comes first). The data directory still holds this
   * process's lock, log and credentials.json. Needs `sealingKey`.
   */
  database?: string;
  /**
   * With `database`: the key that seals secrets at rest, 64 hexadecimal characters, the same for every process of the
   * sandbox. It is never written to the database (only a check value, by which a process given another key is
   * refused). A seeded server uses its seed's key instead.
   */
  sealingKey?: string;
  rateLimits?: Partial<RateLimitConfig>;
  /**
   * The time the rate limits' fixed UTC minute and day windows are read from (ms since the epoch; default the
   * machine's clock). For tests: one that sets it need not wait for a fresh minute to keep its requests in one
   * window, and can move to the next window at once. Only the rate limiter reads it (docs/api.md "Rate limits").
   */
  rateLimitClock?: () => number;
  /** Payment routing rules replacing the default set (see docs/api.md "Routing"). */
  routing?: RoutingRule[];
  /** Processors marked down at start (`--psp-down ID`). */
  pspDown?: string[];
  /** How often due work is caught up (ms, default 1000); 0: only by `catchUp()` and clock advances (tests). */
  dueWorkIntervalMs?: number;
  /**
   * Called once when no request has been in flight for `timeoutMs`, or when the data directory's lock is no
   * longer this server's (the directory was removed under it): the CLI's background server then stops.
   */
  idle?: { timeoutMs: number; onIdle: () => void };
  /** Marks the data directory's lock as held by a server the CLI started on its own (`server start` may stop it). */
  auto?: boolean;
  /** How long a client may take to send a request's headers / whole request (ms; docs/api.md "Timeouts"). */
  timeouts?: Partial<Timeouts>;
  /** Webhook deliveries: POST timeout, poll interval, concurrency (docs/api.md "Events and webhooks"). */
  webhooks?: DispatcherOptions;
  /**
   * Deterministic mode (docs/api.md "Deterministic mode"): ids, keys, secrets and request ids from this seed, the
   * clock from a fixed epoch. For a fresh data directory (or `memory`), or one made with the same seed.
   */
  seed?: SeedValue;
  /** With `seed`: 'frozen' (default) — time moves only when a test advances it; 'real' — with the machine's clock. */
  clock?: 'frozen' | 'real';
  /** Fault rules for every account, for as long as the server runs (`--faults FILE`; docs/api.md "Fault injection"). */
  faults?: FaultRuleBody[];
  /**
   * Fixture files (paths, parsed files, or several in order) run against the server, through the same pipeline,
   * before startServer resolves (README "Fixtures"); a step that fails fails the start.
   */
  fixtures?: FixtureInput;
}

export interface RunningServer {
  /** `http://127.0.0.1:PORT/functions/v1` */
  baseUrl: string;
  host: string;
  port: number;
  /** The data directory's first key (printed on first start). */
  apiKey: string;
  accountId: string;
  dataDir: string | null;
  /** True when this start created the data directory's key (first start, or its key had been revoked). */
  created: boolean;
  pid: number;
  app: FastifyInstance;
  services: Services;
  /** Runs what is due on every account's clock now, as the periodic catch-up does; resolves with the count. */
  catchUp(): Promise<number>;
  /**
   * A snapshot of the database (docs/api.md "Snapshots"): without a name, its bytes, kept by the caller (also for
   * an in-memory server); with one, saved as NAME: `snapshots/NAME.sqlite` in the data directory, or on PostgreSQL in the
   * database (a schema of its own), where every process of the sandbox sees it.
   */
  snapshot(): Promise<Snapshot>;
  snapshot(name: string): Promise<SnapshotInfo>;
  /**
   * Puts the database back to `snapshot` (one this server made, or a saved one by name), atomically: requests
   * are held while requests in flight finish, then see only the restored data. `server.services` is then the
   * restored database's (same object).
   */
  restore(snapshot: Snapshot | string): Promise<RestoreResult>;
  close(): Promise<void>;
  /** What `fixtures` made: each step's answer by name (undefined without `fixtures`). */
  fixtures?: FixtureRun;
}

/** How to stop what one start step started. */
type Stop = () => unknown;

/**
 * What a start has started so far, each with how to stop it: `stopAll` stops them newest first, which is both
 * how a server closes and how a start that failed half-way undoes itself.
 */
class Started {
  private readonly stops: Stop[] = [];

  add(stop: Stop): void {
    this.stops.push(stop);
  }

  /** Stops everything, each step even when one before it failed (the lock is still released); throws the first failure. */
  async stopAll(): Promise<void> {
    let failed: { err: unknown } | undefined;
    for (let stop = this.stops.pop(); stop; stop = this.stops.pop()) {
      try {
        await stop();
      } catch (err) {
        failed ??= { err };
      }
    }
    if (failed) throw failed.err;
  }
}

/**
 * The data directory's store and log, the domain's services and the app over them. The store closes and the
 * log is written out when `started` stops; the app is the caller's to close (it may never have listened).
 */
async function assemble(
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
async function openParts(
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

/** A shared database a server's state is in (`ServerOptions.database`), and its sealing key. */
interface SharedDatabase {
  url: string;
  sealingKey?: string;
  /** The URL without its password, for messages. */
  where: string;
}

/** The shared database's store (PostgreSQL: loaded only here, so the CLI and SQLite's paths never import its driver). */
async function openShared(
  started: Started,
  shared: SharedDatabase,
  dataDir: string | null,
  seeding: Seeding | undefined,
): Promise<{ engine: OpenEngine<Store>; opened: OpenedDataDir<Store>; raw: PostgresStore }> {
  const sealer = seeding ? new Sealer(seeding.seed.sealingKey()) : sealerOfKey(shared.sealingKey ?? '');
  const { openDatabase, postgresEngine, holdSeededLock } = await import('./adapters/postgres/engine.js');
  const raw = await openDatabase(shared.url);
  started.add(() => raw.end());
  if (seeding) {
    const release = await holdSeededLock(shared.url);
    if (!release)
      throw new SeedError(
        `Another server process, seeded, already serves the database ${shared.where}: a seeded server draws one stream of ids, so it must be its database's only process. Stop that one, or use another database.`,
      );
    started.add(release);
  }
  // A seeded server draws one stream of ids in turn: its transactions run one at a time (seed.ts).
  const store: Store = seeding ? new ScopedStore(raw, { inTurn: true }) : raw;
  const engine = postgresEngine(raw);
  const opened = await openSharedDatabase(engine, store, sealer, {
    seeding,
    credentialsDir: dataDir,
    database: shared.where,
  });
  if (dataDir) recordDatabase(dataDir, shared.url);
  return { engine, opened, raw };
}

/** A `publicUrl` that is not an http(s) origin (its value is not repeated: it may hold credentials). */
export class PublicUrlError extends Error {
  constructor() {
    super(
      'The public URL must be an http(s) origin with no path, query or credentials, e.g. https://sandbox.example.com.',
    );
    this.name = 'PublicUrlError';
  }
}

/** `url` as an origin (scheme, host, port): the public URL a server is reached at. */
function originOf(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new PublicUrlError();
  }
  if (
    (u.protocol !== 'http:' && u.protocol !== 'https:') ||
    u.username ||
    u.password ||
    u.search ||
    u.hash ||
    (u.pathname !== '/' && u.pathname !== '')
  )
    throw new PublicUrlError();
  return u.origin;
}

/**
 * The request log and fault rules of a database several server processes share (PostgreSQL): kept in it, so that
 * they work through any process. The log's last entries are written before the store closes.
 */
async function sharedHttpState(
  started: Started,
  store: PostgresStore,
  changes: () => ChangeWatch,
  log: FileLogger,
): Promise<SharedHttpState> {
  const [{ SharedRequestLog }, { SharedFaultRules }] = await Promise.all([
    import('./adapters/postgres/requestlog.js'),
    import('./adapters/postgres/faultrules.js'),
  ]);
  const requestLog = new SharedRequestLog(store, (err) => log.logger.error({ err }, 'writing the request log failed'));
  started.add(() => requestLog.close());
  return { requestLog, faults: new SharedFaultRules(store, changes) };
}

/** The shared database of `options`, checked (its URL, its key) before anything starts. */
async function sharedOf(options: ServerOptions): Promise<SharedDatabase | undefined> {
  if (options.database === undefined) {
    if (options.sealingKey !== undefined)
      throw new KeyError('`sealingKey` applies to a server on a shared database (give `database`).');
    return undefined;
  }
  if (options.memory) throw new Error('`memory` and `database` exclude each other: the state is in one or the other.');
  const { checkDatabaseUrl } = await import('./adapters/postgres/engine.js');
  checkDatabaseUrl(options.database);
  if (options.seed === undefined) {
    if (options.sealingKey === undefined)
      throw new KeyError(
        'A server on a shared database needs the sealing key every process of the sandbox is given (`sealingKey`; `--sealing-key-file` or PAYORCH_SEALING_KEY for `payorch server start`).',
      );
    sealerOfKey(options.sealingKey); // malformed: refused before anything starts
  }
  return { url: options.database, sealingKey: options.sealingKey, where: describeUrl(options.database) };
}

function appOf(
  { services, runtime, log }: Awaited<ReturnType<typeof openParts>>,
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

/** A seeded start's seed and base time (seed.ts), after refusing a live-looking configuration; undefined unseeded. */
function seedingOf(options: ServerOptions): Seeding | undefined {
  if (options.seed === undefined) {
    if (options.clock !== undefined) throw new SeedError('`clock` applies to a seeded server only (give `seed`).');
    return undefined;
  }
  refuseLiveWithSeed();
  return {
    seed: new Seed(options.seed),
    now: options.clock === 'real' ? Date.now : () => SEEDED_EPOCH_MS,
    frozen: options.clock !== 'real',
  };
}

/** Listens on `host:port`; once the server stops, the app has answered the requests in flight and is closed. */
async function listen(
  started: Started,
  app: FastifyInstance,
  log: FileLogger,
  host: string,
  port: number,
): Promise<number> {
  try {
    await app.listen({ port, host });
  } catch (err) {
    await app.close();
    throw err;
  }
  const silent = closeSilentConnectionsOnStop(app);
  started.add(async () => {
    silent();
    await app.close(); // stops accepting, waits for requests in flight
    log.logger.info('server stopped');
  });
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : port;
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
function every(started: Started, everyMs: number, fn: () => void): void {
  const timer = setInterval(fn, everyMs);
  timer.unref();
  started.add(() => clearInterval(timer));
}

/**
 * Calls `onIdle` once when no request has been in flight for `timeoutMs`, or when the data directory's lock is
 * no longer this server's.
 */
function idleWatch(
  started: Started,
  app: FastifyInstance,
  lock: Lock | undefined,
  { timeoutMs, onIdle }: NonNullable<ServerOptions['idle']>,
): void {
  let inFlight = 0;
  let last = Date.now();
  app.server.on('request', (_req, res) => {
    inFlight++;
    res.once('close', () => {
      inFlight--;
      last = Date.now();
    });
  });
  const timer = setInterval(
    () => {
      if ((inFlight === 0 && Date.now() - last >= timeoutMs) || (lock && !lock.held())) {
        clearInterval(timer);
        onIdle();
      }
    },
    Math.min(1000, timeoutMs),
  );
  timer.unref();
  started.add(() => clearInterval(timer));
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const seeding = seedingOf(options);
  const shared = await sharedOf(options);
  const publicOrigin = options.publicUrl === undefined ? undefined : originOf(options.publicUrl);
  const host = options.host ?? DEFAULT_HOST;
  const memory = options.memory ?? false;
  const dataDir = options.dataDir !== undefined ? resolve(options.dataDir) : memory ? null : defaultDataDir();
  // The first directory this start creates (undefined when it existed): a start that fails removes it again.
  const createdDir = dataDir ? mkdirSync(dataDir, { recursive: true, mode: 0o700 }) : undefined;
  const started = new Started();
  let baseUrl = '';
  let publicBase = '';
  // One byte per local port, set while the webhook sender has a connection from that port to this server: its
  // own deliveries (to its own hosted pages) count in a bucket of their own (docs/api.md "Rate limits").
  const ownPorts = new SharedArrayBuffer(OWN_PORTS_BYTES);
  try {
    const lock = dataDir ? acquireLock(dataDir, { auto: options.auto }) : undefined;
    if (lock) started.add(() => lock.release());
    const payments = { routing: options.routing, pspDown: options.pspDown };
    const gate = new Gate();
    let snapshots: Snapshots | undefined; // made once the store is open; the routes only run after that
    const admin: SnapshotAdmin = {
      defaultAccount: () => snapshots!.defaultAccount(),
      list: () => snapshots!.list(),
      save: (name) => snapshots!.save(name),
      restore: (name) => snapshots!.restore(name),
      remove: (name) => snapshots!.remove(name),
    };
    const parts = await assemble(
      started,
      dataDir,
      memory,
      { ...options.rateLimits, clock: options.rateLimitClock },
      () => publicBase || baseUrl,
      payments,
      options.timeouts,
      new Uint8Array(ownPorts),
      seeding,
      { gate, snapshots: admin },
      shared,
    );
    const { opened, log, services, app } = parts;
    await addFaultRules(parts.runtime.faults, options.faults);
    const port = await listen(started, app, log, host, options.port ?? DEFAULT_PORT);
    baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}${API_PREFIX}`;
    if (publicOrigin) publicBase = `${publicOrigin}${API_PREFIX}`;
    lock?.update(baseUrl);
    log.logger.info(
      { base_url: baseUrl, data_dir: dataDir, memory, ...(shared && { database: shared.where }) },
      'server started',
    );
    // What runs on the store (its background threads, webhook deliveries, due work): stopped and started again
    // around a restore, which replaces the store.
    const onStore = async ({ backgroundStarted = true } = {}): Promise<Started> => {
      const on = new Started();
      try {
        const background = storeInBackground(on, parts.engine, opened.store); // the store in use then (a restore replaces it)
        // A restore does not hold requests while the store's background thread starts (~20–40 ms).
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
          options.webhooks,
        );
        on.add(() => dispatcher.stop()); // POSTs in flight are aborted; their deliveries stay pending for the next start
        dueWork(on, services, log, options.dueWorkIntervalMs ?? 1000);
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
    };
    let running = await onStore();
    started.add(() => running.stopAll());
    const snaps: Snapshots = parts.raw
      ? new SharedSnapshots({
          ...parts,
          raw: parts.raw,
          seeding,
          gate,
          stopOnStore: () => running.stopAll(),
          startOnStore: async () => void (running = await onStore({ backgroundStarted: false })),
        })
      : new ServerSnapshots({
          ...parts,
          opened: parts.opened as OpenedDataDir<SqliteStore>,
          dataDir,
          fileBacked: dataDir !== null && !memory,
          seeding,
          gate,
          stopOnStore: () => running.stopAll(),
          startOnStore: async () => void (running = await onStore({ backgroundStarted: false })),
        });
    snapshots = snaps;
    started.add(() => snaps.settled());
    // The log buffers 16 KiB (and the access lines 64 lines) before writing; what is pending is written once a
    // second so that `payorch server logs [--follow]` shows a running server's requests (off the hot path).
    every(started, 1000, () => {
      log.access.flush();
      log.logger.flush();
    });
    if (options.idle) idleWatch(started, app, lock, options.idle);

    const fixtures =
      options.fixtures === undefined
        ? undefined
        : await runStartFixtures(app, opened.credentials.api_key, options.fixtures);
    let closing: Promise<void> | undefined;
    return {
      fixtures,
      baseUrl,
      host,
      port,
      apiKey: opened.credentials.api_key,
      accountId: opened.credentials.account_id,
      dataDir,
      created: opened.created,
      pid: process.pid,
      app,
      services,
      catchUp: () => snaps.exclusive(() => runSteps(services.store, services.scheduler.catchUp())),
      snapshot: ((name?: string) =>
        name === undefined ? snaps.snapshot() : snaps.save(name)) as RunningServer['snapshot'],
      restore: (snapshot) => snaps.restore(snapshot),
      close: () => (closing ??= snaps.settled().then(() => started.stopAll())),
    };
  } catch (err) {
    await started.stopAll();
    if (createdDir) rmSync(createdDir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Applies the schema migrations the PostgreSQL database at `url` lacks, and returns the versions applied (`payorch
 * server migrate`; a server start does it too). Any number of processes may migrate one database at once. A failure
 * to connect names the host and the database, never the password.
 */
export async function migrateDatabase(url: string): Promise<{ applied: number[] }> {
  const { migrateDatabase: migrate } = await import('./adapters/postgres/engine.js');
  return migrate(url);
}

/** Runs `startServer({ fixtures })`'s files with the first key, in process (loaded only then). */
async function runStartFixtures(app: FastifyInstance, apiKey: string, input: FixtureInput): Promise<FixtureRun> {
  const [{ runFixtures }, { Client }, { InProcessTransport }] = await Promise.all([
    import('../fixtures/run.js'),
    import('../client/client.js'),
    import('../client/inprocess.js'),
  ]);
  return runFixtures(new Client({ apiKey, transport: new InProcessTransport(app), maxRetries: 0 }), input);
}

export interface EmbeddedServer {
  app: FastifyInstance;
  apiKey: string;
  dataDir: string;
  close(): Promise<void>;
}

/** The server in this process, with no socket: the CLI's zero-configuration default. */
export async function openEmbedded(dataDir: string = defaultDataDir()): Promise<EmbeddedServer> {
  const started = new Started();
  try {
    const { opened, services, app } = await assemble(started, dataDir, false, undefined, () => DEFAULT_BASE_URL);
    started.add(() => app.close());
    await app.ready();
    await runStepsNow(services.store, services.scheduler.catchUp());
    return { app, apiKey: opened.credentials.api_key, dataDir, close: () => started.stopAll() };
  } catch (err) {
    await started.stopAll();
    throw err;
  }
}

export interface InProcessServer {
  apiKey: string;
  dataDir: string;
  /**
   * The app to send `path` (…/functions/v1 left out, query allowed) to: built with the routes that may answer the
   * paths asked for so far, and built again, with more, when a path needs a route it lacks. Every other answer
   * (404, 405, errors) is the full app's.
   */
  appFor(path: string): Promise<FastifyInstance>;
  /**
   * The webhook deliveries waiting for a server to send them: the deliveries this process's events call for are
   * recorded first (the scan a listening server's dispatcher makes), then every enabled endpoint's pending ones are
   * counted. This process sends none (it lives for one command): the CLI hands them to the background server.
   */
  pendingDeliveries(): Promise<number>;
  close(): Promise<void>;
}

/**
 * The server in this process for a command (the CLI's default with no key and no server running): what
 * `openEmbedded` opens — the data directory, migrations, due work caught up — but routes are registered as the
 * command's requests need them. A command sends one or two paths; registering all ~140 routes (and compiling
 * each one's router entry) took longer than its request.
 */
export async function openInProcess(dataDir: string = defaultDataDir()): Promise<InProcessServer> {
  const started = new Started();
  try {
    const parts = await openParts(started, dataDir, false, undefined, () => DEFAULT_BASE_URL);
    await runStepsNow(parts.services.store, parts.services.scheduler.catchUp());
    const registered = new Set<string>();
    let app: FastifyInstance | undefined;
    let building = Promise.resolve();
    started.add(() => app?.close());
    const appFor = async (path: string): Promise<FastifyInstance> => {
      const url = API_PREFIX + path;
      const needed = appUrls().filter((u) => !registered.has(u) && mayMatch(u, url));
      if (app && needed.length === 0) return app;
      for (const u of needed) registered.add(u);
      const next = await appOf(parts, () => DEFAULT_BASE_URL, { only: (u) => registered.has(u) });
      await next.ready();
      const previous = app;
      app = next;
      await previous?.close();
      return next;
    };
    return {
      apiKey: parts.opened.credentials.api_key,
      dataDir,
      // One at a time: two requests that need new routes build one app each, in turn, not two apps at once.
      appFor: (path) => {
        const result = building.then(() => appFor(path));
        building = result.then(
          () => undefined,
          () => undefined,
        );
        return result;
      },
      pendingDeliveries: () => pendingDeliveries(parts.services),
      close: () => started.stopAll(),
    };
  } catch (err) {
    await started.stopAll();
    throw err;
  }
}

/** InProcessServer.pendingDeliveries: no endpoint, one read; else the dispatcher's scan, then a count per endpoint. */
async function pendingDeliveries({ store, webhooks }: Services): Promise<number> {
  const deliveries = webhooks.deliveries;
  if ((await store.read(() => deliveries.enabledEndpoints())).length === 0) return 0;
  for (let more = true; more;) ({ more } = await store.alone(() => deliveries.scan()));
  return store.read(async () => {
    let n = 0;
    for (const { accountId, endpoint } of await deliveries.enabledEndpoints())
      n += await deliveries.deliveries.total(accountId, { webhook_endpoint: endpoint.id, status: 'pending' });
    return n;
  });
}

/**
 * Waits until every line logged so far is in the file. The destination opens the file asynchronously, and
 * a synchronous flush before it is open throws (and was swallowed): a server or embedded command that
 * closed within milliseconds of starting lost its whole log.
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

/** The server-wide fault rules; a rule that is not one fails the start, naming it. */
async function addFaultRules(rules: FaultRuleStore, faults: FaultRuleBody[] | undefined): Promise<void> {
  const all = faults ?? [];
  for (const [i, rule] of all.entries()) {
    try {
      await rules.add('', rule);
    } catch (err) {
      throw new Error(`Fault rule ${i + 1} of ${all.length}: ${(err as Error).message}`);
    }
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
