// The SQLite adapter's store: one database file per data directory (WAL), its transactions as the seam's, and what
// only the adapter's own files use. The parts it is made of: connection.ts, transactions.ts, groupcommit.ts,
// counts.ts, checkpoints.ts, longread.ts.

// The types by name (not through the default import): the declarations a CommonJS application compiles against
// then need no esModuleInterop to read them.
import type { Database as Connection, Statement } from 'better-sqlite3';
import { startCheckpoints, type BackgroundCheckpoints } from './checkpoints.js';
import { openDatabase, preparedStatements } from './connection.js';
import { GroupCommit } from './groupcommit.js';
import { LongRead, LongReads } from './longread.js';
import { Transactions } from './transactions.js';
import type { ReadAway, Store as SeamStore } from '../../store/seam.js';

/** The SQLite adapter's store: the seam's transactions, and what only the adapter's own files may use. */
export interface SqliteDatabase extends SeamStore {
  readonly db: Connection;
  readonly path: string;
  /** The prepared statement for `sql`: prepared once per connection, then reused. */
  statement(sql: string): Statement;
  // grouped (a group commit: see GroupCommit), read, alone: the seam's (store/seam.ts).
  /** The seam's tx; synchronous work (the adapter's own, tests) runs and answers at once. */
  tx<T>(fn: () => Promise<T>): Promise<T>;
  tx<T>(fn: () => T): T;
  /**
   * For a long-running server: long reads in a worker thread of their own, until `close()`/`stopBackgroundReads()`.
   * The worker starts with the first long read: a server that never gets one does not pay for it.
   */
  readInBackground(): void;
  stopBackgroundReads(): Promise<void>;
  /**
   * Calls `listener` after every rollback on this connection (of a transaction, a savepoint or a group): for
   * in-memory copies of stored values (the clock's offsets) that must not outlive the writes undone.
   */
  onRollback(listener: () => void): void;
  /**
   * Calls `listener` after every COMMIT on this connection (a group commit's batch, a transaction of its own):
   * for what waits for committed data (the event log's readers and webhook deliveries).
   */
  onCommit(listener: () => void): void;
  /**
   * Adds `delta` to a list's exact row count in `list_counts` (table, account, filter columns and their values,
   * encoded by countColumns/countValues). In a transaction of this store the change is tallied and written once
   * per count just before COMMIT (and before a savepoint opens); outside one it is written at once. Collection
   * calls it for every row it inserts, deletes or moves between filter values.
   */
  count(table: string, accountId: string, cols: string, vals: string, delta: number): void;
  /** Writes the tallied count changes of the open transaction now (before `list_counts` is read in it). */
  flushCounts(): void;
  /** A kept count (as `count` keys it), with the open transaction's own changes: 0 when none was ever kept. */
  counted(table: string, accountId: string, cols: string, vals: string): number;
  /**
   * For a long-running server: checkpoint the WAL from a worker thread instead of inside COMMITs on this
   * thread. Resolves once the worker runs; `stopBackgroundCheckpoints()` (or `close()`) ends it. Past
   * `resetBytes` of WAL (64 MB: rare enough that requests seldom wait) this thread finishes one checkpoint
   * (and syncs the database file) between two batches. `onHandOff` is called on this thread right after each such
   * checkpoint (tests observe the mechanism with it).
   */
  checkpointInBackground(options?: { intervalMs?: number; resetBytes?: number; onHandOff?: () => void }): Promise<void>;
  /** Stops background checkpoints (a last checkpoint first); a no-op when none run. */
  stopBackgroundCheckpoints(): Promise<void>;
  close(): void;
}

/**
 * Opens the database file at `path` (or `:memory:`), or, given the bytes of a database (`serializeSqliteDatabase`), an
 * in-memory database holding a copy of them (a restored snapshot of an in-memory server).
 */
export function openSqliteDatabase(source: string | Buffer): SqliteDatabase {
  const path = typeof source === 'string' ? source : ':memory:';
  const db = openDatabase(source);
  const tx = new Transactions(db);
  const group = new GroupCommit(db, tx);
  const statement = preparedStatements(db);
  const longReads = new LongReads(path);
  /** The checkpointer, from the moment it is asked for (a stop while it starts waits for it, then stops it). */
  let checkpoints: Promise<BackgroundCheckpoints | undefined> | undefined;
  return {
    db,
    path,
    // One request's work at a time: the adapter's promises settle in microtasks, a request runs to its end before
    // the next starts (a long read in its worker thread reads only).
    serial: true,
    statement,
    tx<T>(fn: () => T): T {
      return tx.run(fn) as T; // a promise of the value when `fn` answers with one
    },
    grouped<T>(fn: () => T | Promise<T>): Promise<T> {
      return group.run(fn);
    },
    read<T>(fn: () => T | Promise<T>): Promise<T> {
      return group.read(fn);
    },
    alone<T>(fn: () => T | Promise<T>): Promise<T> {
      return group.alone(fn);
    },
    readAway<T>(read: ReadAway<T>): Promise<T> {
      if (!(read instanceof LongRead)) return Promise.reject(new Error('a read made by another engine'));
      const long = read as LongRead<T>;
      return longReads.run(long, () =>
        group.read(() => long.finish(long.queries.map((q) => statement(q.sql).all(...q.params)))),
      );
    },
    readInBackground() {
      longReads.enable();
    },
    stopBackgroundReads() {
      return longReads.stop();
    },
    onRollback(listener: () => void) {
      tx.rollbackListeners.push(listener);
    },
    onCommit(listener: () => void) {
      tx.commitListeners.push(listener);
    },
    count(table: string, accountId: string, cols: string, vals: string, delta: number) {
      tx.counts.add(table, accountId, cols, vals, delta, tx.managed());
    },
    flushCounts() {
      tx.counts.flush();
    },
    counted(table: string, accountId: string, cols: string, vals: string) {
      tx.counts.flush(); // this transaction's own changes, if it made any
      const row = statement('SELECT n FROM list_counts WHERE tbl = ? AND account_id = ? AND cols = ? AND vals = ?').get(
        table,
        accountId,
        cols,
        vals,
      ) as { n: number } | undefined;
      return row?.n ?? 0;
    },
    async checkpointInBackground(options = {}) {
      if (checkpoints || path === ':memory:') return;
      const starting = startCheckpoints(db, path, group, options, () => (checkpoints = undefined));
      checkpoints = starting.catch(() => undefined);
      await starting;
    },
    async stopBackgroundCheckpoints() {
      const running = checkpoints;
      checkpoints = undefined;
      await (await running)?.stop();
    },
    close() {
      longReads.kill();
      void checkpoints?.then((c) => c?.kill());
      checkpoints = undefined;
      if (db.open) db.close();
    },
  };
}

/**
 * The committed content of the store's database as bytes (SQLite's serialization: a database file's image), taken
 * once no group-commit batch is open, in a read transaction of its own.
 */
export function serializeSqliteDatabase(store: SqliteDatabase): Promise<Buffer> {
  return store.read(() => store.db.serialize());
}
