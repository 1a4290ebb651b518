// PostgreSQL: the store's transactions over a postgres.js connection pool. Many transactions run at once, one per
// connection; the domain's ports take no transaction handle, so the adapter's queries find the one they run in
// through an AsyncLocalStorage (`current()`), set by the transaction that runs the domain's function.
//
// - Round trips: a transaction's statements are sent on a reserved connection without waiting for the one before
//   where nothing needs its answer — BEGIN and the serial table's lock with the first statement, the writes the
//   adapters `send` (inserts, updates) with what follows them, COMMIT behind the last writes. A failed write fails its
//   transaction (PostgreSQL refuses every statement after it, and answers COMMIT by undoing it).
// - Shared commits: requests' writes (`grouped`) waiting when a transaction can start run in one transaction, each in
//   a savepoint, answered once it committed (`batch`): one BEGIN, lock and COMMIT (one WAL flush) for many requests,
//   and requests of this process that post to the same rows (a ledger's system accounts) take turns within it
//   instead of aborting each other. A batch takes only writes asked for before it began, so its snapshot holds every
//   write answered before any of them was asked for.
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
import { connect, type Socket } from 'node:net';
import postgres, { type Options, type ReservedSql, type Sql, type TransactionSql } from 'postgres';
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
  /**
   * Shared commits (`grouped`): the requests' writes waiting when a transaction can start run in one transaction,
   * each in a savepoint of its own, at most `batchSize` of them (default 16), in at most `batches` transactions at
   * once (default 2). 0 batches: a transaction per request.
   */
  batches?: number;
  batchSize?: number;
}

/** The handle an adapter's query runs on: the current transaction's, or the pool's outside any transaction. */
export type Handle = Sql | TransactionSql;

export interface PostgresStore extends Store {
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

/** A lock waited for longer than `lock_timeout`. */
const LOCK_NOT_AVAILABLE = '55P03';
/** In a shared transaction: a conflict, or a lock waited for too long (`batch`): the request runs in a later one. */
const conflictLike = (err: unknown) => retryable(err) || codeOf(err) === LOCK_NOT_AVAILABLE;
/** How long a request of a shared transaction that already holds others' locks waits for a lock (ms). */
const LOCK_WAIT_MS = 100;

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
  /** Savepoints named on the connection so far. */
  names: { n: number };
  /** The driver's connection, once BEGIN went out on it (`watchClose`). */
  connection?: DriverConnection;
}

/**
 * The driver's own connection object (postgres.js 3.4): the pool calls its `onclose` once when the connection closes,
 * as the driver's `begin` relies on. A reserved connection has no other word of it: a statement sent on one that
 * closed meanwhile never settles, or goes out on the connection the pool made again for someone else.
 */
interface DriverConnection {
  onclose?: ((err: unknown) => void) | null;
}

/**
 * Options for the statement that opens a transaction on a reserved connection: once it is sent, the connection's
 * closing loses the transaction (`root.lose`), whether a statement of it is waiting or not.
 */
function watchClose(root: Root): object {
  return {
    onexecute: (c: DriverConnection) => {
      root.connection = c;
      c.onclose = (err) => root.lose(err);
      return true; // the statements behind it go out without waiting for its answer
    },
  };
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
    names: { n: 0 },
  };
  return root;
}

interface Frame {
  /** The handle the adapters' queries run on (`textSafe`). */
  sql: ReservedSql;
  /** The driver's own handle (the transaction's statements: BEGIN, SAVEPOINT, COMMIT). */
  raw: ReservedSql;
  root: Root;
  /** Writes sent and not waited for (`send`), in this transaction or savepoint, in order: each settles with its failure. */
  pending: Promise<{ err: unknown } | undefined>[];
  /** Writes held to the transaction's end (`last`), in order. */
  held: Held[];
  /** The frame of the request's work this one is a savepoint of: its held writes come before this one's. */
  parent?: Frame;
  /** Held writes of the frames around this one sent in it (`sendHeld`): held again if this part is undone. */
  borrowed: { from: Frame; held: Held[] }[];
}

interface Held {
  /** The table it writes, as a word of a statement's text. */
  table: RegExp;
  run: (q: ReservedSql) => Promise<unknown>;
  /** In a shared transaction, the index (in `batch`'s `ran`) of the request that made it. */
  owner?: number;
}

/**
 * The writes held in `frame` and the frames of the same work around it sent now (outermost first), and no longer
 * held; those of the frames around it are noted as borrowed, to be held again if this part is undone.
 */
function sendHeld(frame: Frame): void {
  const around: Frame[] = [];
  for (let f = frame.parent; f; f = f.parent) around.unshift(f);
  for (const from of around) {
    const held = from.held.splice(0);
    if (!held.length) continue;
    frame.borrowed.push({ from, held });
    for (const h of held) sendIn(frame, h.run);
  }
  for (const h of frame.held.splice(0)) sendIn(frame, h.run);
}

/** `part` was undone: the held writes of the frames around it that it sent are held again. */
function unborrow(part: Frame): void {
  for (const { from, held } of part.borrowed.splice(0).reverse()) from.held.unshift(...held);
}

/** Whether a write held in `frame` (or a frame it is part of) writes a table that `text` names. */
function namesHeld(frame: Frame, text: string): boolean {
  for (let f: Frame | undefined = frame; f; f = f.parent) if (f.held.some((h) => h.table.test(text))) return true;
  return false;
}

/**
 * The first (in the order sent) of the frame's writes that failed, once each has settled (each failure is the cause of
 * what failed after it: PostgreSQL refuses every statement after a failed one). Undefined when none did.
 */
async function firstFailure(frame: Frame | undefined, root: Root): Promise<{ err: unknown } | undefined> {
  if (!frame?.pending.length) return undefined;
  const settled = await Promise.race([Promise.all(frame.pending), root.lost]);
  return settled.find((f) => f !== undefined);
}

/** `run` sent on the frame's connection and not waited for: its failure is noted in the frame (`send`). */
function sendIn(frame: Frame, run: (q: ReservedSql) => Promise<unknown>): void {
  let sent: Promise<unknown>;
  try {
    sent = run(frame.sql);
  } catch (err) {
    sent = Promise.reject(err);
  }
  frame.pending.push(
    sent.then(
      () => undefined,
      (err: unknown) => ({ err }),
    ),
  );
}

const tableWords = new Map<string, RegExp>();
/** `table` as a word of a statement's text. */
function tableWord(table: string): RegExp {
  let re = tableWords.get(table);
  if (!re) tableWords.set(table, (re = new RegExp(`\\b${table}\\b`, 'i')));
  return re;
}

/** A request's write waiting for a batch, or running in one (`grouped`). */
interface Member {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  /** How many times a conflict undid it, and the last one. */
  tries: number;
  conflict?: unknown;
  /** When it first ran (ms): the budget of re-runs (`retryForMs`) counts from then. */
  since?: number;
}

/**
 * A frame on `sql`: a statement of it that names a table a held write (`last`) writes sends the held writes first, so
 * that it sees them.
 */
function newFrame(sql: ReservedSql, root: Root, parent?: Frame): Frame {
  const frame: Frame = { sql, raw: sql, root, pending: [], held: [], borrowed: [], ...(parent && { parent }) };
  frame.sql = textSafe(sql, undefined, (text) => {
    // Nothing more goes out on a connection that was lost (it may serve another transaction by now).
    if (root.lostWith !== undefined) throw root.lostWith;
    if (namesHeld(frame, text)) sendHeld(frame);
  });
  return frame;
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
function textSafe<H extends Handle>(handle: H, fail?: (err: unknown) => never, before?: (text: string) => void): H {
  const caught = <R>(q: R): R => (fail ? ((q as Promise<unknown>).catch(fail) as R) : q);
  return new Proxy(handle, {
    apply: (target, self, args: unknown[]) => {
      // A tagged template (sql`… ${value} …`) has its values after the strings; a helper call (sql(name)) is left.
      const template = Array.isArray(args[0]) && 'raw' in (args[0] as object);
      if (template) before?.((args[0] as string[]).join(' '));
      return caught(Reflect.apply(target, self, template ? [args[0], ...args.slice(1).map(safe)] : args));
    },
    get: (target, key) => {
      if (key === 'unsafe')
        return (query: string, params?: unknown[], options?: object) => {
          before?.(query);
          return caught(target.unsafe(query, params?.map(safe) as never, options as never));
        };
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
  return new PgStore(
    () => postgres(url, driverOptions),
    describeUrl(url),
    secrets,
    options.attempts ?? 100,
    begin,
    options.retryForMs ?? 10_000,
    options.serialTable,
    { at: options.batches ?? 2, size: Math.max(1, options.batchSize ?? 16) },
  );
}

/**
 * The driver's connection to PostgreSQL, its writes of one event-loop turn sent together (`cork` until the turn's
 * check phase): the driver writes each statement of 1 KB or more at once, so a transaction's statements sent without
 * waiting (`send`) would each be a system call and a wake-up of PostgreSQL's backend. Returned while still connecting:
 * the driver's first message waits in the socket, and its errors reach the driver's handlers as a socket of its own
 * would.
 */
function coalescingSocket(options: { host: string[]; port: number[]; path?: string | false }): Socket {
  const socket = options.path ? connect(options.path) : connect(options.port[0]!, options.host[0]!);
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  let corked = false;
  socket.write = ((...args: unknown[]) => {
    if (!corked) {
      corked = true;
      socket.cork();
      setImmediate(() => {
        corked = false;
        socket.uncork();
      });
    }
    return write(...args);
  }) as typeof socket.write;
  return socket;
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
    private readonly serialTable: string | undefined,
    private readonly batching: { at: number; size: number },
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

  grouped<T>(fn: () => T | Promise<T>): Promise<T> {
    if (this.batching.at <= 0 || this.inTransaction()) return this.transaction('write', fn, true);
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ fn, resolve: resolve as (value: unknown) => void, reject, tries: 0 });
      this.startBatches();
    });
  }

  /** Requests' writes waiting for a batch (`grouped`), oldest first. */
  private readonly waiting: Member[] = [];
  /** Batches running now. */
  private running = 0;

  private startBatches(): void {
    while (this.waiting.length > 0 && this.running < this.batching.at) {
      this.running++;
      // A batch takes only writes that were waiting when it started: its snapshot, taken after, sees every write
      // acknowledged before any of them was asked for (a client's next request sees its last one).
      const members = this.waiting.splice(0, this.batching.size);
      void this.batch(members).finally(() => {
        this.running--;
        this.startBatches();
      });
    }
  }

  /**
   * `members` in one write transaction, each in a savepoint of its own, one after another, each answered once the
   * transaction committed. A member's writes are not waited for (`send`): the next member's statements go out behind
   * them. A member that throws is undone alone (ROLLBACK TO its savepoint) and answered with its failure at once — or,
   * when a write of an earlier member failed (PostgreSQL then refuses every statement after it), that member is
   * undone with all that ran after it, and those go back to the queue. A conflict (40001, 40P01) ends the batch: what
   * ran before it commits, and the members after it would meet the same change (the batch's snapshot is older), so
   * they go back to the front of the queue, the conflicted one first, for a batch with a new snapshot (`again`).
   */
  private async batch(members: Member[]): Promise<void> {
    const root = newRoot();
    const pool = this.sql;
    /** Members that ran and were not undone, in order. */
    const ran: { m: Member; part: Frame; name: string; value: unknown }[] = [];
    /** Members to run again in a later batch, in order. */
    const back: Member[] = [];
    let next = 0;
    /** Whether lock waits are bounded in this batch (after its first request). */
    let waitBounded = false;
    /** The member whose work runs now (it is in neither `ran` nor `back`). */
    let running: Member | undefined;
    let conn: ReservedSql | undefined;
    /** The first member in `ran` whose write failed, and the failure. */
    const culprit = async () => {
      for (const [index, r] of ran.entries()) {
        const failed = await firstFailure(r.part, root);
        if (failed) return { index, err: failed.err };
      }
      return undefined;
    };
    const conflicted = (m: Member, err: unknown) => {
      m.tries++;
      m.conflict = err;
      back.push(m);
    };
    try {
      conn = await pool.reserve();
      const c = conn;
      const whole = newFrame(c, root);
      await this.shell(
        c,
        root,
        'write',
        this.serialLock('write', 1, true),
        async () => {
          while (next < members.length) {
            const m = members[next]!;
            const name = `m${next++}`;
            running = m;
            m.since ??= Date.now();
            // A member's own `doomed`; the connection's state is the batch's.
            const own = Object.create(root) as Root;
            const part = newFrame(c, own);
            // Once the batch holds what a request locked, a later request that waits for a lock another transaction
            // holds may be one half of a deadlock (the other batch waiting for a row this one locked): it gives up
            // after LOCK_WAIT_MS (55P03) and runs in the next batch, rather than PostgreSQL breaking the cycle after
            // its deadlock_timeout (1 s). Sent in this request's part: a failure of an earlier request's write that
            // makes it fail is that one's.
            if (ran.length > 0 && !waitBounded) {
              waitBounded = true;
              sendIn(part, (q) => q.unsafe(`SET LOCAL lock_timeout = ${LOCK_WAIT_MS}`));
            }
            sendIn(part, (q) => q.unsafe(`SAVEPOINT ${name}`));
            let err: unknown;
            try {
              const value = await this.als.run(part, async () => m.fn());
              if (own.doomed !== undefined) throw own.doomed;
              const index = ran.length;
              whole.held.push(...part.held.splice(0).map((h) => ({ ...h, owner: index })));
              ran.push({ m, part, name, value });
              running = undefined;
              continue;
            } catch (caught) {
              err = caught;
            }
            if (root.lostWith !== undefined || lostConnection(err)) throw err;
            const earlier = await culprit();
            if (earlier) {
              running = undefined;
              const [failed, ...after] = ran.splice(earlier.index);
              // Their held writes (never sent: a request's part sends only its own) go with them.
              whole.held = whole.held.filter((h) => (h.owner ?? 0) < earlier.index);
              await c.unsafe(`ROLLBACK TO SAVEPOINT ${failed!.name}`);
              this.emit(this.rollbackListeners);
              if (conflictLike(earlier.err)) conflicted(failed!.m, earlier.err);
              else failed!.m.reject(this.fault(earlier.err));
              back.push(...after.map((r) => r.m), m);
              if (conflictLike(earlier.err)) break;
              continue;
            }
            const own_ = await firstFailure(part, root);
            if (own_) err = own_.err;
            if (root.lostWith !== undefined || lostConnection(err)) throw err;
            running = undefined;
            await c.unsafe(`ROLLBACK TO SAVEPOINT ${name}`);
            this.emit(this.rollbackListeners);
            if (conflictLike(err)) {
              // The batch ends here: what ran before commits, the rest waits for a new snapshot.
              conflicted(m, err);
              break;
            }
            m.reject(this.fault(err));
          }
          back.push(...members.slice(next));
          next = members.length;
          // The held writes (the event log's append, whose lock is the last a transaction takes: no deadlock) may
          // wait for another transaction's COMMIT as long as it takes.
          if (waitBounded) sendIn(whole, (q) => q.unsafe('SET LOCAL lock_timeout = 0'));
        },
        whole,
      );
    } catch (err) {
      this.emit(this.rollbackListeners);
      await this.ended(pool, conn, root, err);
      // The transaction was undone: by a write of a member that failed after the member's end (PostgreSQL answered
      // the COMMIT behind it by undoing all), or with the connection, or by a conflict.
      const earlier =
        root.lostWith === undefined && !lostConnection(err) ? await culprit().catch(() => undefined) : undefined;
      const undone = ran.map((r) => r.m);
      const rest = [...(running ? [running] : []), ...members.slice(next)];
      if (earlier) {
        const failed = undone.splice(earlier.index, 1)[0]!;
        if (conflictLike(earlier.err)) conflicted(failed, earlier.err);
        else failed.reject(this.fault(earlier.err));
        // The others' work was undone with it, through no fault of theirs.
        this.again(...back.splice(0), ...undone, ...rest);
        return;
      }
      if (!conflictLike(err)) {
        for (const m of [...undone, ...back, ...rest]) m.reject(this.fault(err));
        return;
      }
      for (const m of undone) {
        m.tries++;
        m.conflict = err;
      }
      this.again(...undone, ...back, ...rest);
      return;
    }
    await this.ended(pool, conn, root);
    if (ran.length) this.emit(this.commitListeners);
    for (const r of ran) r.m.resolve(r.value);
    this.again(...back);
  }

  /**
   * Members undone for a conflict (or not run for one), in their order: to the front of the queue, for a batch with a
   * new snapshot; one that a conflict undid twice, as a transaction of its own that takes its turn (`serialLock`).
   */
  private again(...members: Member[]): void {
    const batched: Member[] = [];
    for (const m of members) {
      if (m.tries === 0 || (m.tries <= 1 && m.tries < this.attempts)) batched.push(m);
      else if (m.tries >= this.attempts || Date.now() - (m.since ?? 0) >= this.retryForMs)
        m.reject(this.fault(m.conflict));
      else this.transaction('write', m.fn, true, m.tries).then(m.resolve, m.reject);
    }
    if (!batched.length) return;
    this.waiting.unshift(...batched);
    this.startBatches();
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
  private async transaction<T>(mode: Mode, fn: () => T | Promise<T>, rerun: boolean, first = 1): Promise<T> {
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
        if (retryable(err) && rerun && attempt < this.attempts && Date.now() - since < this.retryForMs) {
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
  private shell<T>(
    conn: ReservedSql,
    root: Root,
    mode: Mode,
    lockMode: string | undefined,
    body: () => Promise<T>,
    frame: Frame = newFrame(conn, root),
  ): Promise<T> {
    sendIn(frame, (q) => q.unsafe(`BEGIN ${this.begin[mode]}`, [], watchClose(root)));
    if (lockMode !== undefined) sendIn(frame, (q) => q.unsafe(`LOCK TABLE ${this.serialTable} IN ${lockMode} MODE`));
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
  private async ended(pool: Sql, conn: ReservedSql | undefined, root: Root, err?: unknown): Promise<void> {
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
