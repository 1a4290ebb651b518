// What the domain keeps in memory of a transaction in progress, on every engine: a frame per transaction that the
// work of that transaction (and only it) sees, applied once that transaction has committed. A COMMIT or rollback
// listener cannot tell whose transaction ended (many run at once on PostgreSQL; a group commit holds several requests
// on SQLite), so nothing of a transaction's is kept anywhere else.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ReadAway, Store } from './seam.js';

/** The work of one transaction, or of a part of one (a savepoint, `Store.tx`): what it noted, what follows it. */
export class TxFrame {
  private readonly values = new Map<string, unknown>();
  private readonly committed: (() => void)[] = [];

  constructor(readonly parent?: TxFrame) {}

  /** What this part of the transaction, or the part around it, noted under `key` (the innermost). */
  get<T>(key: string): T | undefined {
    return this.values.has(key) ? (this.values.get(key) as T) : this.parent?.get<T>(key);
  }

  /** What this part itself noted under `key` (not the part around it). */
  own<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }

  set(key: string, value: unknown): void {
    this.values.set(key, value);
  }

  /** Runs `fn` once the transaction has committed; never when this part of it, or the whole, is rolled back. */
  afterCommit(fn: () => void): void {
    this.committed.push(fn);
  }

  /** A part that succeeded: what it noted and what follows it become the enclosing part's. */
  join(): void {
    const parent = this.parent!;
    for (const [key, value] of this.values) parent.values.set(key, value);
    parent.committed.push(...this.committed);
  }

  /** The transaction committed. */
  commit(): void {
    for (const fn of this.committed) fn();
  }
}

/**
 * An engine's store with a frame per transaction: `frame()` is the frame of the transaction the caller's work runs
 * in. The domain opens every transaction through it (domain/services.ts wraps the engine's store). Each run of a transaction's function gets a new frame (an engine may run
 * it again after a conflict: the first run's notes are gone with its writes); the frame's `afterCommit` work runs
 * once the engine's promise says it committed. A part (`tx`, or a transaction asked for inside one) gets a frame
 * inside its transaction's, joined to it when the part succeeds and dropped when it throws.
 *
 * `inTurn`: this process's transactions run one at a time, in the order they are asked for (a part, asked for inside
 * a transaction, runs in it at once), on an engine that would otherwise run them at once. For a seeded server
 * (seed.ts), whose one stream of ids and secrets is drawn by every request in turn: two requests drawing at once
 * would interleave their draws by the timing of the engine's answers, and a rollback of one would give back the
 * other's draws too. The composition root asks for it. An engine that is serial already (SQLite) needs no turns.
 */
export class ScopedStore implements Store {
  readonly serial: boolean;
  private readonly inTurns: boolean;
  /**
   * How the caller's frame is found. An engine that runs transactions at once: an AsyncLocalStorage, which follows
   * each transaction's work through its awaits. A serial engine (SQLite: a transaction's work holds the connection
   * until it settles, and the next starts after it): the frame of the work holding the store, in a field — an
   * AsyncLocalStorage's promise hooks cost more (bench/README.md). A transaction of
   * its own asked for while another's work awaits is never taken for a part of it (`enclosing`); code outside any
   * transaction that reads a frame in that moment (a clock read before a request's own transaction, in the same
   * microtask run) sees the other transaction's.
   */
  private readonly byField: boolean;
  private readonly als = new AsyncLocalStorage<TxFrame>();
  /** A serial engine: the frame of the transaction whose work holds the store. */
  private current: TxFrame | undefined;
  /** With `inTurn`: the transaction asked for last, settled or not (the next starts after it). */
  private last: Promise<unknown> = Promise.resolve();
  private readonly commitListeners: (() => void)[] = [];

  constructor(
    readonly inner: Store,
    opts: { inTurn?: boolean } = {},
  ) {
    this.byField = inner.serial === true;
    this.inTurns = (opts.inTurn ?? false) && !this.byField;
    this.serial = this.inTurns || this.byField;
  }

  get shared(): boolean | undefined {
    return this.inner.shared;
  }

  /** The frame of the transaction the caller runs in (undefined outside one). */
  frame(): TxFrame | undefined {
    return this.byField ? this.current : this.als.getStore();
  }

  /** Runs `fn` (a transaction's work) with `frame` as its frame. */
  private enter<T>(frame: TxFrame, fn: () => T | Promise<T>): T | Promise<T> {
    if (!this.byField) return this.als.run(frame, fn);
    const before = this.current;
    this.current = frame;
    let out: T | Promise<T>;
    try {
      out = fn();
    } catch (err) {
      this.current = before;
      throw err;
    }
    if (!(out instanceof Promise)) {
      this.current = before;
      return out;
    }
    return out.then(
      (value) => {
        this.current = before;
        return value;
      },
      (err: unknown) => {
        this.current = before;
        throw err;
      },
    );
  }

  grouped<T>(fn: () => T | Promise<T>): Promise<T> {
    return this.scoped((f) => this.inner.grouped(f), fn, this.enclosing());
  }

  alone<T>(fn: () => T | Promise<T>): Promise<T> {
    return this.scoped((f) => this.inner.alone(f), fn, this.enclosing());
  }

  tx<T>(fn: () => Promise<T>): Promise<T> {
    return this.scoped((f) => this.inner.tx(f as () => Promise<T>), fn, this.frame());
  }

  read<T>(fn: () => T | Promise<T>): Promise<T> {
    // A read inside a transaction runs in it (and sees its frame); one of its own notes nothing, and runs with a
    // frame of its own, so that it never sees another transaction's (whatever context the engine calls it in).
    if (this.enclosing()) return this.inner.read(fn);
    return this.inTurn(() => this.inner.read(() => this.enter(new TxFrame(), fn)));
  }

  readAway<T>(read: ReadAway<T>): Promise<T> {
    return this.enclosing() ? this.inner.readAway(read) : this.inTurn(() => this.inner.readAway(read));
  }

  /**
   * The transaction a transaction of its own (grouped, alone) or a read is asked for inside, if any. On a serial engine
   * none: there such a call made inside a transaction's work would wait for that work to end, so it is made from
   * outside — by other work that runs while the transaction's awaits (another request's), which the field would
   * otherwise take for the transaction's own.
   */
  private enclosing(): TxFrame | undefined {
    return this.byField ? undefined : this.als.getStore();
  }

  onRollback(listener: () => void): void {
    this.inner.onRollback(listener);
  }

  /**
   * Called after every COMMIT of a transaction opened here, once its frame's `afterCommit` work has run: what it
   * noted for those who wait for committed data (the events it recorded, the endpoints it changed) is there.
   */
  onCommit(listener: () => void): void {
    this.commitListeners.push(listener);
  }

  close(): void {
    this.inner.close();
  }

  private scoped<T>(
    run: (f: () => T | Promise<T>) => Promise<T>,
    fn: () => T | Promise<T>,
    outer: TxFrame | undefined,
  ): Promise<T> {
    let frame: TxFrame | undefined;
    const framed = () => {
      frame = new TxFrame(outer);
      return this.enter(frame, fn);
    };
    // An engine may answer a part whose work answered at once with its value (SQLite's `tx`): Promise.resolve is the
    // promise itself when it is one.
    if (outer)
      return Promise.resolve(run(framed)).then((value) => {
        frame!.join();
        return value;
      });
    return Promise.resolve(this.inTurn(() => run(framed))).then((value) => {
      frame!.commit();
      for (const l of this.commitListeners) l();
      return value;
    });
  }

  /** A transaction of its own: at once, or with `inTurn` once those asked for before it have settled. */
  private inTurn<T>(start: () => Promise<T>): Promise<T> {
    if (!this.inTurns) return start();
    const next = this.last.then(start, start);
    this.last = next.catch(() => undefined);
    return next;
  }
}
