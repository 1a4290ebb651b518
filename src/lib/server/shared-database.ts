// A server whose state is in a PostgreSQL database several processes share (`ServerOptions.database`): the option
// checked, the store opened, the request log and fault rules kept in it. The driver is loaded only here, on demand,
// so that the CLI and SQLite's paths never import it.
import {
  openSharedDatabase,
  recordDatabase,
  KeyError,
  sealerOfKey,
  type OpenedDataDir,
  type Seeding,
} from './datadir.js';
import { SeedError, type SeedValue } from './seed.js';
import type { OpenEngine } from './adapters/engine.js';
import type { PostgresDatabase } from './adapters/postgres/db.js';
import type { Store } from './store/seam.js';
import { Sealer } from './crypto.js';
import { describeUrl } from './database-url.js';
import { ScopedStore } from './store/scoped.js';
import type { SharedHttpState } from './http/runtime.js';
import type { ChangeWatch } from './store/changes.js';
import type { FileLogger } from './log.js';
import type { Started } from './started.js';

/** A shared database a server's state is in (`ServerOptions.database`), and its sealing key. */
export interface SharedDatabase {
  url: string;
  sealingKey?: string;
  /** The URL without its password, for messages. */
  where: string;
}

/** The shared database of a start's options, checked (its URL, its key) before anything starts. */
export async function sharedOf(options: {
  database?: string;
  sealingKey?: string;
  memory?: boolean;
  seed?: SeedValue;
}): Promise<SharedDatabase | undefined> {
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

/** The shared database's store, migrated, with this process's credentials in the data directory. */
export async function openShared(
  started: Started,
  shared: SharedDatabase,
  dataDir: string | null,
  seeding: Seeding | undefined,
): Promise<{ engine: OpenEngine<Store>; opened: OpenedDataDir<Store>; raw: PostgresDatabase }> {
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

/**
 * The request log and fault rules of a database several server processes share: kept in it, so that they work
 * through any process. The log's last entries are written before the store closes.
 */
export async function sharedHttpState(
  started: Started,
  store: PostgresDatabase,
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

/**
 * Applies the schema migrations the PostgreSQL database at `url` lacks, and returns the versions applied (`payorch
 * server migrate`; a server start does it too). Any number of processes may migrate one database at once. A failure
 * to connect names the host and the database, never the password.
 */
export async function migrateDatabase(url: string): Promise<{ applied: number[] }> {
  const { migrateDatabase: migrate } = await import('./adapters/postgres/engine.js');
  return migrate(url);
}
