// The store seam: what the domain asks of a storage engine, in no engine's words. The domain, the routes, the
// request pipeline and the dispatcher import this file (and their area's port, declared beside the area), never an
// adapter; an adapter (adapters/sqlite/) implements it. No SQL is written outside the adapters.
import type { List } from '../../contract/common.js';

/** A stored document and the account it belongs to: what reads across accounts (due work, lookups by id alone) answer. */
export interface Owned<T> {
  accountId: string;
  doc: T;
}

export interface ListOptions {
  limit?: number;
  starting_after?: string;
  ending_before?: string;
  /** Equality filters on the table's filter columns (undefined values are ignored). */
  where?: Record<string, string | number | null | undefined>;
}

/**
 * One kind of document an area keeps (a table in SQLite): each document belongs to an account, is found by its id,
 * and is listed newest first with keyset pagination and equality filters on its declared filter columns.
 */
export interface Documents<T extends { id: string }> {
  /** Stores a new document (its id must be new). */
  insert(accountId: string, doc: T): Promise<T>;
  /** Replaces a stored document by its id. */
  update(accountId: string, doc: T): Promise<T>;
  /** Removes a document; false when there was none. */
  delete(accountId: string, id: string): Promise<boolean>;
  get(accountId: string, id: string): Promise<T | undefined>;
  /** The document, or the contract's 404 `resource_missing` naming `resource` (and `param`). */
  require(accountId: string, id: string, resource: string, param?: string): Promise<T>;
  /** The page `opts` asks for, newest first (`url` is the list's own path, for the list object). */
  list(accountId: string, url: string, opts?: ListOptions): Promise<List<T>>;
  /** How many of the account's documents match `where` (a list's `total_count`). */
  total(accountId: string, where?: ListOptions['where']): Promise<number>;
}

/**
 * A read the engine runs away from the request's own work (a page of a filter no index serves may look through a
 * whole table): a handler answers with it, and the request pipeline (http/execute.ts) answers with what
 * `Store.readAway` finishes it with, after the request's transaction. What is inside is the engine's: the domain
 * and the pipeline hand it on unopened.
 */
export abstract class ReadAway<T> {
  /** Never read: it keeps `T` in the type. */
  declare readonly answer?: T;
}

/**
 * Transactions. A request's writes, its events and its idempotency record commit together, exactly once; an answer
 * leaves only after its COMMIT; a read sees only committed data.
 */
export interface Store {
  /**
   * Runs `fn` as part of the transaction open around it (a savepoint: a throw undoes `fn`'s writes alone), or in a
   * transaction of its own when none is open.
   */
  tx<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * A request's write: `fn` runs in a transaction of its own (an engine may group several requests into one
   * COMMIT), and the promise resolves only once it committed. A throw undoes `fn`'s writes alone.
   */
  grouped<T>(fn: () => T | Promise<T>): Promise<T>;
  /** A read that sees only committed data; a write in it throws. */
  read<T>(fn: () => T | Promise<T>): Promise<T>;
  /** A write transaction of its own, never run twice (long work in steps: store/steps.ts). */
  alone<T>(fn: () => T | Promise<T>): Promise<T>;
  /** Runs a read made by this engine (ReadAway) away from any request's transaction, and finishes it. */
  readAway<T>(read: ReadAway<T>): Promise<T>;
  /**
   * True when one transaction's work runs at a time in this process: each runs to its end before another's starts
   * (SQLite: a request's work that awaits holds the connection until it settles). The seeded id stream, drawn by
   * every request in turn, needs it (seed.ts); an engine that runs transactions at once is given turns for it
   * (store/scoped.ts `inTurn`). The domain's own state of a transaction is kept per transaction on every engine.
   */
  readonly serial?: boolean;
  /**
   * True when other processes write the same database at once (PostgreSQL): work a process takes for itself (the
   * dispatcher's batches) is taken in a write that commits before the work starts. Unset (SQLite: the process that
   * serves the file), what a process takes is kept in its memory, and looking for it is a read.
   */
  readonly shared?: boolean;
  /** Called after every rollback (of a transaction or a part of one): in-memory copies of stored values drop. */
  onRollback(listener: () => void): void;
  /** Called after every COMMIT: for what waits for committed data (the event log's readers, deliveries). */
  onCommit(listener: () => void): void;
  close(): void;
}
