// Snapshots of a data directory's database (docs/api.md "Snapshots"): `snapshots/NAME.sqlite` in the data directory
// (mode 0600, the directory 0700), each a consistent copy of the database made by its engine (adapters/engine.ts
// `copy`: writers go on meanwhile). What is here works on files: saving a copy, checking one before it is restored,
// preparing the file a restore puts in place, listing and deleting. Swapping a running server's database is
// restore.ts's (the request gate, the services made again); a stopped data directory's is datadir.ts's
// restoreSnapshotStopped; the names and errors are every engine's (store/snapshot-rules.ts).
import {
  constants,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { SnapshotInfo } from '../contract/snapshots.js';
import type { Inspected, SnapshotEngine } from './adapters/engine.js';
import {
  checkName,
  checkRestorable,
  missingSnapshot,
  SNAPSHOT_NAME,
  type SnapshotError,
  unrestorable,
} from './store/snapshot-rules.js';

export const SNAPSHOTS_DIR = 'snapshots';
const EXT = '.sqlite';

export type { SnapshotInfo };

const dirOf = (dataDir: string) => join(dataDir, SNAPSHOTS_DIR);
const fileOf = (dataDir: string, name: string) => join(dirOf(dataDir), checkName(name) + EXT);
/** A copy of the snapshot made ahead, that a running server's next restore renames into place (see makeSpare). */
const spareOf = (dataDir: string, name: string) => join(dirOf(dataDir), `.${checkName(name)}.spare`);
const tmpIn = (dataDir: string, what: string) =>
  join(dirOf(dataDir), `.${what}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);

function ensureSnapshotsDir(dataDir: string): void {
  mkdirSync(dirOf(dataDir), { recursive: true, mode: 0o700 });
}

/**
 * Saves a consistent copy of the database at `dbPath` as snapshot `name` (replacing one of that name): the engine's
 * copy, what was committed when it began while writers go on; off this thread when `inWorker` (a running server goes
 * on answering meanwhile).
 */
export async function saveSnapshot(
  engine: SnapshotEngine,
  dataDir: string,
  dbPath: string,
  name: string,
  { inWorker = false } = {},
): Promise<SnapshotInfo> {
  const file = fileOf(dataDir, name);
  ensureSnapshotsDir(dataDir);
  const tmp = tmpIn(dataDir, name);
  try {
    writeFileSync(tmp, '', { mode: 0o600 }); // the copy fills an empty file: it is private from the start
    await engine.copy(dbPath, tmp, { inWorker });
    rmSync(spareOf(dataDir, name), { force: true }); // a spare of the snapshot this one replaces
    renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
  return infoOf(engine, dataDir, name);
}

/** Saves the bytes of a database (an in-memory server's) as snapshot `name`. */
export function saveImage(engine: SnapshotEngine, dataDir: string, image: Buffer, name: string): SnapshotInfo {
  const file = fileOf(dataDir, name);
  ensureSnapshotsDir(dataDir);
  const tmp = tmpIn(dataDir, name);
  try {
    writeFileSync(tmp, image, { mode: 0o600 });
    rmSync(spareOf(dataDir, name), { force: true });
    renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
  return infoOf(engine, dataDir, name);
}

/** The file of the saved snapshot `name`; throws SnapshotError('snapshot_missing') when there is none. */
export function snapshotFile(dataDir: string, name: string): string {
  const file = fileOf(dataDir, name);
  if (!existsSync(file)) throw missing(dataDir, name);
  return file;
}

export function listSnapshots(engine: SnapshotEngine, dataDir: string): SnapshotInfo[] {
  let names: string[];
  try {
    names = readdirSync(dirOf(dataDir));
  } catch {
    return [];
  }
  const out: SnapshotInfo[] = [];
  for (const f of names) {
    const name = f.endsWith(EXT) ? f.slice(0, -EXT.length) : '';
    if (!SNAPSHOT_NAME.test(name)) continue;
    try {
      out.push(infoOf(engine, dataDir, name));
    } catch {
      /* deleted meanwhile */
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export function deleteSnapshot(engine: SnapshotEngine, dataDir: string, name: string): SnapshotInfo {
  const info = infoOf(engine, dataDir, name);
  rmSync(spareOf(dataDir, name), { force: true });
  rmSync(fileOf(dataDir, name));
  return info;
}

export function infoOf(engine: SnapshotEngine, dataDir: string, name: string): SnapshotInfo {
  const file = fileOf(dataDir, name);
  let st;
  try {
    st = statSync(file);
  } catch {
    throw missing(dataDir, name);
  }
  let schema = 0;
  try {
    schema = engine.inspect({ file }).schema;
  } catch {
    /* listed as it is; a restore says what is wrong with it */
  }
  return { object: 'snapshot', name, size: st.size, created_at: st.mtime.toISOString(), schema_version: schema };
}

function missing(dataDir: string, name: string): SnapshotError {
  return missingSnapshot(name, listNames(dataDir));
}

function listNames(dataDir: string): string[] {
  try {
    return readdirSync(dirOf(dataDir))
      .filter((f) => f.endsWith(EXT) && SNAPSHOT_NAME.test(f.slice(0, -EXT.length)))
      .map((f) => f.slice(0, -EXT.length))
      .sort();
  } catch {
    return [];
  }
}

// ------------------------------------------------------------------------------------------------ checks

export type { Inspected };

/**
 * Checks that a snapshot (a file, or a database image) can replace the live database: a whole database of the engine's
 * and of payorch's, of a schema this build knows, whose secrets are sealed with this data directory's key (`keyCheck`).
 * Returns its schema version; throws SnapshotError('invalid_snapshot') saying what is wrong.
 */
export function checkSnapshot(
  engine: SnapshotEngine,
  source: { file: string } | { image: Buffer },
  keyCheck: string,
  label: string,
): number {
  const problem = engine.problem(source);
  if (problem) throw unrestorable(label, problem);
  let found: Inspected;
  try {
    found = engine.inspect(source);
  } catch (err) {
    throw unrestorable(label, `it is not a payorch database, or it is damaged (${(err as Error).message})`);
  }
  return checkRestorable(found, engine.schema, keyCheck, label);
}

export const isCurrentSchema = (engine: SnapshotEngine, schema: number) => schema === engine.schema;

// ------------------------------------------------------------------------------------------------ restore

/**
 * The snapshot's file, copied (or its spare renamed: no copy) to a private path in the snapshots directory, for a
 * restore to rename into place. The snapshot itself stays as it was (it can be restored again). Checked first.
 */
export async function stageSnapshot(
  engine: SnapshotEngine,
  dataDir: string,
  name: string,
  keyCheck: string,
): Promise<string> {
  const file = snapshotFile(dataDir, name);
  checkSnapshot(engine, { file }, keyCheck, JSON.stringify(name));
  const staged = tmpIn(dataDir, `${name}.restore`);
  try {
    renameSync(spareOf(dataDir, name), staged);
  } catch {
    await copyFile(file, staged, constants.COPYFILE_FICLONE); // off this thread (libuv's pool)
  }
  return staged;
}

/** A database image written to a private path in the snapshots directory, for a restore to rename into place. */
export function stageImage(dataDir: string, image: Buffer): string {
  ensureSnapshotsDir(dataDir);
  const staged = tmpIn(dataDir, 'image.restore');
  writeFileSync(staged, image, { mode: 0o600 });
  return staged;
}

/**
 * Puts the staged file in place of the database `dbPath`, whose every connection is closed: the engine's files
 * beside it go first (they belong to the database being replaced), then one rename.
 */
export function installStaged(engine: SnapshotEngine, staged: string, dbPath: string): void {
  for (const f of engine.companions(dbPath)) rmSync(f, { force: true });
  // The replaced database is freed off this thread: a rename over it would free its blocks inside the rename,
  // while requests wait.
  const old = `${staged}.old`;
  try {
    linkSync(dbPath, old);
  } catch {
    /* no database there yet */
  }
  renameSync(staged, dbPath);
  void rm(old, { force: true }).catch(() => undefined);
}

/**
 * Copies snapshot `name` ahead, off this thread, so that the next restore of it renames the copy into place instead
 * of copying a database-sized file while requests wait (bench/README.md "Snapshots"). Best effort: a
 * restore with no spare copies the snapshot itself.
 */
export async function makeSpare(dataDir: string, name: string): Promise<void> {
  const file = fileOf(dataDir, name);
  const spare = spareOf(dataDir, name);
  if (existsSync(spare)) return;
  const tmp = tmpIn(dataDir, `${name}.spare`);
  try {
    const before = statSync(file);
    await copyFile(file, tmp, constants.COPYFILE_FICLONE);
    const after = statSync(file);
    // The snapshot was replaced while it was being copied: this copy is of the old one.
    if (before.ino === after.ino && before.mtimeMs === after.mtimeMs) renameSync(tmp, spare);
  } catch {
    /* no spare: the next restore copies */
  } finally {
    rmSync(tmp, { force: true });
  }
}
