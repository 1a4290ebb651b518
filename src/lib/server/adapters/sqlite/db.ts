// SQLite store: one file per data directory (WAL), migrations, and the transaction helper.
import Database from 'better-sqlite3';
// The types by name (not through the default import): the declarations a CommonJS application compiles against
// then need no esModuleInterop to read them.
import type { Database as Connection, Statement } from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import { migrations } from '../../store/migrations/index.js';
import { LongRead, LongReads } from './longread.js';
import type { ReadAway, Store as SeamStore } from '../../store/seam.js';

/** The SQLite adapter's store: the seam's transactions, and what only the adapter's own files may use. */
export interface SqliteStore extends SeamStore {
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
   * The worker starts with the first long read (~25 ms and ~8 MB that a server which never gets one does not pay).
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
   * `resetBytes` of WAL this thread finishes one checkpoint (and syncs the database file) between two batches:
   * at 16 MB that was ~1.4% of a create-session's time under load, hence 64 MB. `onHandOff` is called on this
   * thread right after each such checkpoint (tests observe the mechanism with it).
   */
  checkpointInBackground(options?: { intervalMs?: number; resetBytes?: number; onHandOff?: () => void }): Promise<void>;
  /** Stops background checkpoints (a last checkpoint first); a no-op when none run. */
  stopBackgroundCheckpoints(): Promise<void>;
  close(): void;
}

/**
 * Opens the database file at `path` (or `:memory:`), or, given the bytes of a database (`serializeStore`), an
 * in-memory database holding a copy of them (a restored snapshot of an in-memory server).
 */
export function openStore(source: string | Buffer): SqliteStore {
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
export function serializeStore(store: Store): Promise<Buffer> {
  return store.read(() => store.db.serialize());
}

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

/** The database file (or `:memory:`, or a database image), set up as the store uses it and migrated to the newest schema. */
function openDatabase(source: string | Buffer): Connection {
  const db = typeof source === 'string' ? new Database(source) : openImage(source);
  // busy_timeout first: switching a fresh file to WAL needs a lock another process may be holding.
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL'); // WAL + NORMAL: a committed transaction survives a process crash (kill -9)
  db.pragma('foreign_keys = ON');
  // Savepoints (nested tx(), a group commit's requests after a failure in their batch) and statements that fire
  // triggers keep the pages they change in a sub-journal, so that they can be rolled back alone. Past 64 KiB a
  // file-backed sub-journal spills to a temporary file and stops being truncated: measured, when every request
  // had a savepoint, its writes were ~15% of a create-session's server time. In memory it is emptied as it goes.
  db.pragma('temp_store = MEMORY');
  migrate(db);
  return db;
}

/** `statement(sql)`: each statement prepared once per connection, then reused. */
function preparedStatements(db: Connection): (sql: string) => Statement {
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

/** The checkpointer worker once started: `stop` lets it finish a last checkpoint, `kill` ends it at once. */
interface BackgroundCheckpoints {
  stop(): Promise<void>;
  kill(): void;
}

/**
 * Starts the checkpointer worker (adapters/sqlite/checkpointer.ts) and turns SQLite's own checkpoints on this
 * connection off while it runs; resolves once it runs. Should the worker fail, this connection checkpoints again and
 * `onFailed` is told.
 */
async function startCheckpoints(
  db: Connection,
  path: string,
  group: GroupCommit,
  {
    intervalMs = 100,
    resetBytes = 64 * 1024 * 1024,
    onHandOff,
  }: { intervalMs?: number; resetBytes?: number; onHandOff?: () => void },
  onFailed: () => void,
): Promise<BackgroundCheckpoints> {
  const worker = new Worker(new URL('./checkpointer.js', import.meta.url), {
    workerData: { path, intervalMs, resetBytes },
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('online', () => resolve());
    worker.once('error', reject);
  });
  let running = true;
  const selfCheckpoints = () => {
    if (db.open) db.pragma('wal_autocheckpoint = 1000');
  };
  worker.on('error', () => {
    // The worker failed (it only checkpoints): go back to SQLite's own checkpoints on this thread.
    if (!running) return;
    running = false;
    selfCheckpoints();
    onFailed();
  });
  worker.on(
    'message',
    (m) => m === 'finish-checkpoint' && group.finishCheckpoint(() => worker.postMessage('finished'), onHandOff),
  );
  worker.unref();
  db.pragma('wal_autocheckpoint = 0');
  return {
    async stop() {
      if (!running) return;
      running = false;
      worker.ref(); // keep the process alive until the worker has finished its last checkpoint
      await new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        worker.on('message', (m) => m === 'stopped' && void worker.terminate());
        worker.postMessage('stop');
      });
      selfCheckpoints();
    },
    kill() {
      running = false;
      void worker.terminate();
    },
  };
}

/**
 * The row-count changes of the open transaction (Store.count), one entry per count. Measured: when triggers
 * kept the counts, every insert, delete and filter-value change ran two statements per count (INSERT OR
 * IGNORE, UPDATE) — a confirm-payment fires ~20 of them, ~14% of its CPU. Tallied here, a group-commit batch
 * writes each count once (one UPSERT), however many requests changed it.
 */
class Counts {
  private readonly pending = new Map<
    string,
    { table: string; accountId: string; cols: string; vals: string; n: number }
  >();
  private readonly upsert: Statement;

  constructor(db: Connection) {
    this.upsert = db.prepare(
      'INSERT INTO list_counts (tbl, account_id, cols, vals, n) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tbl, account_id, cols, vals) DO UPDATE SET n = n + excluded.n',
    );
  }

  /** Tallies the change (`defer`: in a transaction of this store), or writes it now (autocommit, or a transaction the store did not open). */
  add(table: string, accountId: string, cols: string, vals: string, delta: number, defer: boolean): void {
    if (!defer) {
      this.upsert.run(table, accountId, cols, vals, delta);
      return;
    }
    const key = `${table}\u001e${accountId}\u001e${cols}\u001e${vals}`;
    const entry = this.pending.get(key);
    if (entry) entry.n += delta;
    else this.pending.set(key, { table, accountId, cols, vals, n: delta });
  }

  /**
   * Writes what is tallied (in the open transaction or savepoint) and starts a new tally. An entry leaves the
   * tally only once written: when a write fails and SQLite undoes only that statement (a full disk), the rest
   * stays tallied for the transaction's next flush, so the rows the transaction keeps are still counted.
   */
  flush(): void {
    for (const [key, e] of this.pending) {
      if (e.n !== 0) this.upsert.run(e.table, e.accountId, e.cols, e.vals, e.n);
      this.pending.delete(key);
    }
  }

  /** Forgets the tally: its changes were rolled back. */
  clear(): void {
    this.pending.clear();
  }
}

/** A transaction's work: a value at once (synchronous code), or a promise of it (code that awaits the store). */
type Work<T> = T | Promise<T>;

const isPromise = <T>(v: Work<T>): v is Promise<T> =>
  v !== null && typeof v === 'object' && typeof (v as { then?: unknown }).then === 'function';

/**
 * `fn()`, then `ok` with its value or `fail` with what it threw: at once when `fn` answers at once, after it settles
 * when it answers with a promise. Synchronous work so pays no microtask; `ok` is never given to `fail`.
 */
function andThen<T, R>(fn: () => Work<T>, ok: (value: T) => Work<R>, fail: (err: unknown) => Work<R>): Work<R> {
  let value: Work<T>;
  try {
    value = fn();
  } catch (err) {
    return fail(err);
  }
  return isPromise(value) ? value.then(ok, fail) : ok(value);
}

/** `step` for each item in order, each after the previous one settled; stops when a step answers `false`. */
function inOrder<T>(items: readonly T[], step: (item: T) => Work<boolean | void>, from = 0): Work<void> {
  for (let i = from; i < items.length; i++) {
    const r = step(items[i]!);
    if (isPromise(r)) return r.then((go) => (go === false ? undefined : inOrder(items, step, i + 1)));
    if (r === false) return;
  }
}

const ignore = () => undefined;

/**
 * Transactions with prepared BEGIN/SAVEPOINT statements (a nested call becomes a savepoint). Measured:
 * better-sqlite3's `db.transaction(fn)()` builds a new wrapper on every call, ~5 µs per request. Each takes work
 * that answers at once or with a promise (it awaits the store); either way the transaction ends when the work has.
 */
class Transactions {
  readonly begin: Statement;
  readonly beginImmediate: Statement;
  readonly commit: Statement;
  readonly rollback: Statement;
  private readonly savepoint: Statement;
  private readonly release: Statement;
  private readonly rollbackTo: Statement;
  private readonly queryOnly: Statement;
  private readonly queryAny: Statement;
  readonly rollbackListeners: (() => void)[] = [];
  readonly commitListeners: (() => void)[] = [];
  readonly counts: Counts;
  /** Transactions of this store open now (outer ones; a group-commit batch counts as one, see GroupCommit). */
  depth = 0;

  constructor(private readonly db: Connection) {
    this.counts = new Counts(db);
    this.begin = db.prepare('BEGIN');
    this.beginImmediate = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    this.savepoint = db.prepare('SAVEPOINT payorch');
    this.release = db.prepare('RELEASE payorch');
    this.rollbackTo = db.prepare('ROLLBACK TO payorch');
    this.queryOnly = db.prepare('PRAGMA query_only = 1');
    this.queryAny = db.prepare('PRAGMA query_only = 0');
  }

  /** `fn` in a read-only transaction (outside any other: it sees what is committed, and cannot write). */
  read<T>(fn: () => Work<T>): Work<T> {
    this.queryOnly.run();
    return andThen(
      () => this.outer(fn, this.begin, false),
      (value) => {
        this.queryAny.run();
        return value;
      },
      (err) => {
        this.queryAny.run();
        throw err;
      },
    );
  }

  run<T>(fn: () => Work<T>): Work<T> {
    return this.db.inTransaction ? this.nested(fn) : this.outer(fn);
  }

  /** Tells the commit listeners (Store.onCommit). */
  committed(): void {
    for (const listener of this.commitListeners) listener();
  }

  /** Whether a transaction of this store is open (its count changes are tallied until its COMMIT). */
  managed(): boolean {
    return this.depth > 0 && this.db.inTransaction;
  }

  /** Tells the rollback listeners (Store.onRollback); the tallied count changes are undone with the rest. */
  rolledBack(): void {
    this.counts.clear();
    for (const listener of this.rollbackListeners) listener();
  }

  /** `fn` in a savepoint of the open transaction: a throw undoes only its own writes. */
  nested<T>(fn: () => Work<T>): Work<T> {
    // What is tallied so far belongs outside the savepoint: written now, the tally holds only the savepoint's own.
    this.counts.flush();
    this.savepoint.run();
    return andThen(
      fn,
      (result) => {
        this.release.run();
        return result;
      },
      (err) => {
        // SQLite may already have rolled the whole transaction back (disk full, I/O error): nothing to undo here.
        if (this.db.inTransaction) {
          this.rollbackTo.run();
          this.release.run();
        }
        this.rolledBack();
        throw err;
      },
    );
  }

  /** `fn` in a write transaction of its own (the write lock first: no deadlock upgrading a read). */
  immediate<T>(fn: () => Work<T>): Work<T> {
    return this.outer(fn, this.beginImmediate);
  }

  private outer<T>(fn: () => Work<T>, begin = this.begin, write = true): Work<T> {
    begin.run();
    this.depth++;
    const fail = (err: unknown): never => {
      try {
        if (this.db.inTransaction) this.rollback.run();
        this.rolledBack();
      } finally {
        this.depth--;
      }
      throw err;
    };
    return andThen(
      fn,
      (result) => {
        try {
          this.counts.flush();
          this.commit.run();
        } catch (err) {
          return fail(err);
        }
        this.depth--;
        if (write) this.committed();
        return result;
      },
      fail,
    );
  }
}

interface Entry {
  fn: () => unknown;
  result?: unknown;
  /** Set when the request failed when run again (see GroupCommit.run). */
  failed?: { err: unknown };
  resolve?: (value: unknown) => void;
  reject?: (err: unknown) => void;
}

interface Batch {
  entries: Entry[];
  /** Reads (and lone writes) that arrived while the batch was open: they run once it has committed or been undone. */
  readers: (() => void)[];
  /** SQLite rolled the whole batch back under a failing request (disk full, I/O error). */
  lost: boolean;
  /** What made SQLite roll it back (the cause the batch's other requests are rejected with). */
  lostBy?: unknown;
  /** A request of this batch failed: from then on each runs in a savepoint of its own. */
  guarded: boolean;
  /** Its transaction is open (counted in Transactions.depth). */
  open: boolean;
  /** Its COMMIT is due (the turn it was opened in has ended): later requests wait for the next batch. */
  closing: boolean;
}

/**
 * One write transaction shared by every request handled in the same event-loop turn, committed in the
 * check phase (setImmediate) — after the poll phase has run every handler whose request was ready.
 * Measured here: one COMMIT per request caps create-session near 0.2× a bare node:http server; sharing
 * commits writes each touched b-tree page once per batch instead of once per request. Durability is
 * unchanged: nothing is acknowledged before its COMMIT returned (WAL, synchronous=NORMAL: survives a
 * process crash).
 *
 * The connection serves one piece of work at a time: a request's work that answers with a promise (it awaits the
 * store) holds it until that promise settles, and every other request, read or step waits meanwhile (`busy`). The
 * store's own promises settle in microtasks, so such work still runs to its end before the next one starts, and
 * the batch commits once the last of them has. Work that answers at once never waits for anything.
 */
class GroupCommit {
  private batch?: Batch;
  /** Settles when the work holding the connection has ended (never rejects); undefined when none holds it. */
  private busy?: Promise<void>;
  private checkpointWanted?: { then: () => void; checkpointed?: () => void };
  /** Called when the batch after a finished checkpoint commits (see finishCheckpoint). */
  private afterNextCommit?: () => void;
  private readonly checkpoint: Statement;

  constructor(
    private readonly db: Connection,
    private readonly tx: Transactions,
  ) {
    this.checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  }

  /** `work` holds the connection until it settles. */
  private hold<T>(work: Work<T>): Work<T> {
    if (!isPromise(work)) return work;
    const settled = work.then(ignore, ignore);
    this.busy = settled;
    void settled.then(() => {
      if (this.busy === settled) this.busy = undefined;
    });
    return work;
  }

  /**
   * One checkpoint on this connection, between two batches (background checkpoints cannot finish under
   * constant load; see adapters/sqlite/checkpointer.ts): lets the WAL file start over.
   */
  finishCheckpoint(then: () => void, checkpointed?: () => void): void {
    if (this.batch || this.busy || this.db.inTransaction) {
      this.checkpointWanted = { then, checkpointed }; // after the open batch's COMMIT
      return;
    }
    this.checkpointWanted = undefined;
    try {
      this.checkpoint.run();
    } catch {
      then(); // busy: asked again on the next round
      return;
    }
    checkpointed?.();
    // `then` lets the worker checkpoint again; not before the next batch has started the WAL over: a checkpoint
    // of the worker's that holds a read mark at that moment makes SQLite skip the restart (seen in tests).
    this.afterNextCommit = then;
  }

  /**
   * Runs `fn` in the open batch. Requests run without a savepoint of their own until one fails: measured, a
   * SAVEPOINT/RELEASE per request and the sub-journal copies of every page it changes were ~4.5% of a
   * create-session. When one fails, the whole batch is rolled back and the requests that had succeeded run
   * again, in order, each in a savepoint (so that one failing now undoes only itself), as does every later
   * request of the batch. Nothing was acknowledged yet, so their first results are simply replaced; what they
   * keep in memory must follow rollbacks (Store.onRollback) — handlers are otherwise functions of the database.
   */
  run<T>(fn: () => Work<T>): Promise<T> {
    if (this.busy) {
      const busy = this.busy;
      return busy.then(() => this.run(fn));
    }
    if (this.batch?.closing) {
      const batch = this.batch;
      return new Promise<T>((resolve, reject) => batch.readers.push(() => void this.run(fn).then(resolve, reject)));
    }
    if (!this.batch) {
      if (this.db.inTransaction) return Promise.resolve(this.tx.run(fn)); // inside someone else's (synchronous) transaction
      this.tx.beginImmediate.run();
      const batch: Batch = { entries: [], readers: [], lost: false, guarded: false, open: true, closing: false };
      this.tx.depth++;
      this.batch = batch;
      setImmediate(() => this.due(batch));
    }
    const batch = this.batch;
    const entry: Entry = { fn };
    let answer!: Promise<T>;
    const work = andThen(
      () => (batch.guarded ? this.tx.nested(fn) : fn()),
      (result): void => {
        entry.result = result;
        batch.entries.push(entry);
        answer = new Promise<T>((resolve, reject) => {
          entry.resolve = resolve as (value: unknown) => void;
          entry.reject = reject;
        });
      },
      (err): Work<void> => {
        const failed = () => {
          answer = Promise.reject(err);
        };
        if (!this.db.inTransaction) {
          batch.lost = true; // the requests before this one in the batch were rolled back with it
          batch.lostBy = err;
          if (this.batch === batch) this.batch = undefined;
          this.ended(batch);
          this.tx.rolledBack();
        } else if (!batch.guarded) {
          const guarding = this.guard(batch);
          if (isPromise(guarding)) return guarding.then(failed);
        }
        failed();
      },
    );
    if (!isPromise(work)) return answer;
    void this.hold(work);
    return work.then(() => answer);
  }

  /** `fn` as a read of committed data: now when no batch is open, else once the open batch has ended. */
  read<T>(fn: () => Work<T>): Promise<T> {
    return this.afterBatch(() => this.tx.read(fn), fn);
  }

  /** `fn` in a write transaction of its own, once no batch is open: it is never run twice (see run). */
  alone<T>(fn: () => Work<T>): Promise<T> {
    return this.afterBatch(() => this.tx.immediate(fn), fn);
  }

  private afterBatch<T>(run: () => Work<T>, fn: () => Work<T>): Promise<T> {
    if (this.busy) {
      const busy = this.busy;
      return busy.then(() => this.afterBatch(run, fn));
    }
    if (!this.batch) {
      try {
        // In someone else's (synchronous) transaction: as part of it.
        return Promise.resolve(this.hold(this.db.inTransaction ? this.tx.run(fn) : run()));
      } catch (err) {
        return Promise.reject(err);
      }
    }
    const batch = this.batch;
    return new Promise<T>((resolve, reject) => {
      batch.readers.push(() => void this.afterBatch(run, fn).then(resolve, reject));
    });
  }

  /** The batch's transaction is over (committed or undone): its count changes are no longer tallied. */
  private ended(batch: Batch): void {
    if (!batch.open) return;
    batch.open = false;
    this.tx.depth--;
  }

  /** Runs the reads that waited for `batch` (or hands them to the batch open now, if one is). */
  private release(batch: Batch): void {
    const readers = batch.readers;
    batch.readers = [];
    for (const reader of readers) reader();
  }

  /**
   * Undoes the batch and runs its requests that had succeeded again, each in its own savepoint, in order (each
   * after the previous one's work has settled).
   */
  private guard(batch: Batch): Work<void> {
    this.tx.rollback.run();
    this.tx.rolledBack();
    batch.guarded = true;
    try {
      this.tx.beginImmediate.run();
    } catch {
      // The write lock went to another process meanwhile and did not come back in time: the batch is lost.
      batch.lost = true;
      if (this.batch === batch) this.batch = undefined;
      this.ended(batch);
      return;
    }
    return inOrder(batch.entries, (entry) =>
      andThen<unknown, boolean | void>(
        () => this.tx.nested(entry.fn),
        (result) => {
          entry.result = result;
        },
        (err) => {
          entry.failed = { err };
          if (this.db.inTransaction) return;
          batch.lost = true;
          batch.lostBy = err;
          if (this.batch === batch) this.batch = undefined;
          this.ended(batch);
          this.tx.rolledBack();
          return false;
        },
      ),
    );
  }

  /** The turn that opened `batch` has ended: it commits once the work holding the connection has settled. */
  private due(batch: Batch): void {
    batch.closing = true;
    if (this.busy) void this.busy.then(() => this.due(batch));
    else this.commit(batch);
  }

  private commit(batch: Batch): void {
    if (this.batch === batch) this.batch = undefined;
    // This batch's first write has started the WAL over (or could not): the worker may checkpoint again.
    const resume = this.afterNextCommit;
    this.afterNextCommit = undefined;
    resume?.();
    if (batch.lost) {
      const err = new Error('the group commit was rolled back by SQLite', { cause: batch.lostBy });
      for (const e of batch.entries) e.reject!(err);
      this.release(batch);
      return;
    }
    try {
      this.tx.counts.flush();
      this.tx.commit.run();
    } catch (err) {
      try {
        if (this.db.inTransaction) this.tx.rollback.run();
      } catch {
        /* already rolled back */
      }
      this.ended(batch);
      this.tx.rolledBack();
      for (const e of batch.entries) e.reject!(err);
      this.release(batch);
      return;
    }
    this.ended(batch);
    this.tx.committed();
    for (const e of batch.entries) {
      if (e.failed) e.reject!(e.failed.err);
      else e.resolve!(e.result);
    }
    this.release(batch);
    if (this.checkpointWanted) this.finishCheckpoint(this.checkpointWanted.then, this.checkpointWanted.checkpointed);
  }
}

function migrate(db: Connection): void {
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

/** The key of a count series: its columns sorted, comma-joined ('' = every row of the account). */
export const countColumns = (cols: string[]) => [...cols].sort().join(',');
/** How a value is written into a count key (same rule in SQL below and in Collection). */
export const COUNT_NULL = '\u0000';
export const COUNT_SEPARATOR = '\u001f';
/** One value of a count key. */
export const countValue = (v: string | number | null) => (v === null ? COUNT_NULL : String(v));
export const countValues = (values: (string | number | null)[]) => values.map(countValue).join(COUNT_SEPARATOR);

/**
 * SQL for a document table: `seq` orders rows (newest = highest, keyset pagination), `id` is the public id,
 * `data` the JSON document; `columns` are extra columns, `indexes` the filter sets lists use (each gets an
 * index and an exact row count per account in `list_counts`, kept by Collection through Store.count, so that
 * a list's `total_count` costs the same with a thousand rows as with a million). `nullable`: filter columns
 * that may be NULL but are never filtered on NULL (the API's filters are strings) — their indexes are partial
 * and their NULLs are not counted, so a row without the value costs no index entry and no counter update.
 */
export function documentTable(
  table: string,
  columns: Record<string, string> = {},
  indexes: string[][] = [],
  nullable: string[] = [],
): string {
  const cols = Object.entries(columns)
    .map(([name, type]) => `  ${name} ${type},`)
    .join('\n');
  const idx = indexes.map((cs) => filterIndex(table, cs, nullable, true)).join('\n');
  const specs = [[], ...indexes].map((cs) => [...cs].sort());
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
${specs.map((cs) => `INSERT INTO count_specs (tbl, cols) VALUES ('${table}', '${cs.join(',')}');`).join('\n')}`;
}

/** The index a list filter on `cs` uses; partial when one of its columns is `nullable`. */
export function filterIndex(table: string, cs: string[], nullable: string[] = [], ifNotExists = false): string {
  const notNull = cs.filter((c) => nullable.includes(c));
  return `CREATE INDEX ${ifNotExists ? 'IF NOT EXISTS ' : ''}${table}_${cs.join('_')} ON ${table} (account_id, ${cs.join(', ')}, seq)${
    notNull.length ? ` WHERE ${notNull.map((c) => `${c} IS NOT NULL`).join(' AND ')}` : ''
  };`;
}

/**
 * The triggers that kept `list_counts` for a document table until migration 902 (Collection keeps the counts
 * since): the released migrations before it hold their text; tests rebuild databases of that time with it.
 */
export function countTriggers(table: string, indexes: string[][], nullable: string[] = []): string {
  const specs = [[], ...indexes].map((cs) => [...cs].sort());
  const key = (row: 'NEW' | 'OLD', cs: string[]) =>
    cs.length === 0 ? "''" : cs.map((c) => `COALESCE(CAST(${row}.${c} AS TEXT), char(0))`).join(' || char(31) || ');
  const counted = (row: 'NEW' | 'OLD', cs: string[]) =>
    cs.filter((c) => nullable.includes(c)).map((c) => `${row}.${c} IS NOT NULL`);
  const bump = (row: 'NEW' | 'OLD', cs: string[], delta: '+ 1' | '- 1', changedWhen = '') => {
    const when = [...(changedWhen ? [changedWhen] : []), ...counted(row, cs)].join(' AND ');
    const where = `tbl = '${table}' AND account_id = ${row}.account_id AND cols = '${cs.join(',')}' AND vals = ${key(row, cs)}`;
    const ins =
      delta === '+ 1'
        ? `  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT '${table}', ${row}.account_id, '${cs.join(',')}', ${key(row, cs)}, 0${when ? ` WHERE ${when}` : ''};\n`
        : '';
    return `${ins}  UPDATE list_counts SET n = n ${delta} WHERE ${where}${when ? ` AND ${when}` : ''};`;
  };
  const changed = (cs: string[]) => (cs.length ? `(${key('OLD', cs)}) IS NOT (${key('NEW', cs)})` : '0');
  const watched = [...new Set(indexes.flat())];
  return `CREATE TRIGGER ${table}_count_insert AFTER INSERT ON ${table} BEGIN
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

/** Until every caller names it: the SQLite store under its earlier name. */
export type Store = SqliteStore;
