// SQLite store: one file per data directory (WAL), migrations, and the transaction helper.
import Database from 'better-sqlite3';
import { migrations } from './migrations.js';

export interface Store {
  readonly db: Database.Database;
  readonly path: string;
  /** Runs `fn` in one transaction (nested calls become savepoints). */
  tx<T>(fn: () => T): T;
  /**
   * Group commit: runs `fn` at once in its own savepoint of the shared batch transaction, and resolves only
   * after that batch has committed. Requests that arrive in the same event-loop turn share one COMMIT.
   * A throw from `fn` rolls back only its savepoint and rejects at once (nothing of it was written).
   */
  grouped<T>(fn: () => T): Promise<T>;
  close(): void;
}

export function openStore(path: string): Store {
  const db = new Database(path);
  // busy_timeout first: switching a fresh file to WAL needs a lock another process may be holding.
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL'); // WAL + NORMAL: a committed transaction survives a process crash (kill -9)
  db.pragma('foreign_keys = ON');
  migrate(db);
  const group = new GroupCommit(db);
  return {
    db,
    path,
    tx<T>(fn: () => T): T {
      return db.transaction(fn)();
    },
    grouped<T>(fn: () => T): Promise<T> {
      return group.run(fn);
    },
    close() {
      if (db.open) db.close();
    },
  };
}

/**
 * One write transaction shared by every request handled in the same event-loop turn, committed in the
 * check phase (setImmediate) — after the poll phase has run every handler whose request was ready.
 * Measured here: one COMMIT per request caps create-session near 0.2× a bare node:http server; sharing
 * commits writes each touched b-tree page once per batch instead of once per request. Durability is
 * unchanged: nothing is acknowledged before its COMMIT returned (WAL, synchronous=NORMAL: survives a
 * process crash).
 */
class GroupCommit {
  private waiters: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  private open = false;

  constructor(private readonly db: Database.Database) {}

  run<T>(fn: () => T): Promise<T> {
    if (!this.open) {
      if (this.db.inTransaction) return Promise.resolve(this.db.transaction(fn)()); // inside someone else's tx
      this.db.exec('BEGIN IMMEDIATE');
      this.open = true;
      setImmediate(() => this.commit());
    }
    let result: T;
    try {
      result = this.db.transaction(fn)(); // a SAVEPOINT inside the batch
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<T>((resolve, reject) => this.waiters.push({ resolve: () => resolve(result), reject }));
  }

  private commit(): void {
    const waiters = this.waiters;
    this.waiters = [];
    this.open = false;
    try {
      this.db.exec('COMMIT');
    } catch (err) {
      try {
        this.db.exec('ROLLBACK');
      } catch {
        /* already rolled back */
      }
      for (const w of waiters) w.reject(err);
      return;
    }
    for (const w of waiters) w.resolve();
  }
}

function migrate(db: Database.Database): void {
  // One IMMEDIATE transaction (the write lock first, then read what is applied): several processes opening
  // a fresh data directory at once (a server and CLI commands) must not run the same migration twice.
  db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version));
    const known = Math.max(0, ...migrations.map((m) => m.version));
    const newest = Math.max(0, ...applied);
    if (newest > known) {
      throw new Error(`This data directory was written by a newer payorch (schema ${newest}; this build knows ${known}). Upgrade payorch or use another --data-dir.`);
    }
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(m.version)) continue;
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, new Date().toISOString());
    }
  }).immediate();
}

/** The key of a count series: its columns sorted, comma-joined ('' = every row of the account). */
export const countColumns = (cols: string[]) => [...cols].sort().join(',');
/** How a value is written into a count key (same rule in SQL below and in Collection). */
export const COUNT_NULL = '\u0000';
export const COUNT_SEPARATOR = '\u001f';
export const countValues = (values: (string | number | null)[]) => values.map((v) => (v === null ? COUNT_NULL : String(v))).join(COUNT_SEPARATOR);

/**
 * SQL for a document table: `seq` orders rows (newest = highest, keyset pagination), `id` is the public id,
 * `data` the JSON document; `columns` are extra columns, `indexes` the filter sets lists use (each gets an
 * index and an exact row count per account, kept by triggers in `list_counts`, so that a list's
 * `total_count` costs the same with a thousand rows as with a million).
 */
export function documentTable(table: string, columns: Record<string, string> = {}, indexes: string[][] = []): string {
  const cols = Object.entries(columns).map(([name, type]) => `  ${name} ${type},`).join('\n');
  const idx = indexes
    .map((cs) => `CREATE INDEX IF NOT EXISTS ${table}_${cs.join('_')} ON ${table} (account_id, ${cs.join(', ')}, seq);`)
    .join('\n');
  const specs = [[], ...indexes].map((cs) => [...cs].sort());
  const key = (row: 'NEW' | 'OLD', cs: string[]) =>
    cs.length === 0 ? "''" : cs.map((c) => `COALESCE(CAST(${row}.${c} AS TEXT), char(0))`).join(' || char(31) || ');
  const bump = (row: 'NEW' | 'OLD', cs: string[], delta: '+ 1' | '- 1', when = '') => {
    const where = `tbl = '${table}' AND account_id = ${row}.account_id AND cols = '${cs.join(',')}' AND vals = ${key(row, cs)}`;
    const ins =
      delta === '+ 1'
        ? `  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT '${table}', ${row}.account_id, '${cs.join(',')}', ${key(row, cs)}, 0${when ? ` WHERE ${when}` : ''};\n`
        : '';
    return `${ins}  UPDATE list_counts SET n = n ${delta} WHERE ${where}${when ? ` AND ${when}` : ''};`;
  };
  const changed = (cs: string[]) => (cs.length ? `(${key('OLD', cs)}) IS NOT (${key('NEW', cs)})` : '0');
  const watched = [...new Set(indexes.flat())];
  return `
CREATE TABLE ${table} (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  account_id TEXT NOT NULL,
${cols}
  data TEXT NOT NULL
);
CREATE INDEX ${table}_account_seq ON ${table} (account_id, seq);
${idx}
${specs.map((cs) => `INSERT INTO count_specs (tbl, cols) VALUES ('${table}', '${cs.join(',')}');`).join('\n')}
CREATE TRIGGER ${table}_count_insert AFTER INSERT ON ${table} BEGIN
${specs.map((cs) => bump('NEW', cs, '+ 1')).join('\n')}
END;
CREATE TRIGGER ${table}_count_delete AFTER DELETE ON ${table} BEGIN
${specs.map((cs) => bump('OLD', cs, '- 1')).join('\n')}
END;
${
  watched.length
    ? `CREATE TRIGGER ${table}_count_update AFTER UPDATE OF ${watched.join(', ')} ON ${table} BEGIN
${specs
  .filter((cs) => cs.length)
  .map((cs) => `${bump('OLD', cs, '- 1', changed(cs))}\n${bump('NEW', cs, '+ 1', changed(cs))}`)
  .join('\n')}
END;`
    : ''
}`;
}
