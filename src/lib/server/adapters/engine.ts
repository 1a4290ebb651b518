// What the server itself (not the domain) asks of a storage engine: open a data directory's store, keep the server's
// own records in it (the default account, the sealing key's check, the seeded-store marker), copy and check
// snapshots, and the background work a long-running server has it do. Types only: an adapter implements it
// (adapters/sqlite/engine.ts), and the composition root (server.ts, restore.ts, the CLI's commands) picks the engine.
import type { IdempotencyRecords } from '../http/idempotency.js';
import type { Accounts } from '../domain/accounts.js';
import type { StorePorts } from '../domain/ports.js';
import type { Store } from '../store/seam.js';

/**
 * The server's own records in a store (a few named values: the default account, the sealing key's check, a
 * seeded store's marker and stream position). Each method runs in the caller's transaction, if any.
 */
export interface ServerRecords {
  /** The value named `key`, or undefined when there is none. */
  get(key: string): Promise<string | undefined>;
  /** Whether a value named `key` is kept (whatever it is). */
  has(key: string): Promise<boolean>;
  /** Sets `key` to `value`, replacing what was there. */
  put(key: string, value: string): Promise<void>;
  /** Sets `key` to `value` unless it has a value already. */
  add(key: string, value: string): Promise<void>;
  /** Changes the value of `key` when there is one; a no-op when there is none. */
  change(key: string, value: string): Promise<void>;
  /** Whether any account was ever made in the store. */
  hasAccounts(): Promise<boolean>;
  /**
   * Runs `fn` in a write transaction that holds the write lock from its start: two processes opening one fresh data
   * directory at once run theirs one after the other (and agree on one default account). It commits once `fn`'s
   * promise settled.
   */
  exclusive<T>(fn: () => T | Promise<T>): Promise<T>;
  /**
   * The value named `key` read and written at once, in the open transaction, for what can await nothing: the seeded
   * id stream (seed.ts) draws inside any domain call and is put back by a rollback listener, and a re-run of the
   * work that drew must find the position as the rollback left it before it draws again. `change` is a no-op when
   * there is no value; it throws in a read-only transaction.
   */
  cell(key: string): { get(): string | undefined; change(value: string): void };
}

/**
 * What the server asks of an engine once a store of it is open: the same for every engine (an engine whose store is
 * a shared database, PostgreSQL, has no files to copy: it is only this).
 */
export type OpenEngine<S extends Store = Store> = Pick<
  Engine<S>,
  'ports' | 'accounts' | 'idempotency' | 'records' | 'background'
>;

/** What a saved database (a snapshot) says of itself. */
export interface Inspected {
  schema: number;
  /** The sealing-key check the database carries (datadir.ts), if any. */
  keyCheck?: string;
}

/** What snapshots (snapshots.ts) ask of the engine: saved databases copied and checked. */
export type SnapshotEngine = Pick<Engine, 'schema' | 'copy' | 'problem' | 'inspect' | 'companions'>;

/** A data directory's store as an engine opens it, with what the server keeps beside the domain's ports. */
export interface Engine<S extends Store = Store> {
  /**
   * The files the engine keeps beside the database file `dbPath` (they come and go with it, belong to it, and are as
   * private as it is).
   */
  companions(dbPath: string): string[];
  /** The newest schema version this build knows. */
  readonly schema: number;
  /**
   * The store of the database file at `path` (created on first use), of a new database in memory (`null`), or of an
   * in-memory copy of a database's bytes (`image`); migrated to the newest schema.
   */
  open(source: string | null | { image: Buffer }): S;
  /** Every area's port over `store`. */
  ports(store: S): StorePorts;
  /** The accounts and their API keys in `store` (the data directory's default key is made and checked with it). */
  accounts(store: S, now?: () => number): Accounts;
  /** The idempotency records kept in `store`. */
  idempotency(store: S): IdempotencyRecords;
  /** The server's own records kept in `store`. */
  records(store: S): ServerRecords;
  /** The committed content of the store as bytes, taken once no request's write is uncommitted. */
  image(store: S): Promise<Buffer>;
  /**
   * For a long-running server: the store's own background work (checkpoints, long reads) on threads of its own;
   * resolves once it runs. `stop` ends it.
   */
  background(store: S): { started: Promise<void>; stop(): Promise<void> };
  /**
   * Writes a consistent copy of what was committed in the database file `dbPath` to `to` (an empty file, private):
   * writers go on meanwhile; off this thread when `inWorker`.
   */
  copy(dbPath: string, to: string, options?: { inWorker?: boolean }): Promise<void>;
  /**
   * What is wrong with a saved database (a file, or a database's bytes) at a glance, if anything: not one of this
   * engine's, or cut short. Checked before anything of the live database is touched.
   */
  problem(source: { file: string } | { image: Buffer }): string | undefined;
  /** A saved database's schema version and key check; throws the engine's error for one that is damaged. */
  inspect(source: { file: string } | { image: Buffer }): Inspected;
}
