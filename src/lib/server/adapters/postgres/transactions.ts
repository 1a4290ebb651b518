// A PostgreSQL store's transactions, each on a reserved connection of the pool: BEGIN, the work and COMMIT sent without
// waiting where nothing needs an answer, a conflict run again, a lost connection a StorageUnavailable and the pool
// given up for a new one. The savepoints of a transaction inside another.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ReservedSql, Sql } from 'postgres';
import { errors } from '../../errors.js';
import { StorageUnavailable, UNSTORABLE, codeOf, lostConnection, retryable, unavailable } from './faults.js';
import {
  firstFailure,
  newFrame,
  newRoot,
  sendHeld,
  sendIn,
  textSafe,
  unborrow,
  watchClose,
  type Frame,
  type Handle,
  type Root,
} from './frames.js';

export type Mode = 'write' | 'read';

/** What a store's transactions are made with (openPostgresDatabase). */
export interface TransactionSettings {
  /** Makes a pool (again, after a lost connection). */
  open: () => Sql;
  /** The database, without its password, for messages. */
  where: string;
  /** What no message may carry (the password). */
  secrets: string[];
  attempts: number;
  /** What follows BEGIN, for each mode. */
  begin: Record<Mode, string>;
  retryForMs: number;
  serialTable: string | undefined;
}

/** Transactions and savepoints over a pool; the store's own methods build on them (db.ts). */
export class Transactions {
  protected readonly als = new AsyncLocalStorage<Frame>();
  protected readonly commitListeners: (() => void)[] = [];
  protected readonly rollbackListeners: (() => void)[] = [];
  /** The pool new transactions take a connection from. */
  protected sql: Sql;
  /** Pools given up after a lost connection, still ending. */
  private readonly retiring = new Set<Promise<void>>();

  constructor(protected readonly settings: TransactionSettings) {
    this.sql = settings.open();
  }

  current(): Handle {
    const frame = this.als.getStore();
    if (frame?.root.lostWith !== undefined) throw frame.root.lostWith;
    return frame?.sql ?? this.poolHandle();
  }

  /** The pool's proxy, and the pool it is for. */
  private proxied?: { pool: Sql; handle: Sql };

  /**
   * The pool, for a query outside any transaction (a look at a change mark): its failures are the store's, as a
   * transaction's are — a lost connection a StorageUnavailable (and the pool given up), no password in a message.
   */
  private poolHandle(): Sql {
    const pool = this.sql;
    if (this.proxied?.pool === pool) return this.proxied.handle;
    const fail = (err: unknown): never => {
      if (lostConnection(err)) this.retire(pool);
      throw this.fault(err);
    };
    const handle = textSafe(pool, fail);
    this.proxied = { pool, handle };
    return handle;
  }

  inTransaction(): boolean {
    return this.als.getStore() !== undefined;
  }

  onRollback(listener: () => void): void {
    this.rollbackListeners.push(listener);
  }

  onCommit(listener: () => void): void {
    this.commitListeners.push(listener);
  }

  close(): void {
    void this.end();
  }

  async end(): Promise<void> {
    await Promise.all([this.sql.end({ timeout: 5 }), ...this.retiring]);
  }

  /**
   * After a connection was lost, new transactions go to a new pool and the old one ends (its other transactions
   * finish first, for a few seconds at most). The driver (postgres.js 3.4) can leave a connection that closed with a
   * write pending unable to send anything again, even once the server is back: a new pool has none of those.
   */
  private retire(pool: Sql): void {
    if (pool !== this.sql) return;
    this.sql = this.settings.open();
    const ended = pool.end({ timeout: 5 }).catch(() => {});
    this.retiring.add(ended);
    void ended.then(() => this.retiring.delete(ended));
  }

  /**
   * The lock a write takes on the serial table, before its snapshot:
   * - a first attempt: ROW SHARE, which no other first attempt waits for;
   * - work that runs once (`alone`), and a conflict's first re-run: SHARE UPDATE EXCLUSIVE — they take turns, and
   *   requests go on beside them, so the postings that meet on a hot row queue for it instead of aborting each other
   *   again and again;
   * - a later re-run (it met a conflict again, with a first attempt): EXCLUSIVE — it waits for every write in flight,
   *   in every process, and holds off new ones until it ends, so it meets no conflict: a request runs at most three
   *   times, however hot its rows are. (PostgreSQL queues a lock request behind a waiting one it conflicts with, so
   *   such a re-run is not starved.) Draining every write at each conflict costs throughput on hot rows: hence not at
   *   the first re-run.
   */
  protected serialLock(mode: Mode, attempt: number, rerun: boolean): string | undefined {
    if (mode !== 'write' || this.settings.serialTable === undefined) return undefined;
    if (!rerun || attempt === 2) return 'SHARE UPDATE EXCLUSIVE';
    return attempt === 1 ? 'ROW SHARE' : 'EXCLUSIVE';
  }

  /** `fn` in a transaction of its own, or in a savepoint of the one the caller runs in. */
  protected async transaction<T>(mode: Mode, fn: () => T | Promise<T>, rerun: boolean, first = 1): Promise<T> {
    const outer = this.als.getStore();
    if (outer) return this.savepoint(outer, fn);
    const since = Date.now();
    for (let attempt = first; ; attempt++) {
      const root = newRoot();
      const pool = this.sql;
      let conn: ReservedSql | undefined;
      let result: T;
      try {
        conn = await pool.reserve();
        const frame = newFrame(conn, root);
        result = await this.shell(
          conn,
          root,
          mode,
          this.serialLock(mode, attempt, rerun),
          async () => {
            let value: T;
            try {
              value = await this.als.run(frame, fn);
            } catch (caught) {
              const failed = await firstFailure(frame, root);
              throw failed ? failed.err : caught;
            }
            // A conflict the domain's code caught in a part of the transaction still undoes all of it.
            if (root.doomed !== undefined) throw root.doomed;
            return value;
          },
          frame,
        );
      } catch (err) {
        this.emit(this.rollbackListeners);
        await this.ended(pool, conn, root, err);
        if (
          retryable(err) &&
          rerun &&
          attempt < this.settings.attempts &&
          Date.now() - since < this.settings.retryForMs
        ) {
          // A short random pause, longer at each attempt, so that two that conflicted do not meet again at once.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(100, 2 ** attempt)));
          continue;
        }
        throw this.fault(err);
      }
      await this.ended(pool, conn, root);
      // A read commits nothing: only a write's COMMIT is news for those who wait for committed data.
      if (mode === 'write') this.emit(this.commitListeners);
      return result;
    }
  }

  /**
   * BEGIN, `body`, COMMIT on the reserved connection `conn`, each statement sent without waiting for the one before:
   * BEGIN and the serial table's lock (`serialLock`, a utility statement that takes no snapshot) go out with the
   * body's first statement, and COMMIT behind its last writes. The writes sent and not waited for (`send`) are the
   * transaction's: the first that failed is what it fails with (PostgreSQL answered the COMMIT behind it by undoing
   * the transaction). A lost connection rejects with its failure (`guarded`).
   */
  protected shell<T>(
    conn: ReservedSql,
    root: Root,
    mode: Mode,
    lockMode: string | undefined,
    body: () => Promise<T>,
    frame: Frame = newFrame(conn, root),
  ): Promise<T> {
    sendIn(frame, (q) => q.unsafe(`BEGIN ${this.settings.begin[mode]}`, [], watchClose(root)));
    if (lockMode !== undefined)
      sendIn(frame, (q) => q.unsafe(`LOCK TABLE ${this.settings.serialTable} IN ${lockMode} MODE`));
    const work = this.guarded(root, async () => {
      let value: T;
      try {
        value = await body();
      } catch (caught) {
        const failed = await firstFailure(frame, root);
        throw failed ? failed.err : caught;
      }
      sendHeld(frame);
      let tag: string | undefined;
      let failed: { err: unknown } | undefined;
      try {
        tag = (await conn.unsafe('COMMIT')).command;
      } finally {
        failed = await firstFailure(frame, root);
      }
      if (failed) throw failed.err;
      if (tag !== 'COMMIT') throw new Error(`PostgreSQL answered the COMMIT with ${tag}: nothing was written`);
      return value;
    })();
    work.catch(() => {});
    return Promise.race([work, root.lost]);
  }

  /**
   * The transaction on `conn` is over (committed, or failed with `err`): the connection is rolled back if it is still
   * in one, and goes back to the pool — unless it was lost, then the pool is given up (`retire`).
   */
  protected async ended(pool: Sql, conn: ReservedSql | undefined, root: Root, err?: unknown): Promise<void> {
    // A connection that closed, even after its COMMIT was answered, never goes back to the pool.
    if (root.lostWith !== undefined || (err !== undefined && lostConnection(err))) {
      this.retire(pool);
      return;
    }
    if (!conn) return;
    if (root.connection) root.connection.onclose = null;
    if (err !== undefined) {
      try {
        await conn.unsafe('ROLLBACK');
      } catch (e) {
        if (lostConnection(e)) {
          this.retire(pool);
          return;
        }
      }
    }
    conn.release();
  }

  /** `fn` in a savepoint: a throw undoes its part alone (a conflict or lost connection dooms the transaction). */
  private async savepoint<T>(outer: Frame, fn: () => T | Promise<T>): Promise<T> {
    const name = `s${outer.root.names.n++}`;
    const part = newFrame(outer.raw, outer.root, outer);
    sendIn(part, (q) => q.unsafe(`SAVEPOINT ${name}`));
    try {
      const value = await this.als.run(
        part,
        this.guarded(outer.root, async () => fn()),
      );
      // The part's writes are done (or failed, undoing the part) before it ends; those held are the whole's.
      const failed = await firstFailure(part, outer.root);
      if (failed) throw failed.err;
      outer.held.push(...part.held.splice(0));
      outer.borrowed.push(...part.borrowed.splice(0));
      sendIn(outer, (q) => q.unsafe(`RELEASE SAVEPOINT ${name}`));
      return value;
    } catch (caught) {
      const failed =
        outer.root.lostWith === undefined ? await firstFailure(part, outer.root).catch(() => undefined) : undefined;
      const err = failed ? failed.err : caught;
      if (outer.root.lostWith === undefined && !lostConnection(err))
        await outer.raw.unsafe(`ROLLBACK TO SAVEPOINT ${name}`);
      unborrow(part);
      if (retryable(err) || unavailable(err)) outer.root.doomed ??= err;
      this.emit(this.rollbackListeners);
      throw err;
    }
  }

  /**
   * `fn` as a transaction or savepoint runs it — except when its connection failed: then nothing more is sent on it
   * (postgres.js 3.4 can throw where no one can catch it, ending the process, when written to a socket it has
   * dropped). The transaction is given up instead (`root.lost` rejects), and `fn`'s promise never settles.
   */
  private guarded<T>(root: Root, fn: () => Promise<T>): () => Promise<T> {
    return async () => {
      try {
        return await fn();
      } catch (err) {
        if (!lostConnection(err)) throw err;
        root.lose(err);
        return new Promise<T>(() => {});
      }
    };
  }

  protected emit(listeners: (() => void)[]): void {
    for (const l of listeners) l();
  }

  /** The error a caller gets: the connection's failures as StorageUnavailable, every message without the password. */
  protected fault(err: unknown): unknown {
    if (unavailable(err))
      return new StorageUnavailable(`PostgreSQL at ${this.settings.where} is unavailable: ${this.scrub(err)}`);
    if (retryable(err))
      return new StorageUnavailable(
        `PostgreSQL at ${this.settings.where} aborted the transaction for a conflict with others, again and again: ${this.scrub(err)}`,
      );
    // Text PostgreSQL cannot hold, met where `safe` cannot reach it (an unpaired surrogate's escape in a document
    // an expression index casts to jsonb): the request's fault, a 400, not the server's.
    if (UNSTORABLE.has(codeOf(err) ?? ''))
      return errors.invalidRequest(
        'unstorable_text',
        'The request holds text this server cannot store (an unpaired UTF-16 surrogate, or U+0000 in a nested value).',
      );
    if (err instanceof Error && this.settings.secrets.some((s) => err.message.includes(s)))
      err.message = this.scrub(err);
    return err;
  }

  private scrub(err: unknown): string {
    let text = err instanceof Error ? err.message : String(err);
    const code = codeOf(err);
    if (code && !text.includes(code)) text = `${text} (${code})`;
    for (const s of this.settings.secrets) text = text.split(s).join('***');
    return text;
  }
}
