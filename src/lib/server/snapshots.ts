// Snapshots of a data directory's database (docs/api.md "Snapshots"): `snapshots/NAME.sqlite` in the data
// directory (mode 0600, the directory 0700), each a consistent copy of the database made by SQLite (VACUUM INTO,
// from a read transaction of its own). What is here works on files: saving a copy, checking one before it is
// restored, preparing the file a restore puts in place, listing and deleting. Swapping a running server's database
// is restore.ts's (the request gate, the services made again); a stopped data directory's is datadir.ts's
// restoreSnapshotStopped.
import {
  closeSync,
  constants,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { migrations } from './store/migrations/index.js';
import type { SnapshotInfo } from '../contract/snapshots.js';
import { vacuumInto } from './store/sqlite/vacuum.js';

export const SNAPSHOTS_DIR = 'snapshots';
const EXT = '.sqlite';
/** Letters, digits, `.`, `_`, `-`; starting with a letter or digit (no hidden files, no `..`); at most 64. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** The newest schema this build knows. */
const KNOWN_SCHEMA = Math.max(0, ...migrations.map((m) => m.version));

export type SnapshotErrorCode = 'invalid_name' | 'snapshot_missing' | 'invalid_snapshot' | 'snapshots_unavailable';

export class SnapshotError extends Error {
  constructor(
    readonly code: SnapshotErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SnapshotError';
  }
}

export type { SnapshotInfo };

/** `name` if it can name a snapshot, else the error that says what names can be. */
export function checkName(name: string): string {
  if (!name.trim())
    throw new SnapshotError('invalid_name', 'A snapshot needs a name (letters, digits, `.`, `_` and `-`).');
  if (!NAME.test(name)) {
    throw new SnapshotError(
      'invalid_name',
      `Invalid snapshot name ${JSON.stringify(name.slice(0, 80))}: use 1–64 letters, digits, \`.\`, \`_\` and \`-\`, starting with a letter or digit.`,
    );
  }
  return name;
}

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
 * Saves a consistent copy of the database at `dbPath` as snapshot `name` (replacing one of that name). VACUUM INTO
 * from a read-only connection: one read transaction, so writers go on and the copy is what was committed when it
 * began; in a worker thread when `inWorker` (a running server goes on answering meanwhile).
 */
export async function saveSnapshot(
  dataDir: string,
  dbPath: string,
  name: string,
  { inWorker = false } = {},
): Promise<SnapshotInfo> {
  const file = fileOf(dataDir, name);
  ensureSnapshotsDir(dataDir);
  const tmp = tmpIn(dataDir, name);
  try {
    writeFileSync(tmp, '', { mode: 0o600 }); // VACUUM INTO fills an empty file: the copy is private from the start
    if (inWorker) await vacuumInWorker(dbPath, tmp);
    else vacuumInto(dbPath, tmp);
    rmSync(spareOf(dataDir, name), { force: true }); // a spare of the snapshot this one replaces
    renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
  return infoOf(dataDir, name);
}

/** Saves the bytes of a database (an in-memory server's) as snapshot `name`. */
export function saveImage(dataDir: string, image: Buffer, name: string): SnapshotInfo {
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
  return infoOf(dataDir, name);
}

function vacuumInWorker(from: string, to: string): Promise<void> {
  const worker = new Worker(new URL('./store/sqlite/snapshotter.js', import.meta.url), { workerData: { from, to } });
  return new Promise<void>((resolve, reject) => {
    worker.once('message', (m: { error?: string }) => (m.error === undefined ? resolve() : reject(new Error(m.error))));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the snapshot worker stopped (${code})`)));
  });
}

/** The file of the saved snapshot `name`; throws SnapshotError('snapshot_missing') when there is none. */
export function snapshotFile(dataDir: string, name: string): string {
  const file = fileOf(dataDir, name);
  if (!existsSync(file)) throw missing(dataDir, name);
  return file;
}

export function listSnapshots(dataDir: string): SnapshotInfo[] {
  let names: string[];
  try {
    names = readdirSync(dirOf(dataDir));
  } catch {
    return [];
  }
  const out: SnapshotInfo[] = [];
  for (const f of names) {
    const name = f.endsWith(EXT) ? f.slice(0, -EXT.length) : '';
    if (!NAME.test(name)) continue;
    try {
      out.push(infoOf(dataDir, name));
    } catch {
      /* deleted meanwhile */
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export function deleteSnapshot(dataDir: string, name: string): SnapshotInfo {
  const info = infoOf(dataDir, name);
  rmSync(spareOf(dataDir, name), { force: true });
  rmSync(fileOf(dataDir, name));
  return info;
}

export function infoOf(dataDir: string, name: string): SnapshotInfo {
  const file = fileOf(dataDir, name);
  let st;
  try {
    st = statSync(file);
  } catch {
    throw missing(dataDir, name);
  }
  let schema = 0;
  try {
    schema = inspectFile(file).schema;
  } catch {
    /* listed as it is; a restore says what is wrong with it */
  }
  return { object: 'snapshot', name, size: st.size, created_at: st.mtime.toISOString(), schema_version: schema };
}

function missing(dataDir: string, name: string): SnapshotError {
  const have = listNames(dataDir);
  return new SnapshotError(
    'snapshot_missing',
    `No snapshot named ${JSON.stringify(name)}${have.length ? ` (snapshots: ${have.join(', ')})` : ' (there are no snapshots yet: `payorch server snapshot save NAME`)'}.`,
  );
}

function listNames(dataDir: string): string[] {
  try {
    return readdirSync(dirOf(dataDir))
      .filter((f) => f.endsWith(EXT) && NAME.test(f.slice(0, -EXT.length)))
      .map((f) => f.slice(0, -EXT.length))
      .sort();
  } catch {
    return [];
  }
}

// ------------------------------------------------------------------------------------------------ checks

export interface Inspected {
  schema: number;
  /** The sealing-key check the database carries (datadir.ts), if any. */
  keyCheck?: string;
}

/** A database's schema version and key check, read on `db`. Throws SQLite's error for a file that is not one. */
function inspect(db: Database.Database): Inspected {
  const schema = (db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null }).v ?? 0;
  const row = db.prepare("SELECT value FROM meta WHERE key = 'sealing_key_check'").get() as
    | { value: string }
    | undefined;
  return { schema, keyCheck: row?.value };
}

function inspectFile(file: string): Inspected {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return inspect(db);
  } finally {
    db.close();
  }
}

/**
 * What is wrong with a database's first 100 bytes and size, if anything: not SQLite, or shorter than its header
 * says (a copy cut short). A snapshot is checked before anything of the live database is touched.
 */
function headerProblem(header: Buffer, size: number): string | undefined {
  if (size < 100 || header.toString('latin1', 0, 16) !== 'SQLite format 3\u0000') return 'it is not a SQLite database';
  const pageSize = header.readUInt16BE(16) === 1 ? 65536 : header.readUInt16BE(16);
  const pages = header.readUInt32BE(28);
  // The header's page count is valid when its change counter matches "version-valid-for" (SQLite file format §1.3.7).
  if (header.readUInt32BE(24) === header.readUInt32BE(92) && pages * pageSize > size)
    return `it is cut short (${size} of ${pages * pageSize} bytes)`;
  return undefined;
}

function readHeader(file: string): { header: Buffer; size: number } {
  const fd = openSync(file, 'r');
  try {
    const header = Buffer.alloc(100);
    readSync(fd, header, 0, 100, 0);
    return { header, size: statSync(file).size };
  } finally {
    closeSync(fd);
  }
}

/**
 * Checks that a snapshot (a file, or a database image) can replace the live database: a whole SQLite database of
 * payorch's, of a schema this build knows, whose secrets are sealed with this data directory's key (`keyCheck`).
 * Returns its schema version; throws SnapshotError('invalid_snapshot') saying what is wrong.
 */
export function checkSnapshot(source: { file: string } | { image: Buffer }, keyCheck: string, label: string): number {
  const bad = (why: string) =>
    new SnapshotError('invalid_snapshot', `Snapshot ${label} cannot be restored: ${why}. Nothing was changed.`);
  const { header, size } =
    'file' in source ? readHeader(source.file) : { header: source.image.subarray(0, 100), size: source.image.length };
  const problem = headerProblem(header, size);
  if (problem) throw bad(problem);
  let found: Inspected;
  try {
    if ('file' in source) found = inspectFile(source.file);
    else {
      const db = openImageReadOnly(source.image);
      try {
        found = inspect(db);
      } finally {
        db.close();
      }
    }
  } catch (err) {
    throw bad(`it is not a payorch database, or it is damaged (${(err as Error).message})`);
  }
  if (found.schema > KNOWN_SCHEMA)
    throw bad(`it was written by a newer payorch (schema ${found.schema}; this build knows ${KNOWN_SCHEMA})`);
  if (found.keyCheck !== undefined && found.keyCheck !== keyCheck) {
    throw bad('it was taken of another data directory (its secrets are sealed with another key)');
  }
  return found.schema;
}

function openImageReadOnly(image: Buffer): Database.Database {
  const copy = Buffer.from(image);
  copy[18] = copy[19] = 1; // see store/sqlite/db.ts openImage
  return new Database(copy, { readonly: true });
}

export const isCurrentSchema = (schema: number) => schema === KNOWN_SCHEMA;

// ------------------------------------------------------------------------------------------------ restore

/**
 * The snapshot's file, copied (or its spare renamed: no copy) to a private path in the snapshots directory, for a
 * restore to rename into place. The snapshot itself stays as it was (it can be restored again). Checked first.
 */
export async function stageSnapshot(dataDir: string, name: string, keyCheck: string): Promise<string> {
  const file = snapshotFile(dataDir, name);
  checkSnapshot({ file }, keyCheck, JSON.stringify(name));
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
 * Puts the staged file in place of the database `dbPath`, whose every connection is closed: its WAL and
 * shared-memory files go first (they belong to the database being replaced), then one rename.
 */
export function installStaged(staged: string, dbPath: string): void {
  rmSync(`${dbPath}-wal`, { force: true });
  rmSync(`${dbPath}-shm`, { force: true });
  // The replaced database is freed off this thread: a rename over it would free its blocks inside the rename
  // (measured: ~300 ms for 1 GB on ext4, while requests wait).
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
 * of copying a database-sized file while requests wait (measured in bench/README.md "Snapshots"). Best effort: a
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
