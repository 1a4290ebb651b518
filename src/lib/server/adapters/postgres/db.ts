// PostgreSQL: the store's transactions over a postgres.js connection pool. Many transactions run at once, one per
// connection; the domain's ports take no transaction handle, so the adapter's queries find the one they run in
// through an AsyncLocalStorage (`current()`), set by the transaction that runs the domain's function.
//
// - A write (`grouped`, `alone`, `tx` outside a transaction) is REPEATABLE READ: one snapshot, and of two
//   transactions that write the same row the second is aborted (40001) once the first commits, so a rule that reads,
//   checks and writes back the row it checked (a payment confirmed once, a counter's next number, an
//   Idempotency-Key's record claimed with INSERT … ON CONFLICT) takes effect once. A rule that checks rows it does
//   not write must lock what it checked (FOR UPDATE) or lean on a unique index. PostgreSQL aborts one of two
//   transactions that conflict (40001) or deadlock (40P01); the store runs it again, a bounded number of times, and
//   the caller never sees it (`alone`, whose work may not run twice, excepted: see there). SERIALIZABLE (an option)
//   needs no locks but aborts transactions that touched only their own rows (its predicate locks are per index page):
//   measured in bench/README.md.
// - A read (`read`, `readAway`) is REPEATABLE READ READ ONLY: one snapshot of committed data for the whole read (a
//   page and its total agree), no predicate locks (it never makes a writer fail), never aborted.
// - A connection failure (PostgreSQL stopped, restarting, unreachable, out of connections) is a `StorageUnavailable`
//   (the contract's 503 `storage_unavailable` with Retry-After), raised as soon as the driver reports it; the pool
//   connects again by itself on the next transaction. No error names the password.
import { AsyncLocalStorage } from 'node:async_hooks';
import postgres, { type Options, type Sql, type TransactionSql } from 'postgres';
import { ReadAway, type Store } from '../../store/seam.js';
import { errors } from '../../errors.js';
import { describeUrl } from '../../database-url.js';

export interface PostgresStoreOptions {
  /** Connections in the pool: at most this many transactions at once, the others wait for one (default 10). */
  max?: number;
  /** Seconds to wait for a connection to be made before the transaction fails as unavailable (default 5). */
  connectTimeout?: number;
  /**
   * How many times a transaction aborted by a serialization failure or a deadlock is run in all (default 100), and
   * for how long it is run again (ms since its first attempt began, default 10 000): whichever ends first. A row
   * that many requests write at once (a ledger's system account) can abort a request several times in a row; a
   * budget of time rather than a small count keeps such a request from being shown the conflict.
   */
  attempts?: number;
  retryForMs?: number;
  /**
   * A table that every write transaction locks before anything else, in a mode that says what it is (`serialLock`):
   * work in `alone` takes turns across processes with itself and with re-runs, a second re-run waits for every write
   * in flight. `LOCK TABLE` takes no snapshot, so each sees what the one before it committed. The server's engine
   * passes `serial_work`.
   */
  serialTable?: string;
  /** The isolation level of writes (default 'repeatable read'; docs/api.md says why). */
  isolation?: 'serializable' | 'repeatable read';
}

/** The handle an adapter's query runs on: the current transaction's, or the pool's outside any transaction. */
export type Handle = Sql | TransactionSql;

export interface PostgresStore extends Store {
  /** The handle of the transaction the caller runs in (its savepoint's, inside `tx`), or the pool's. */
  current(): Handle;
  /** Whether the caller runs inside one of this store's transactions. */
  inTransaction(): boolean;
  /** A read an adapter hands the domain to be run away from the request (`readAway` runs it in a read). */
  away<T>(run: () => Promise<T>): ReadAway<T>;
  /** The pool's connections closed, once their queries have ended. */
  end(): Promise<void>;
  /**
   * The seam's `tx` (a savepoint inside a transaction, a write transaction outside one). On PostgreSQL every query
   * is asynchronous: `fn` must answer with a promise, and so does `tx`.
   */
  tx<T>(fn: () => Promise<T>): Promise<T>;
  tx<T>(fn: () => T): T;
}

/** PostgreSQL could not be reached or could not serve (stopped, restarting, refused, out of connections). */
export class StorageUnavailable extends Error {
  /** What tells the request pipeline (http/replies.ts) that it is the storage's fault: a 503 storage_unavailable. */
  readonly code = 'STORAGE_UNAVAILABLE';
  constructor(message: string) {
    super(message);
    this.name = 'StorageUnavailable';
  }
}

type Mode = 'write' | 'read';

/** SQLSTATEs of text PostgreSQL cannot store or parse: untranslatable character, invalid byte sequence. */
const UNSTORABLE = new Set(['22P05', '22021']);

const READ = 'isolation level repeatable read read only';

interface Root {
  /** A failure that dooms the whole transaction, seen in a part of it that the domain's code caught. */
  doomed?: unknown;
  /** The transaction's connection failed: nothing more may be sent on it. */
  lostWith?: unknown;
  /** Rejects with the connection's failure once it is seen. */
  lost: Promise<never>;
  lose(err: unknown): void;
}

function newRoot(): Root {
  let reject!: (err: unknown) => void;
  const lost = new Promise<never>((_, r) => (reject = r));
  lost.catch(() => {});
  const root: Root = {
    lost,
    lose(err) {
      if (root.lostWith !== undefined) return;
      root.lostWith = err;
      reject(err);
    },
  };
  return root;
}

interface Frame {
  /** The handle the adapters' queries run on (`textSafe`). */
  sql: TransactionSql;
  /** The driver's own handle (for its savepoints). */
  raw: TransactionSql;
  root: Root;
}

/**
 * PostgreSQL's text cannot hold U+0000, which SQLite stores and a request may carry (an id, a filter, a column's
 * value): in every string parameter it becomes U+FFFF, a noncharacter no text of the contract holds, so that a
 * lookup by such an id finds nothing (as on SQLite) and a value written with it is found by the same value. The
 * documents themselves are JSON text, where JSON.stringify writes it as the escape `\u0000`, kept as is.
 */
const NUL = /\u0000/g;
const safe = (v: unknown): unknown =>
  typeof v === 'string' ? (v.includes('\u0000') ? v.replace(NUL, '\uffff') : v) : Array.isArray(v) ? v.map(safe) : v;

/** `handle` with every string parameter made storable (see `safe`), its failures passed to `fail` when given. */
function textSafe<H extends Handle>(handle: H, fail?: (err: unknown) => never): H {
  const caught = <R>(q: R): R => (fail ? ((q as Promise<unknown>).catch(fail) as R) : q);
  return new Proxy(handle, {
    apply: (target, self, args: unknown[]) => {
      // A tagged template (sql`… ${value} …`) has its values after the strings; a helper call (sql(name)) is left.
      const template = Array.isArray(args[0]) && 'raw' in (args[0] as object);
      return caught(Reflect.apply(target, self, template ? [args[0], ...args.slice(1).map(safe)] : args));
    },
    get: (target, key) => {
      if (key === 'unsafe')
        return (query: string, params?: unknown[], options?: object) =>
          caught(target.unsafe(query, params?.map(safe) as never, options as never));
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The SQLSTATE or driver code of `err` (or of its cause). */
function codeOf(err: unknown): string | undefined {
  const e = err as { code?: unknown } | undefined;
  return typeof e?.code === 'string' ? e.code : undefined;
}

/** Aborted by PostgreSQL to keep transactions serializable, or to break a deadlock: running it again is safe. */
const retryable = (err: unknown) => {
  const code = codeOf(err);
  return code === '40001' || code === '40P01';
};

const DRIVER_UNAVAILABLE = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'ENOENT', // a Unix socket that is not there (the server is stopped)
]);

/**
 * Not the request's fault but the database's: the driver lost or could not make its connection, or PostgreSQL says
 * it cannot serve — class 08 (connection), 53 (out of resources: connections, disk, memory), 57P01–57P03 (shutting
 * down, crashed, starting up), 58 (I/O), 28 and 3D000 (the URL's user or database refused: configuration).
 */
export function unavailable(err: unknown): boolean {
  const code = codeOf(err);
  if (code === undefined) return false;
  return DRIVER_UNAVAILABLE.has(code) || /^(08|53|58|28)|^57P0[123]$|^3D000$/.test(code);
}

/** The connection itself failed (rather than PostgreSQL answering that it cannot serve). */
function lostConnection(err: unknown): boolean {
  const code = codeOf(err);
  return code !== undefined && (DRIVER_UNAVAILABLE.has(code) || /^08|^57P0[12]$/.test(code));
}

export { describeUrl };

/** The secrets an error message must never carry: the URL's password (raw and decoded) and the option's. */
function secretsOf(url: string, options: Options<{}>): string[] {
  const out: string[] = [];
  try {
    const u = new URL(url);
    if (u.password) out.push(u.password, decodeURIComponent(u.password));
  } catch {
    // an unreadable URL: the driver refuses it, and its message is not ours to show (see scrub)
  }
  if (typeof options.password === 'string' && options.password) out.push(options.password);
  return out.filter((s) => s.length > 0);
}

/**
 * Opens a store over the PostgreSQL database at `url` (postgres://user:password@host:port/db). No connection is made
 * until the first transaction; the schema is not migrated here (migrate.ts).
 */
export function openPostgresStore(url: string, options: PostgresStoreOptions = {}): PostgresStore {
  const driverOptions: Options<{}> = {
    max: options.max ?? 10,
    connect_timeout: options.connectTimeout ?? 5,
    // NOTICEs (a DROP … IF EXISTS of nothing) are not worth a line in the server's log.
    onnotice: () => {},
    // Every integer column is bigint (ms, amounts, counts): the domain's numbers, exact up to 2^53.
    types: {
      int8: {
        to: 20,
        from: [20],
        serialize: (x: number | bigint) => x.toString(),
        parse: (x: string) => {
          const n = Number(x);
          if (!Number.isSafeInteger(n)) throw new RangeError(`a bigint beyond the safe integers: ${x}`);
          return n;
        },
      },
    },
  };
  const secrets = secretsOf(url, driverOptions);
  const begin = { write: `isolation level ${options.isolation ?? 'repeatable read'}`, read: READ };
  return new PgStore(
    () => postgres(url, driverOptions),
    describeUrl(url),
    secrets,
    options.attempts ?? 100,
    begin,
    options.retryForMs ?? 10_000,
    options.serialTable,
  );
}

class AwayRead<T> extends ReadAway<T> {
  constructor(readonly run: () => Promise<T>) {
    super();
  }
}

class PgStore implements PostgresStore {
  readonly shared = true;
  private readonly als = new AsyncLocalStorage<Frame>();
  private readonly commitListeners: (() => void)[] = [];
  private readonly rollbackListeners: (() => void)[] = [];
  /** The pool new transactions take a connection from. */
  private sql: Sql;
  /** Pools given up after a lost connection, still ending. */
  private readonly retiring = new Set<Promise<void>>();

  constructor(
    private readonly open: () => Sql,
    private readonly where: string,
    private readonly secrets: string[],
    private readonly attempts: number,
    private readonly begin: Record<Mode, string>,
    private readonly retryForMs: number,
    private readonly serialTable?: string,
  ) {
    this.sql = open();
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

  away<T>(run: () => Promise<T>): ReadAway<T> {
    return new AwayRead(run);
  }

  grouped<T>(fn: () => T | Promise<T>): Promise<T> {
    return this.transaction('write', fn, true);
  }

  read<T>(fn: () => T | Promise<T>): Promise<T> {
    // A read inside a transaction reads in it (it sees that transaction's own writes, and nothing uncommitted of
    // others).
    if (this.inTransaction()) return Promise.resolve().then(fn);
    return this.transaction('read', fn, true);
  }

  /**
   * Long work's step: run once. A serialization failure or deadlock is not run again here (the step's generator
   * has moved on); it is a StorageUnavailable, and nothing of the step was written.
   */
  alone<T>(fn: () => T | Promise<T>): Promise<T> {
    return this.transaction('write', fn, false);
  }

  tx<T>(fn: () => Promise<T>): Promise<T>;
  tx<T>(fn: () => T): T;
  tx<T>(fn: () => T | Promise<T>): Promise<T> {
    return this.transaction('write', fn, true);
  }

  readAway<T>(read: ReadAway<T>): Promise<T> {
    if (!(read instanceof AwayRead)) throw new TypeError('not a read made by the PostgreSQL store');
    return this.read((read as AwayRead<T>).run);
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
    this.sql = this.open();
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
  private serialLock(mode: Mode, attempt: number, rerun: boolean): string | undefined {
    if (mode !== 'write' || this.serialTable === undefined) return undefined;
    if (!rerun || attempt === 2) return 'SHARE UPDATE EXCLUSIVE';
    return attempt === 1 ? 'ROW SHARE' : 'EXCLUSIVE';
  }

  /** `fn` in a transaction of its own, or in a savepoint of the one the caller runs in. */
  private async transaction<T>(mode: Mode, fn: () => T | Promise<T>, rerun: boolean): Promise<T> {
    const outer = this.als.getStore();
    if (outer) return this.savepoint(outer, fn);
    const since = Date.now();
    for (let attempt = 1; ; attempt++) {
      const root = newRoot();
      const pool = this.sql;
      let result: T;
      try {
        const run = pool.begin(this.begin[mode], (sql) =>
          this.als.run(
            { sql: textSafe(sql), raw: sql, root },
            this.guarded(root, async () => {
              // The turn this attempt takes on the serial table (`serialLock`), asked for before anything else
              // and not waited for here: the driver sends the next statement behind it on this connection, and
              // PostgreSQL runs that one (which takes the snapshot) once the lock is held. One round trip saved.
              const lockMode = this.serialLock(mode, attempt, rerun);
              const locked =
                lockMode === undefined
                  ? undefined
                  : this.current().unsafe(`LOCK TABLE ${this.serialTable} IN ${lockMode} MODE`).execute();
              locked?.catch(() => {});
              let value: T;
              try {
                value = await fn();
              } catch (err) {
                // The lock's failure (a lost connection, a deadlock) is the cause of what followed it.
                await locked;
                throw err;
              }
              await locked;
              // A conflict the domain's code caught in a part of the transaction still undoes all of it.
              if (root.doomed !== undefined) throw root.doomed;
              return value;
            }),
          ),
        );
        // Given up when the connection is lost: it still rejects once the driver sees the socket close.
        run.catch(() => {});
        result = (await Promise.race([run, root.lost])) as T;
      } catch (err) {
        this.emit(this.rollbackListeners);
        if (lostConnection(err)) this.retire(pool);
        if (retryable(err) && rerun && attempt < this.attempts && Date.now() - since < this.retryForMs) {
          // A short random pause, longer at each attempt, so that two that conflicted do not meet again at once.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(100, 2 ** attempt)));
          continue;
        }
        throw this.fault(err);
      }
      // A read commits nothing: only a write's COMMIT is news for those who wait for committed data.
      if (mode === 'write') this.emit(this.commitListeners);
      return result;
    }
  }

  /** `fn` in a savepoint: a throw undoes its part alone (a conflict or lost connection dooms the transaction). */
  private async savepoint<T>(outer: Frame, fn: () => T | Promise<T>): Promise<T> {
    try {
      return (await outer.raw.savepoint((sql) =>
        this.als.run(
          { sql: textSafe(sql), raw: sql, root: outer.root },
          this.guarded(outer.root, async () => fn()),
        ),
      )) as T;
    } catch (err) {
      if (retryable(err) || unavailable(err)) outer.root.doomed ??= err;
      this.emit(this.rollbackListeners);
      throw err;
    }
  }

  /**
   * `fn` as the driver's transaction or savepoint runs it — except when its connection failed: then the driver must
   * be told nothing more (postgres.js 3.4 would write its ROLLBACK to a socket it has already dropped, and throw
   * where no one can catch it, ending the process). The transaction is given up instead (`root.lost` rejects), and
   * `fn`'s promise to the driver never settles.
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

  private emit(listeners: (() => void)[]): void {
    for (const l of listeners) l();
  }

  /** The error a caller gets: the connection's failures as StorageUnavailable, every message without the password. */
  private fault(err: unknown): unknown {
    if (unavailable(err))
      return new StorageUnavailable(`PostgreSQL at ${this.where} is unavailable: ${this.scrub(err)}`);
    if (retryable(err))
      return new StorageUnavailable(
        `PostgreSQL at ${this.where} aborted the transaction for a conflict with others, again and again: ${this.scrub(err)}`,
      );
    // Text PostgreSQL cannot hold, met where `safe` cannot reach it (an unpaired surrogate's escape in a document
    // an expression index casts to jsonb): the request's fault, a 400, not the server's.
    if (UNSTORABLE.has(codeOf(err) ?? ''))
      return errors.invalidRequest(
        'unstorable_text',
        'The request holds text this server cannot store (an unpaired UTF-16 surrogate, or U+0000 in a nested value).',
      );
    if (err instanceof Error && this.secrets.some((s) => err.message.includes(s))) err.message = this.scrub(err);
    return err;
  }

  private scrub(err: unknown): string {
    let text = err instanceof Error ? err.message : String(err);
    const code = codeOf(err);
    if (code && !text.includes(code)) text = `${text} (${code})`;
    for (const s of this.secrets) text = text.split(s).join('***');
    return text;
  }
}
