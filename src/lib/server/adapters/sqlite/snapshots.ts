// Snapshots in SQLite (adapters/engine.ts SnapshotEngine): a consistent copy made by SQLite itself (VACUUM INTO, from a
// read-only connection of its own: one read transaction, so writers go on and the copy is what was committed when it
// began), and a saved database checked (header, schema version, key check) before it replaces the live one.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { Inspected, SnapshotEngine } from '../engine.js';
import { sqliteCompanions } from './files.js';
import { migrations } from '../../store/migrations/index.js';
import { vacuumInto } from './vacuum.js';

export const sqliteSnapshots: SnapshotEngine = {
  schema: Math.max(0, ...migrations.map((m) => m.version)),
  companions: sqliteCompanions,
  async copy(dbPath, to, { inWorker = false } = {}) {
    if (inWorker) await vacuumInWorker(dbPath, to);
    else vacuumInto(dbPath, to);
  },
  problem(source) {
    const { header, size } =
      'file' in source ? readHeader(source.file) : { header: source.image.subarray(0, 100), size: source.image.length };
    return headerProblem(header, size);
  },
  inspect(source) {
    const db =
      'file' in source
        ? new Database(source.file, { readonly: true, fileMustExist: true })
        : openImageReadOnly(source.image);
    try {
      return inspect(db);
    } finally {
      db.close();
    }
  },
};

/** VACUUM INTO in the snapshot worker (snapshotter.ts): the server's thread goes on answering meanwhile. */
function vacuumInWorker(from: string, to: string): Promise<void> {
  const worker = new Worker(new URL('./snapshotter.js', import.meta.url), { workerData: { from, to } });
  return new Promise<void>((resolve, reject) => {
    worker.once('message', (m: { error?: string }) => (m.error === undefined ? resolve() : reject(new Error(m.error))));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the snapshot worker stopped (${code})`)));
  });
}

/** A database's schema version and key check, read on `db`. Throws SQLite's error for a file that is not one. */
function inspect(db: Database.Database): Inspected {
  const schema = (db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null }).v ?? 0;
  const row = db.prepare("SELECT value FROM meta WHERE key = 'sealing_key_check'").get() as
    | { value: string }
    | undefined;
  return { schema, keyCheck: row?.value };
}

/**
 * What is wrong with a database's first 100 bytes and size, if anything: not SQLite, or shorter than its header
 * says (a copy cut short).
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

function openImageReadOnly(image: Buffer): Database.Database {
  const copy = Buffer.from(image);
  copy[18] = copy[19] = 1; // see db.ts openImage
  return new Database(copy, { readonly: true });
}
