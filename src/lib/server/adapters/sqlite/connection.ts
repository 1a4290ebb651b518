// The connection: a database file (or an in-memory copy of an image) opened with the settings the store relies on,
// migrated, and its statements prepared once each.
import Database from 'better-sqlite3';
import type { Database as Connection, Statement } from 'better-sqlite3';
import { migrate } from './migrate.js';

/**
 * An in-memory database holding a copy of `image`. The image of a WAL database says so in its header (bytes 18–19
 * = 2), which an in-memory database cannot open: the copy says 1 (the rollback journal's format). The caller's
 * bytes are only changed while SQLite copies them.
 */
function openImage(image: Buffer): Connection {
  if (image.length < 100) return new Database(image); // not a database: SQLite says so
  const [a, b] = [image[18]!, image[19]!];
  image[18] = image[19] = 1;
  try {
    return new Database(image);
  } finally {
    image[18] = a;
    image[19] = b;
  }
}

/** The database file (or `:memory:`, or a database image), set up as the store uses it and migrated. */
export function openDatabase(source: string | Buffer): Connection {
  const db = typeof source === 'string' ? new Database(source) : openImage(source);
  // busy_timeout first: switching a fresh file to WAL needs a lock another process may be holding.
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL'); // WAL + NORMAL: a committed transaction survives a process crash (kill -9)
  db.pragma('foreign_keys = ON');
  // Savepoints and statements that fire triggers keep the pages they change in a sub-journal: past 64 KiB a
  // file-backed one spills to a temporary file and stops being truncated; in memory it is emptied as it goes.
  db.pragma('temp_store = MEMORY');
  migrate(db);
  return db;
}

/** `statement(sql)`: each statement prepared once per connection, then reused. */
export function preparedStatements(db: Connection): (sql: string) => Statement {
  const prepared = new Map<string, Statement>();
  return (sql) => {
    let stmt = prepared.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      prepared.set(sql, stmt);
    }
    return stmt;
  };
}
