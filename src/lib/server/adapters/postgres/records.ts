// The server's own records in PostgreSQL: table meta (key, value), as SQLite keeps them (adapters/sqlite/engine.ts).
import type { ServerRecords } from '../engine.js';
import type { Handle, PostgresDatabase } from './db.js';
import { pgQuery } from './query.js';

/**
 * What `exclusive` locks: table meta, in SHARE ROW EXCLUSIVE mode (it conflicts with itself and with every write to
 * meta, not with reads). Not an advisory lock: the store's transactions are REPEATABLE READ, whose snapshot is taken
 * at the first statement that reads — `SELECT pg_advisory_xact_lock(…)` is one, so a process that waited on it for
 * another's COMMIT would then not see what that one wrote (and make a second default account, or fail). LOCK TABLE
 * takes no snapshot: run first in the transaction, everything after it sees what the one before it committed.
 */
const EXCLUSIVE_LOCK = 'LOCK TABLE meta IN SHARE ROW EXCLUSIVE MODE';

/**
 * One record's value as `cell` keeps it in memory: what the database has committed, and this process's writes not
 * committed yet (each with the handle of the transaction or savepoint it was made in, and the value before it).
 */
interface Cell {
  committed: string | undefined;
  value: string | undefined;
  writes: { handle: Handle; before: string | undefined }[];
}

/**
 * The server's own records: table meta (key, value).
 *
 * `cell(key)` answers synchronously from memory, from the values read at the end of each `exclusive`: make a cell
 * after one (as `Seed.open` does). Its `change` is sent at once in the caller's transaction, not waited for (its
 * failure fails the transaction), and its value follows the store's COMMITs and rollbacks, savepoints' included.
 * Only this process's writes are seen: a seeded sandbox on PostgreSQL is one process (seed.ts).
 *
 * COMMIT and rollback listeners do not say which transaction ended, so the value is exact only while one transaction
 * at a time writes the cell (a seeded server's, in turn): with two at once, a rollback of one takes it back below the
 * other's uncommitted draws.
 */
export function pgServerRecords(store: PostgresDatabase): ServerRecords {
  const get = async (key: string) =>
    (await pgQuery<{ value: string }>(store.current(), 'SELECT value FROM meta WHERE key = $1', [key]))[0]?.value;
  const change = async (key: string, v: string) => {
    await pgQuery(store.current(), 'UPDATE meta SET value = $1 WHERE key = $2', [v, key]);
  };

  /** The values read at the end of the last `exclusive`, and the cells made from them. */
  let loaded: Map<string, string> | undefined;
  const cells = new Map<string, Cell>();

  store.onCommit(() => {
    for (const c of cells.values()) {
      c.committed = c.value;
      c.writes.length = 0;
    }
  });
  store.onRollback(() => {
    // Outside any transaction now: a whole transaction was undone. Inside one: a savepoint of it, and the writes made
    // since it began (those after the last one made in the frame that goes on) are undone.
    const inside = store.inTransaction();
    let frame: Handle | undefined;
    try {
      frame = inside ? store.current() : undefined;
    } catch {
      frame = undefined; // its connection was lost: the whole transaction is gone with it
    }
    for (const c of cells.values()) {
      if (frame === undefined) {
        c.value = c.committed;
        c.writes.length = 0;
        continue;
      }
      while (c.writes.length && c.writes[c.writes.length - 1]!.handle !== frame) c.value = c.writes.pop()!.before;
    }
  });

  /**
   * Writes `v` in the caller's transaction without waiting for it, unless the transaction is read-only: a read's
   * draws stay in memory, and the next write stores them (SQLite's `change` throws there, and seed.ts ignores it).
   * The text is sent whole (DO takes no parameters): the key and value are quoted here.
   */
  const send = (key: string, v: string) => {
    if ((key + v).includes('$payorch$')) throw new Error(`meta ${key}: a value that cannot be sent`);
    const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
    const text = `DO $payorch$ BEGIN IF current_setting('transaction_read_only') = 'off' THEN UPDATE meta SET value = ${lit(v)} WHERE key = ${lit(key)}; END IF; END $payorch$`;
    // Sent now, in order with the transaction's other statements; a failure fails the transaction (its COMMIT), and
    // is not left unhandled here.
    store
      .current()
      .unsafe(text)
      .execute()
      .catch(() => {});
  };

  return {
    get,
    has: async (key) => (await pgQuery(store.current(), 'SELECT 1 FROM meta WHERE key = $1', [key])).length > 0,
    async put(key, v) {
      await pgQuery(
        store.current(),
        'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        [key, v],
      );
    },
    async add(key, v) {
      await pgQuery(store.current(), 'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [
        key,
        v,
      ]);
    },
    change,
    hasAccounts: async () => (await pgQuery(store.current(), 'SELECT 1 FROM accounts LIMIT 1')).length > 0,
    async exclusive(fn) {
      return store.alone(async () => {
        await pgQuery(store.current(), EXCLUSIVE_LOCK);
        const value = await fn();
        const rows = await pgQuery<{ key: string; value: string }>(store.current(), 'SELECT key, value FROM meta');
        loaded = new Map(rows.map((r) => [r.key, r.value]));
        for (const [key, c] of cells) c.committed = c.value = loaded.get(key);
        return value;
      });
    },
    cell(key) {
      let c = cells.get(key);
      if (!c) {
        if (!loaded) throw new Error(`meta ${key}: a cell is made after the records were read (exclusive)`);
        const v = loaded.get(key);
        c = { committed: v, value: v, writes: [] };
        cells.set(key, c);
      }
      const cell = c;
      return {
        get: () => cell.value,
        change(v) {
          if (cell.value === undefined) return; // no such record: nothing to change (SQLite's UPDATE of no row)
          if (!store.inTransaction()) {
            cell.value = cell.committed = v;
          } else {
            cell.writes.push({ handle: store.current(), before: cell.value });
            cell.value = v;
          }
          send(key, v);
        },
      };
    },
  };
}
