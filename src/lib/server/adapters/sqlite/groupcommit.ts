// The group commit: the writes of one event-loop turn share one transaction and one COMMIT; a failing request undoes
// only its own writes. Reads and lone writes wait for the open batch.
import type { Database as Connection, Statement } from 'better-sqlite3';
import type { Transactions } from './transactions.js';
import { andThen, inOrder, isPromise, type Work } from './work.js';

const ignore = () => undefined;

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
 * check phase (setImmediate) — after the poll phase has run every handler whose request was ready. Sharing
 * commits writes each touched b-tree page once per batch instead of once per request. Durability is unchanged:
 * nothing is acknowledged before its COMMIT returned (WAL, synchronous=NORMAL: survives a process crash).
 *
 * The connection serves one piece of work at a time: a request's work that answers with a promise (it awaits the
 * store) holds it until that promise settles, and every other request, read or step waits meanwhile (`busy`). The
 * store's own promises settle in microtasks, so such work still runs to its end before the next one starts, and
 * the batch commits once the last of them has. Work that answers at once never waits for anything.
 */
export class GroupCommit {
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
   * Runs `fn` in the open batch. Requests run without a savepoint of their own until one fails (a savepoint per
   * request costs its statements and sub-journal copies). When one fails, the whole batch is rolled back and the
   * requests that had succeeded run again, in order, each in a savepoint (so that one failing now undoes only
   * itself), as does every later request of the batch. Nothing was acknowledged yet, so their first results are
   * simply replaced; what they keep in memory must follow rollbacks (Store.onRollback) — handlers are otherwise
   * functions of the database.
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
