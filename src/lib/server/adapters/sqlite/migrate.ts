// Migrations on SQLite: a database brought to the newest schema of store/migrations/, once, whichever process opens
// it first.
import type { Database as Connection } from 'better-sqlite3';
import { migrations } from '../../store/migrations/index.js';

/** Applies the migrations the database lacks; throws when a newer payorch wrote it. */
export function migrate(db: Connection): void {
  // Up to date (every open but the first after an upgrade): one read, no write lock — commands run side by side
  // on one data directory do not queue for it.
  if (upToDate(db)) return;
  // One IMMEDIATE transaction (the write lock first, then read what is applied): several processes opening
  // a fresh data directory at once (a server and CLI commands) must not run the same migration twice.
  db.transaction(() => {
    db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
    );
    const applied = new Set(
      (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
    );
    const known = Math.max(0, ...migrations.map((m) => m.version));
    const newest = Math.max(0, ...applied);
    if (newest > known) {
      throw new Error(
        `This data directory was written by a newer payorch (schema ${newest}; this build knows ${known}). Upgrade payorch or use another --data-dir.`,
      );
    }
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(m.version)) continue;
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        m.version,
        m.name,
        new Date().toISOString(),
      );
    }
  }).immediate();
}

/** Every known migration is applied, and no other (a newer payorch's is an error, raised by the full check). */
function upToDate(db: Connection): boolean {
  let applied: { version: number }[];
  try {
    applied = db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[];
  } catch {
    return false; // a new database: no table yet
  }
  if (applied.length !== migrations.length) return false;
  const known = new Set(migrations.map((m) => m.version));
  return applied.every((r) => known.has(r.version));
}
