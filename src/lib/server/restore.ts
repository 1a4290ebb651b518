// A running server's snapshots (docs/api.md "Snapshots"): saved from its database, and restored into it while the
// request gate holds new requests — the store reopened, the services rebuilt on it, what runs on the store restarted.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { adoptRestored, DB_FILE, keyCheck, type OpenedDataDir, type Seeding } from './datadir.js';
import { useSeededIds } from './ids.js';
import { sqliteEngine as engine } from './adapters/sqlite/engine.js';
import type { SqliteDatabase } from './adapters/sqlite/db.js';
import type { OpenEngine, ServerRecords } from './adapters/engine.js';
import type { PostgresDatabase } from './adapters/postgres/db.js';
import type { Store } from './store/seam.js';
import { createServices, type Services } from './domain/services.js';
import type { ServerConfig } from './domain/core.js';
import { idempotencyStore, type HttpRuntime } from './http/runtime.js';
import { Gate } from './http/gate.js';
import type { RestoreResult } from './http/snapshots.js';
import {
  checkSnapshot,
  deleteSnapshot,
  isCurrentSchema,
  listSnapshots,
  makeSpare,
  saveImage,
  saveSnapshot,
  stageImage,
  stageSnapshot,
  installStaged,
  snapshotFile,
  type SnapshotInfo,
} from './snapshots.js';
import { checkName, SnapshotError } from './store/snapshot-rules.js';

/** A snapshot kept in memory: the database's bytes (its engine's image of it), for `RunningServer.restore`. */
export class Snapshot {
  readonly object = 'snapshot';
  constructor(
    /** The database file's image. Its secrets are sealed with the server's key, which is not in it. */
    readonly image: Buffer,
    readonly takenAt: Date,
  ) {}
}

export interface SnapshotParts {
  opened: OpenedDataDir<SqliteDatabase>;
  config: ServerConfig;
  /** The object the app and the routes use: its members are replaced by the restored store's. */
  services: Services;
  runtime: HttpRuntime;
  dataDir: string | null;
  seeding?: Seeding;
  /** The database is the data directory's file (not in memory). */
  fileBacked: boolean;
  gate: Gate;
  stopOnStore(): Promise<void>;
  startOnStore(): Promise<void>;
}

/** What a listening server does with snapshots (its engine's way). */
export interface Snapshots {
  defaultAccount(): string;
  list(): SnapshotInfo[] | Promise<SnapshotInfo[]>;
  remove(name: string): SnapshotInfo | Promise<SnapshotInfo>;
  save(name: string): Promise<SnapshotInfo>;
  snapshot(): Promise<Snapshot>;
  restore(source: Snapshot | string): Promise<RestoreResult>;
  /** `fn` once the saves and restores before it are done, and before any after it. */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** Resolves once no save or restore runs: the server may close. */
  settled(): Promise<void>;
}

/** Saves and restores, one at a time, in the order asked for. */
abstract class OneAtATime {
  protected queue: Promise<unknown> = Promise.resolve();

  /** `fn` once the saves and restores before it are done, and before any after it. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Resolves once no save or restore runs: the server may close. */
  async settled(): Promise<void> {
    await this.queue;
  }
}

/** How a server puts a snapshot in place of its data (swap). */
interface Swap<R> {
  /** Before the gate closes (requests go on): the snapshot checked, and made ready to put in place. */
  ready(name: string): Promise<R>;
  /** With the gate closed and what runs on the store stopped: the snapshot in place, the services made again. */
  put(ready: R): Promise<void>;
  /** What `ready` made, given up when the restore failed after it. */
  drop?(ready: R): void;
}

/**
 * Restores `source` (a saved snapshot's name, or one in memory) into a running server, the same steps on every
 * engine: made ready while requests go on, then put in place behind the closed gate, what runs on the store stopped
 * meanwhile. Answers how long requests were held (`paused_ms`) and the restore took.
 */
async function swap<R>(
  parts: { gate: Gate; stopOnStore(): Promise<void>; startOnStore(): Promise<void> },
  source: Snapshot | string,
  how: Swap<R>,
): Promise<RestoreResult> {
  const t0 = performance.now();
  const { gate } = parts;
  const name = typeof source === 'string' ? source : `(in memory, taken ${source.takenAt.toISOString()})`;
  const ready = await how.ready(name);
  const t1 = performance.now();
  await gate.close();
  try {
    await parts.stopOnStore();
    try {
      await how.put(ready);
    } finally {
      await parts.startOnStore();
    }
  } catch (err) {
    how.drop?.(ready);
    throw err;
  } finally {
    gate.open();
  }
  const t2 = performance.now();
  return {
    object: 'snapshot_restore',
    name,
    paused_ms: Math.round((t2 - t1) * 10) / 10,
    took_ms: Math.round((t2 - t0) * 10) / 10,
  };
}

/** The PostgreSQL adapter's snapshots (SharedSnapshots loads them on first use). */
type PgSnapshots = typeof import('./adapters/postgres/snapshots.js') &
  typeof import('./adapters/postgres/snapshot-image.js');

/** What a server on a shared database (PostgreSQL) restores into: its store, and what is rebuilt on it. */
export interface SharedSnapshotParts {
  opened: OpenedDataDir<Store>;
  /** The PostgreSQL store itself (the snapshots' queries run on it); `opened.store` may wrap it. */
  raw: PostgresDatabase;
  engine: OpenEngine<Store>;
  config: ServerConfig;
  services: Services;
  runtime: HttpRuntime;
  seeding?: Seeding;
  gate: Gate;
  stopOnStore(): Promise<void>;
  startOnStore(): Promise<void>;
}

/**
 * Snapshots of a database shared by several server processes (adapters/postgres/snapshots.ts): kept in the database,
 * so that any process restores what another saved, and restored in one transaction, which every process sees at
 * once. This process holds its requests while it restores (the gate), as on SQLite; the others' next transactions
 * see the restored data, and their caches of keys, clocks and processors' marks look again (the change mark moves with it). The
 * services of this process are made again on the store, as after a restore on SQLite.
 */
export class SharedSnapshots extends OneAtATime implements Snapshots {
  constructor(private readonly p: SharedSnapshotParts) {
    super();
  }

  /** The PostgreSQL adapter's snapshots, named and images, loaded on first use (a SQLite server never loads them). */
  private async pg(): Promise<PgSnapshots> {
    const [named, images] = await Promise.all([
      import('./adapters/postgres/snapshots.js'),
      import('./adapters/postgres/snapshot-image.js'),
    ]);
    return { ...named, ...images };
  }

  defaultAccount(): string {
    return this.p.opened.credentials.account_id;
  }

  async list(): Promise<SnapshotInfo[]> {
    return (await this.pg()).listSnapshots(this.p.raw);
  }

  async remove(name: string): Promise<SnapshotInfo> {
    checkName(name);
    return (await this.pg()).deleteSnapshot(this.p.raw, name);
  }

  save(name: string): Promise<SnapshotInfo> {
    return this.exclusive(async () => {
      checkName(name);
      return (await this.pg()).saveSnapshot(this.p.raw, name);
    });
  }

  snapshot(): Promise<Snapshot> {
    return this.exclusive(async () => new Snapshot(await (await this.pg()).image(this.p.raw), new Date()));
  }

  restore(source: Snapshot | string): Promise<RestoreResult> {
    return this.exclusive(() => swap(this.p, source, this.swapIn(source)));
  }

  /** How this engine's restore goes: the snapshot checked before the gate closes, restored in one transaction behind it. */
  private swapIn(source: Snapshot | string): Swap<{ pg: PgSnapshots; check: string }> {
    const { opened, raw, engine, seeding } = this.p;
    return {
      ready: async () => {
        const pg = await this.pg();
        const check = keyCheck(opened.sealer);
        if (typeof source === 'string') checkName(source);
        else pg.inspectImage(source.image); // a damaged image is refused before anything waits
        return { pg, check };
      },
      put: async ({ pg, check }) => {
        if (typeof source === 'string') await pg.restoreSnapshot(raw, source, check);
        else await pg.restoreImage(raw, source.image, check);
        // This process's default key works in the restored data, which carries the sealing key's check.
        await opened.store.alone(async () => {
          await engine
            .accounts(opened.store, seeding?.now)
            .keepKey(opened.credentials.account_id, opened.credentials.api_key);
          await engine.records(opened.store).add('sealing_key_check', check);
        });
        await reseed(opened, seeding, opened.store, engine.records(opened.store));
        await rebuild(this.p, opened.store, engine);
      },
    };
  }
}

/** Seeded, the process's id streams go on from the restored database's position, as they went on from the snapshot. */
async function reseed(
  opened: { unseed?: () => void },
  seeding: Seeding | undefined,
  store: Store,
  records: ServerRecords,
): Promise<void> {
  opened.unseed?.();
  opened.unseed = seeding && useSeededIds(await seeding.seed.open(store, records));
}

/**
 * The services made again on `store`, into the object the app uses; the processors registered (adapters: server
 * state, not data) carry over, while the accounts' marks of them up or down are data, restored with the rest;
 * idempotency records are the store's; the request log forgets what it had (requests on data that is gone).
 */
async function rebuild(
  parts: { services: Services; runtime: HttpRuntime; opened: OpenedDataDir<Store>; config: ServerConfig },
  store: Store,
  engine: OpenEngine<Store>,
): Promise<void> {
  const { services, runtime, opened, config } = parts;
  opened.store = store;
  const fresh = await createServices(store, engine.ports(store), opened.sealer, config);
  for (const id of services.processors.ids()) fresh.processors.register(services.processors.get(id));
  Object.assign(services, fresh);
  runtime.idempotency = idempotencyStore(store, engine.idempotency(store), opened.sealer);
  await runtime.requestLog.forget();
}

/**
 * A listening server's snapshots (docs/api.md "Snapshots"): saved while requests go on, and restored under the
 * running app. A restore checks and copies the snapshot first (requests go on), then closes the gate (new requests
 * wait; those in flight finish), stops what runs on the store, closes it, puts the snapshot's file in its place
 * (or opens the in-memory image), makes the services again on it (every in-memory cache of the old store goes with
 * them), starts what runs on it and opens the gate. Saves and restores run one at a time.
 */
export class ServerSnapshots extends OneAtATime implements Snapshots {
  private readonly spares = new Set<Promise<void>>();

  constructor(private readonly p: SnapshotParts) {
    super();
  }

  defaultAccount(): string {
    return this.p.opened.credentials.account_id;
  }

  /** Resolves once no save or restore runs (and the spares being made are done): the server may close. */
  override async settled(): Promise<void> {
    await super.settled();
    await Promise.all(this.spares);
  }

  private dir(): string {
    if (this.p.dataDir === null) {
      throw new SnapshotError(
        'snapshots_unavailable',
        'This in-memory server has no data directory to save snapshots in: use `server.snapshot()` without a name (library), or start it with a data directory.',
      );
    }
    return this.p.dataDir;
  }

  private get dbPath(): string {
    return join(this.dir(), DB_FILE);
  }

  list(): SnapshotInfo[] {
    return listSnapshots(engine, this.dir());
  }

  remove(name: string): SnapshotInfo {
    return deleteSnapshot(engine, this.dir(), name);
  }

  save(name: string): Promise<SnapshotInfo> {
    const dir = this.dir();
    return this.exclusive(async () => {
      const info = this.p.fileBacked
        ? await saveSnapshot(engine, dir, this.dbPath, name, { inWorker: true })
        : saveImage(engine, dir, await engine.image(this.p.opened.store), name);
      if (this.p.fileBacked) this.spare(name);
      return info;
    });
  }

  snapshot(): Promise<Snapshot> {
    return this.exclusive(async () => new Snapshot(await engine.image(this.p.opened.store), new Date()));
  }

  restore(source: Snapshot | string): Promise<RestoreResult> {
    return this.exclusive(async () => {
      const result = await swap(this.p, source, this.swapIn(source));
      if (typeof source === 'string' && this.p.fileBacked) this.spare(source);
      return result;
    });
  }

  /** A spare copy of snapshot `name` for its next restore (snapshots.ts makeSpare), made in the background. */
  private spare(name: string): void {
    const making = makeSpare(this.dir(), name).finally(() => this.spares.delete(making));
    this.spares.add(making);
  }

  /**
   * How this engine's restore goes: before the gate closes, the snapshot checked and made ready to replace the store
   * — a file to rename into place, or, in memory, the restored store itself; behind it, the swap.
   */
  private swapIn(source: Snapshot | string): Swap<{ file: string } | { store: SqliteDatabase }> {
    const { opened } = this.p;
    return {
      ready: async (name) => {
        const check = keyCheck(opened.sealer);
        if (this.p.fileBacked) {
          const file =
            typeof source === 'string'
              ? await stageSnapshot(engine, this.dir(), source, check)
              : stageFromImage(this.dir(), source.image, check);
          try {
            // migrated now, not after the swap
            if (!isCurrentSchema(engine, checkSnapshot(engine, { file }, check, name))) engine.open(file).close();
          } catch (err) {
            rmSync(file, { force: true });
            throw err;
          }
          return { file };
        }
        const image = typeof source === 'string' ? readSavedImage(this.dir(), source, check) : source.image;
        if (typeof source !== 'string') checkSnapshot(engine, { image }, check, name);
        return { store: engine.open({ image }) }; // migrated if older; made fit to serve at the swap (adopt)
      },
      put: async (next) => {
        const old = opened.store;
        await old.alone(() => undefined); // the last group commit has committed
        if ('store' in next) {
          await this.use(await this.adopt(next.store));
          old.close();
        } else {
          old.close();
          try {
            installStaged(engine, next.file, this.dbPath);
            await this.use(await this.adopt(engine.open(this.dbPath)));
          } catch (err) {
            await this.use(engine.open(this.dbPath)); // whatever is in place (the database as it was, if the rename failed) serves on
            throw err;
          }
        }
      },
      drop: (next) => {
        if ('store' in next && next.store !== opened.store) next.store.close();
        else if ('file' in next) rmSync(next.file, { force: true });
      },
    };
  }

  /**
   * A restored store made fit to serve (datadir.ts adoptRestored); seeded, the process's id streams continue from
   * the restored database's position (so a restored seeded server goes on as it went on from the snapshot).
   */
  private async adopt(store: SqliteDatabase): Promise<SqliteDatabase> {
    const { opened, seeding } = this.p;
    await reseed(opened, seeding, store, engine.records(store));
    return adoptRestored(engine, store, opened.sealer, opened.credentials, seeding?.now);
  }

  /** The services made again on `store` (rebuild). */
  private async use(store: SqliteDatabase): Promise<void> {
    await rebuild(this.p as unknown as Parameters<typeof rebuild>[0], store, engine as unknown as OpenEngine<Store>);
  }
}

/** A snapshot image written where a restore renames it from, once checked. */
function stageFromImage(dir: string, image: Buffer, check: string): string {
  checkSnapshot(engine, { image }, check, 'in memory');
  return stageImage(dir, image);
}

/** A saved snapshot's bytes (an in-memory server with a data directory restores them into memory), once checked. */
function readSavedImage(dir: string, name: string, check: string): Buffer {
  const file = snapshotFile(dir, name);
  checkSnapshot(engine, { file }, check, JSON.stringify(name));
  return readFileSync(file);
}
