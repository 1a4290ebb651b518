// SQLite's transactions on one connection: BEGIN/COMMIT from prepared statements, a nested call as a savepoint, and
// the listeners told of each COMMIT and rollback.
import type { Database as Connection, Statement } from 'better-sqlite3';
import { Counts } from './counts.js';
import { andThen, type Work } from './work.js';

/**
 * Transactions with prepared BEGIN/SAVEPOINT statements (better-sqlite3's `db.transaction(fn)()` builds a wrapper on
 * every call). Each takes work that answers at once or with a promise (it awaits the store); either way the
 * transaction ends when the work has.
 */
export class Transactions {
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
