// A data directory holds one server's state: the database (of the engine the caller picks, adapters/engine.ts), the key
// that seals secrets at rest, the first API key (credentials.json, mode 0600, so the CLI's embedded default and `server
// start --json` can hand it out again), the log, and the lock of the server running on it (./lock.ts: the part a
// command reads at start-up to find the local server, without loading the database).
import { chmodSync, existsSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Engine, ServerRecords } from './adapters/engine.js';
import type { Store } from './store/seam.js';
import {
  CREDENTIALS_FILE,
  DATABASE_FILE,
  ensureDir,
  readLock,
  recordedDatabase,
  AlreadyRunningError,
  type Credentials,
} from './lock.js';
import { Sealer } from './crypto.js';
import { useSeededIds } from './ids.js';
import { SeedError, type Seed } from './seed.js';
import {
  checkSnapshot,
  installStaged,
  isCurrentSchema,
  saveSnapshot,
  SNAPSHOTS_DIR,
  stageSnapshot,
  type SnapshotInfo,
} from './snapshots.js';
import { checkName, SnapshotError } from './store/snapshot-rules.js';
import { acquireLock } from './lock.js';

export * from './lock.js';

export const DB_FILE = 'payorch.db';
export const LOG_FILE = 'server.log';
const KEY_FILE = 'secret.key';
/**
 * Refuses a snapshot command on stopped data directory `dir` whose server is on a shared database: its snapshots are
 * the database's, served by a running server's snapshot routes, not files of the directory.
 */
export function refuseSharedSnapshots(dir: string): void {
  if (recordedDatabase(dir) !== undefined)
    throw new SnapshotError(
      'snapshots_unavailable',
      `The server of ${dir} keeps its state in a PostgreSQL database, not in the directory: snapshots of it go through a running server (start it, then run this command again).`,
    );
}

export interface OpenedDataDir<S extends Store = Store> {
  store: S;
  sealer: Sealer;
  credentials: Credentials;
  /** True when this call created the default account's key (first use, or after the key was revoked). */
  created: boolean;
  /** Seeded: ends this process's use of the seed's streams (ids.ts useSeededIds). */
  unseed?: () => void;
}

/** Deterministic mode (seed.ts): the seed, and the base time accounts and keys are created at. */
export interface Seeding {
  seed: Seed;
  now: () => number;
  /** The clock moves only when a test advances it (not `clock: 'real'`). */
  frozen: boolean;
}

/** Writes `content` to `path` (mode 0600) only if the file does not exist yet; returns what is there. */
function writeOnce(path: string, content: string): string {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, content, { mode: 0o600 }); // inside the try: a full disk must not leave a partial tmp file
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
  return readFileSync(path, 'utf8');
}

/**
 * What a database says of the key its secrets are sealed with: a MAC of a constant under that key (never the key),
 * kept in `meta`, so that a snapshot of another data directory (or another in-memory server) is refused rather than
 * restored with secrets no one can open (snapshots.ts).
 */
export const keyCheck = (sealer: Sealer): string => sealer.mac('payorch sealing key check v1');

async function noteKeyCheck(records: ServerRecords, sealer: Sealer): Promise<void> {
  await records.add('sealing_key_check', keyCheck(sealer));
}

/**
 * A restored snapshot's store (the data directory's database file, or an in-memory server's image) made fit to
 * serve: the running server's default key works (Accounts.keepKey), and it carries the sealing key's check.
 */
export async function adoptRestored<S extends Store>(
  engine: Engine<S>,
  store: S,
  sealer: Sealer,
  credentials: Credentials,
  now: () => number = Date.now,
): Promise<S> {
  try {
    await store.alone(async () => {
      await engine.accounts(store, now).keepKey(credentials.account_id, credentials.api_key);
      await noteKeyCheck(engine.records(store), sealer);
    });
  } catch (err) {
    store.close();
    throw err;
  }
  return store;
}

/**
 * Opens (creating on first use) the data directory `dir`, or an in-memory store when `dir` is null. Seeded, ids come
 * from the seed's streams from the moment the store is open (the first account and key included) until `unseed`.
 */
export async function openDataDir<S extends Store>(
  engine: Engine<S>,
  dir: string | null,
  seeding?: Seeding,
): Promise<OpenedDataDir<S>> {
  const now = seeding?.now ?? Date.now;
  if (dir === null) {
    const store = engine.open(null);
    const records = engine.records(store);
    let unseed: (() => void) | undefined;
    try {
      unseed = seeding && useSeededIds(await seeding.seed.open(store, records));
      const sealer = seeding ? new Sealer(seeding.seed.sealingKey()) : Sealer.random();
      const { account_id, api_key } = await store.alone(async () => {
        await noteKeyCheck(records, sealer);
        return engine.accounts(store, now).createAccountWithKey();
      });
      return { store, sealer, credentials: { api_key, account_id }, created: true, unseed };
    } catch (err) {
      unseed?.();
      store.close();
      throw err;
    }
  }
  ensureDir(dir);
  const keyHex = seeding ? seeding.seed.sealingKey().toString('hex') : randomBytes(32).toString('hex');
  const storedKey = writeOnce(join(dir, KEY_FILE), keyHex).trim();
  if (seeding && storedKey !== keyHex) {
    throw new SeedError(
      `The data directory ${dir} was not made with this seed (its key differs): a seed applies to a fresh data directory, or to one made with the same seed.`,
    );
  }
  const sealer = new Sealer(Buffer.from(storedKey, 'hex'));
  const store = engine.open(join(dir, DB_FILE));
  const records = engine.records(store);
  let unseed: (() => void) | undefined;
  try {
    unseed = seeding && useSeededIds(await seeding.seed.open(store, records));
  } catch (err) {
    store.close();
    throw err;
  }
  for (const f of [DB_FILE, ...engine.companions(DB_FILE)]) {
    try {
      chmodSync(join(dir, f), 0o600);
    } catch (err) {
      // the engine's files beside the database come and go as other processes close it
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  const credPath = join(dir, CREDENTIALS_FILE);
  // First use: one account and key, created under an immediate transaction so that two processes opening
  // a fresh directory at once agree on a single default account.
  const init = async (): Promise<{ credentials: Credentials; created: boolean }> => {
    await noteKeyCheck(records, sealer);
    const accounts = engine.accounts(store, now);
    const stored = await storedCredentials(records, credPath);
    if (stored) {
      if (await accounts.isActive(stored.api_key)) return { credentials: stored, created: false };
      // The default key was revoked (`server keys revoke`): the default account gets a new one, so that
      // `server start --json` and the CLI's embedded default keep working.
      const { api_key } = await accounts.addKey(stored.account_id);
      writeFileSync(credPath, JSON.stringify({ api_key, account_id: stored.account_id }, null, 2) + '\n', {
        mode: 0o600,
      });
      return { credentials: { api_key, account_id: stored.account_id }, created: true };
    }
    const { account_id, api_key } = await accounts.createAccountWithKey();
    await records.put('default_account', account_id);
    writeFileSync(credPath, JSON.stringify({ api_key, account_id }, null, 2) + '\n', { mode: 0o600 });
    return { credentials: { api_key, account_id }, created: true };
  };
  try {
    // The usual open (the directory's key stored and active, the sealing key's check noted): reads only, no write
    // lock — commands run side by side on one data directory do not queue for it.
    const found = (await records.has('sealing_key_check')) ? await storedCredentials(records, credPath) : undefined;
    if (found && (await engine.accounts(store, now).isActive(found.api_key)))
      return { store, sealer, credentials: found, created: false, unseed };
    const { credentials, created } = await records.exclusive(init);
    return { store, sealer, credentials, created, unseed };
  } catch (err) {
    unseed?.();
    store.close();
    throw err;
  }
}

/** The key that seals a shared database's secrets: 64 hex characters (32 bytes), never stored in the database. */
export function sealerOfKey(hex: string): Sealer {
  const key = hex.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(key))
    throw new KeyError(
      'The sealing key must be 64 hexadecimal characters (32 bytes), as `payorch server sealing-key` prints.',
    );
  return new Sealer(Buffer.from(key, 'hex'));
}

/** A sealing key that is missing, malformed, or not the one a database's data is sealed with. */
export class KeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyError';
  }
}

/**
 * Opens a database shared by several server processes (`store`, of `engine`; PostgreSQL): its data is sealed with
 * `sealer`'s key, which every process is given and the database never holds (only its check value). The first process
 * makes the default account and key; they are kept in the database sealed with that key, so that every process
 * hands out the same ones. A process given another key is refused. `credentialsDir`: where this machine's CLI finds
 * the default key (credentials.json), if anywhere.
 */
export async function openSharedDatabase<S extends Store>(
  engine: Pick<Engine<S>, 'accounts' | 'records'>,
  store: S,
  sealer: Sealer,
  { seeding, credentialsDir, database }: { seeding?: Seeding; credentialsDir?: string | null; database?: string } = {},
): Promise<OpenedDataDir<S>> {
  const now = seeding?.now ?? Date.now;
  const records = engine.records(store);
  const check = keyCheck(sealer);
  const refuseOtherKey = async () => {
    const found = await records.get('sealing_key_check');
    if (found !== undefined && found !== check && !seeding && (await records.get('seed')) !== undefined)
      throw new SeedError(
        `The database${database ? ` ${database}` : ''} was made by a seeded server (--seed), whose keys come from its seed: start it with the same --seed as its only process (no other process may serve a seeded server's database), or use another database.`,
      );
    if (found !== undefined && found !== check)
      throw new KeyError(
        "This database's data is sealed with another key: give every process of a sandbox the same sealing key (the one the database was first started with).",
      );
    return found !== undefined;
  };
  const readCredentials = async (): Promise<Credentials | undefined> => {
    const sealed = await records.get('default_credentials');
    return sealed === undefined ? undefined : (JSON.parse(sealer.open(sealed)) as Credentials);
  };
  let unseed: (() => void) | undefined;
  try {
    unseed = seeding && useSeededIds(await seeding.seed.open(store, records, database));
    const result = await (async () => {
      // The usual start (the key's check and the default key stored and active): reads only.
      const known = await store.read(async () => {
        if (!(await refuseOtherKey())) return undefined;
        const found = await readCredentials();
        return found && (await engine.accounts(store, now).isActive(found.api_key)) ? found : undefined;
      });
      if (known) return { credentials: known, created: false };
      // First start, or the default key was revoked: under the records' lock, so that processes starting at once
      // agree on one default account and key.
      return records.exclusive(async () => {
        await refuseOtherKey();
        await records.add('sealing_key_check', check);
        const accounts = engine.accounts(store, now);
        const stored = await readCredentials();
        if (stored && (await accounts.isActive(stored.api_key))) return { credentials: stored, created: false };
        const credentials = stored
          ? { account_id: stored.account_id, api_key: (await accounts.addKey(stored.account_id)).api_key }
          : await accounts.createAccountWithKey();
        const kept: Credentials = { api_key: credentials.api_key, account_id: credentials.account_id };
        await records.put('default_account', kept.account_id);
        await records.put('default_credentials', sealer.seal(JSON.stringify(kept)));
        return { credentials: kept, created: true };
      });
    })();
    if (credentialsDir)
      writeFileSync(join(credentialsDir, CREDENTIALS_FILE), JSON.stringify(result.credentials, null, 2) + '\n', {
        mode: 0o600,
      });
    return { store, sealer, ...result, unseed };
  } catch (err) {
    unseed?.();
    throw err;
  }
}

async function storedCredentials(records: ServerRecords, credPath: string): Promise<Credentials | undefined> {
  return (await records.has('default_account')) && existsSync(credPath)
    ? (JSON.parse(readFileSync(credPath, 'utf8')) as Credentials)
    : undefined;
}

/**
 * Deletes the directory's state (database and the files its engine keeps beside it, keys, credentials, log). Refuses
 * while a server runs on it.
 */
export function resetDataDir(engine: Pick<Engine, 'companions'>, dir: string): void {
  const running = readLock(dir);
  if (running) throw new AlreadyRunningError(running);
  for (const f of [DB_FILE, ...engine.companions(DB_FILE), KEY_FILE, CREDENTIALS_FILE, DATABASE_FILE, LOG_FILE])
    rmSync(join(dir, f), { force: true });
  // Snapshots are of the database just deleted, sealed with the key just deleted: no longer restorable.
  rmSync(join(dir, SNAPSHOTS_DIR), { recursive: true, force: true });
}

// ------------------------------------------------------------------------------- snapshots, server stopped

/**
 * `fn` on the data directory `dir` with no server on it, holding its lock meanwhile (a server cannot start on it,
 * nor another such command run): AlreadyRunningError when one holds it. The directory must exist.
 */
async function whileStopped<S extends Store, T>(
  engine: Engine<S>,
  dir: string,
  fn: (opened: OpenedDataDir<S>) => T | Promise<T>,
): Promise<T> {
  refuseSharedSnapshots(dir);
  if (!existsSync(join(dir, DB_FILE))) throw new Error(`There is no payorch data directory at ${dir} (no ${DB_FILE}).`);
  const lock = acquireLock(dir);
  try {
    const opened = await openDataDir(engine, dir); // migrated, its key check noted
    opened.store.close();
    return await fn(opened);
  } finally {
    lock.release();
  }
}

/** Saves snapshot `name` of a stopped data directory (docs/api.md "Snapshots"). */
export function saveSnapshotStopped<S extends Store>(
  engine: Engine<S>,
  dir: string,
  name: string,
): Promise<SnapshotInfo> {
  checkName(name);
  return whileStopped(engine, dir, () => saveSnapshot(engine, dir, join(dir, DB_FILE), name));
}

/**
 * Puts a stopped data directory's database back to snapshot `name`: checked first (nothing changes when it cannot
 * be restored), copied, migrated if it is of an older schema, renamed into place; the directory's default key
 * (credentials.json) is then an active key of it.
 */
export function restoreSnapshotStopped<S extends Store>(
  engine: Engine<S>,
  dir: string,
  name: string,
): Promise<{ name: string }> {
  checkName(name);
  return whileStopped(engine, dir, async ({ sealer, credentials }) => {
    const staged = await stageSnapshot(engine, dir, name, keyCheck(sealer));
    try {
      if (!isCurrentSchema(engine, checkSnapshot(engine, { file: staged }, keyCheck(sealer), JSON.stringify(name))))
        engine.open(staged).close();
      installStaged(engine, staged, join(dir, DB_FILE));
    } finally {
      rmSync(staged, { force: true });
    }
    (await adoptRestored(engine, engine.open(join(dir, DB_FILE)), sealer, credentials)).close();
    return { name };
  });
}
