// A consistent copy of a database file, made by SQLite itself (VACUUM INTO) from a read-only connection of its own:
// what a snapshot saves (snapshots.ts; in a worker thread, snapshotter.ts).
import Database from 'better-sqlite3';

export function vacuumInto(dbPath: string, to: string): void {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('VACUUM INTO ?').run(to);
  } finally {
    db.close();
  }
}
