// PostgreSQL: the store's transactions over a postgres.js pool, many at once, one per connection. The ports take no
// handle: the adapter's queries find their transaction through an AsyncLocalStorage (`current()`). Round trips,
// shared commits, isolation and faults: ARCHITECTURE.md ("The store seam and its transaction rules") and docs/api.md
// ("What the server needs of PostgreSQL: transactions"). What a change here must keep:
// - A failed write fails its transaction (PostgreSQL refuses every statement after it, and undoes it at COMMIT).
// - A batch (`grouped`) takes only writes asked for before it began: its snapshot holds every write answered before.
// - Writes are REPEATABLE READ: a rule writes back the row it checked, or locks it (FOR UPDATE) or leans on a unique
//   index. A conflict (40001) or deadlock (40P01) is run again, a bounded number of times, unseen by the caller
//   (not in `alone`, whose work may not run twice). Reads are REPEATABLE READ READ ONLY: one snapshot, never aborted.
// - A lost connection is a `StorageUnavailable` (503) at once; the pool reconnects by itself. No error names the
//   password.
import postgres, { type Options } from 'postgres';
import { ReadAway, type Store } from '../../store/seam.js';
import { describeUrl } from '../../database-url.js';
import { SharedCommits } from './batches.js';
import { sendIn, tableWord, type Handle } from './frames.js';
import { coalescingSocket } from './socket.js';

export interface PostgresDatabaseOptions {
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
  /**
   * Shared commits (`grouped`): the requests' writes waiting when a transaction can start run in one transaction,
   * each in a savepoint of its own, at most `batchSize` of them (default 16), in at most `batches` transactions at
   * once (default 2). 0 batches: a transaction per request.
   */
  batches?: number;
  batchSize?: number;
}

export type { Handle };
export { StorageUnavailable, unavailable } from './faults.js';

export interface PostgresDatabase extends Store {
  /** The handle of the transaction the caller runs in (its savepoint's, inside `tx`), or the pool's. */
  current(): Handle;
  /** Whether the caller runs inside one of this store's transactions. */
  inTransaction(): boolean;
  /**
   * A write whose answer the caller does not need (an insert, an update). In a transaction it is sent at once and not
   * waited for: the statements after it go out behind it on the same connection, in the same network write when they
   * follow in the same turn, and PostgreSQL runs them in order. Its failure is the transaction's: every statement
   * after it fails, and the transaction is undone and reported with that failure (run again when it is a conflict).
   * The failure must be PostgreSQL's (a check in `run` of the answer can come after the COMMIT behind it went out:
   * documents.ts makes an update of no row fail in SQL); `run` may only say what a failure means. A savepoint waits
   * for its part's writes before it ends. Outside a transaction it is awaited.
   */
  send(run: (q: Handle) => Promise<unknown>): Promise<void>;
  /**
   * A write held to the end of the transaction: sent (as `send` sends) just before its COMMIT, after all its other
   * statements — or before the first of them that names `table`, which must see it. The event log's append: it takes
   * the account's log lock, which then is the last lock a transaction takes (no transaction holding it waits for a row
   * another holds), and is held only for the COMMIT. A write held in a part (a savepoint, a request in a shared
   * transaction) that is undone is never sent. Outside a transaction it is sent at once and awaited.
   */
  last(table: string, run: (q: Handle) => Promise<unknown>): Promise<void>;
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

const READ = 'isolation level repeatable read read only';

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
export function openPostgresDatabase(url: string, options: PostgresDatabaseOptions = {}): PostgresDatabase {
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
  // One host (not a list: the driver goes through a list itself).
  if (
    !url
      .replace(/^[a-z]+:\/\//i, '')
      .split('/')[0]!
      .includes(',')
  )
    Object.assign(driverOptions, { socket: coalescingSocket });
  const secrets = secretsOf(url, driverOptions);
  const begin = { write: `isolation level ${options.isolation ?? 'repeatable read'}`, read: READ };
  return new PgDatabase(
    {
      open: () => postgres(url, driverOptions),
      where: describeUrl(url),
      secrets,
      attempts: options.attempts ?? 100,
      begin,
      retryForMs: options.retryForMs ?? 10_000,
      serialTable: options.serialTable,
    },
    { at: options.batches ?? 2, size: Math.max(1, options.batchSize ?? 16) },
  );
}

class AwayRead<T> extends ReadAway<T> {
  constructor(readonly run: () => Promise<T>) {
    super();
  }
}

/** The store: its transactions (transactions.ts) and shared commits (batches.ts), and the seam's operations on them. */
class PgDatabase extends SharedCommits implements PostgresDatabase {
  readonly shared = true;

  last(table: string, run: (q: Handle) => Promise<unknown>): Promise<void> {
    const frame = this.als.getStore();
    if (!frame) return run(this.current()).then(() => undefined);
    if (frame.root.lostWith !== undefined) return Promise.reject(frame.root.lostWith);
    frame.held.push({ table: tableWord(table), run });
    return Promise.resolve();
  }

  send(run: (q: Handle) => Promise<unknown>): Promise<void> {
    const frame = this.als.getStore();
    if (!frame) return run(this.current()).then(() => undefined);
    if (frame.root.lostWith !== undefined) return Promise.reject(frame.root.lostWith);
    sendIn(frame, run);
    return Promise.resolve();
  }

  away<T>(run: () => Promise<T>): ReadAway<T> {
    return new AwayRead(run);
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
}
