// The listening server: `startServer` (`payorch server start`) serves the app over HTTP, with its lock, due work,
// webhook deliveries and snapshots, until `close()`; what it started stops newest first.
import { mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../contract/common.js';
import { DEFAULT_HOST, DEFAULT_PORT } from '../contract/prefix.js';
import { acquireLock, defaultDataDir, type Lock, type OpenedDataDir, type Seeding } from './datadir.js';
import { refuseLiveWithSeed, Seed, SEEDED_EPOCH_MS, SeedError, type SeedValue } from './seed.js';
import type { SqliteDatabase } from './adapters/sqlite/db.js';
import type { Services } from './domain/services.js';
import type { RateLimitConfig } from './http/ratelimit.js';
import { Gate } from './http/gate.js';
import type { RestoreResult, SnapshotAdmin } from './http/snapshots.js';
import type { SnapshotInfo } from './snapshots.js';
import { closeSilentConnectionsOnStop, type Timeouts } from './http/fastify.js';
import type { FileLogger } from './log.js';
import { runSteps } from './store/steps.js';
import type { RoutingRule } from '../contract/payments.js';
import type { DispatcherOptions } from './dispatch/dispatcher.js';
import { OWN_PORTS_BYTES } from './ownports.js';
import type { FaultRuleBody } from '../contract/faults.js';
import type { FaultRulePort } from './http/faultrules.js';
import type { FixtureInput, FixtureRun } from '../fixtures/run.js';
import { ServerSnapshots, SharedSnapshots, type Snapshot, type Snapshots } from './restore.js';
import { assemble } from './server.js';
import { sharedOf } from './shared-database.js';
import { every, runOnStore, type OnStore } from './background.js';
import { Started } from './started.js';

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

/** Starts the server; a start that fails stops what it started and removes the data directory it created. */
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
    const onStore: OnStore = {
      parts,
      port,
      ownPorts,
      seeding,
      webhooks: options.webhooks,
      dueWorkIntervalMs: options.dueWorkIntervalMs ?? 1000,
    };
    let running = await runOnStore(onStore);
    started.add(() => running.stopAll());
    const snaps: Snapshots = parts.raw
      ? new SharedSnapshots({
          ...parts,
          raw: parts.raw,
          seeding,
          gate,
          stopOnStore: () => running.stopAll(),
          startOnStore: async () => void (running = await runOnStore(onStore, { backgroundStarted: false })),
        })
      : new ServerSnapshots({
          ...parts,
          opened: parts.opened as OpenedDataDir<SqliteDatabase>,
          dataDir,
          fileBacked: dataDir !== null && !memory,
          seeding,
          gate,
          stopOnStore: () => running.stopAll(),
          startOnStore: async () => void (running = await runOnStore(onStore, { backgroundStarted: false })),
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

/** Runs `startServer({ fixtures })`'s files with the first key, in process (loaded only then). */
async function runStartFixtures(app: FastifyInstance, apiKey: string, input: FixtureInput): Promise<FixtureRun> {
  const [{ runFixtures }, { Client }, { InProcessTransport }] = await Promise.all([
    import('../fixtures/run.js'),
    import('../client/client.js'),
    import('../client/inprocess.js'),
  ]);
  return runFixtures(new Client({ apiKey, transport: new InProcessTransport(app), maxRetries: 0 }), input);
}

/** The server-wide fault rules; a rule that is not one fails the start, naming it. */
async function addFaultRules(rules: FaultRulePort, faults: FaultRuleBody[] | undefined): Promise<void> {
  const all = faults ?? [];
  for (const [i, rule] of all.entries()) {
    try {
      await rules.add('', rule);
    } catch (err) {
      throw new Error(`Fault rule ${i + 1} of ${all.length}: ${(err as Error).message}`);
    }
  }
}
