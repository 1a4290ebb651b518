// A transaction's statements on its reserved connection: the frames (the transaction, its savepoints, a request's part
// of a shared one) that note the writes sent and not waited for (`sendIn`) and those held to the end (`last`), and the
// handle that makes every string parameter storable (`textSafe`).
import type { ReservedSql, Sql, TransactionSql } from 'postgres';

/** The handle an adapter's query runs on: the current transaction's, or the pool's outside any transaction. */
export type Handle = Sql | TransactionSql;

export interface Root {
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
export function watchClose(root: Root): object {
  return {
    onexecute: (c: DriverConnection) => {
      root.connection = c;
      c.onclose = (err) => root.lose(err);
      return true; // the statements behind it go out without waiting for its answer
    },
  };
}

export function newRoot(): Root {
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

export interface Frame {
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

export interface Held {
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
export function sendHeld(frame: Frame): void {
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
export function unborrow(part: Frame): void {
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
export async function firstFailure(frame: Frame | undefined, root: Root): Promise<{ err: unknown } | undefined> {
  if (!frame?.pending.length) return undefined;
  const settled = await Promise.race([Promise.all(frame.pending), root.lost]);
  return settled.find((f) => f !== undefined);
}

/** `run` sent on the frame's connection and not waited for: its failure is noted in the frame (`send`). */
export function sendIn(frame: Frame, run: (q: ReservedSql) => Promise<unknown>): void {
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
export function tableWord(table: string): RegExp {
  let re = tableWords.get(table);
  if (!re) tableWords.set(table, (re = new RegExp(`\\b${table}\\b`, 'i')));
  return re;
}

/**
 * A frame on `sql`: a statement of it that names a table a held write (`last`) writes sends the held writes first, so
 * that it sees them.
 */
export function newFrame(sql: ReservedSql, root: Root, parent?: Frame): Frame {
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
export function textSafe<H extends Handle>(
  handle: H,
  fail?: (err: unknown) => never,
  before?: (text: string) => void,
): H {
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
