// Exact list counts (`list_counts`): how a count is keyed, and the tally of a transaction's changes to them, written
// once per count before COMMIT (cheaper than triggers, which wrote every change of every row).
import type { Database as Connection, Statement } from 'better-sqlite3';

/** The key of a count series: its columns sorted, comma-joined ('' = every row of the account). */
export const countColumns = (cols: string[]) => [...cols].sort().join(',');
/** How a value is written into a count key (the same rule as tablesql.ts's count triggers). */
export const COUNT_NULL = '\u0000';
export const COUNT_SEPARATOR = '\u001f';
/** One value of a count key. */
export const countValue = (v: string | number | null) => (v === null ? COUNT_NULL : String(v));
export const countValues = (values: (string | number | null)[]) => values.map(countValue).join(COUNT_SEPARATOR);

/**
 * The row-count changes of the open transaction (Store.count), one entry per count: a group-commit batch writes
 * each count once (one UPSERT), however many requests changed it.
 */
export class Counts {
  private readonly pending = new Map<
    string,
    { table: string; accountId: string; cols: string; vals: string; n: number }
  >();
  private readonly upsert: Statement;

  constructor(db: Connection) {
    this.upsert = db.prepare(
      'INSERT INTO list_counts (tbl, account_id, cols, vals, n) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tbl, account_id, cols, vals) DO UPDATE SET n = n + excluded.n',
    );
  }

  /** Tallies the change (`defer`: in a transaction of this store), or writes it now (autocommit, or a transaction the store did not open). */
  add(table: string, accountId: string, cols: string, vals: string, delta: number, defer: boolean): void {
    if (!defer) {
      this.upsert.run(table, accountId, cols, vals, delta);
      return;
    }
    const key = `${table}\u001e${accountId}\u001e${cols}\u001e${vals}`;
    const entry = this.pending.get(key);
    if (entry) entry.n += delta;
    else this.pending.set(key, { table, accountId, cols, vals, n: delta });
  }

  /**
   * Writes what is tallied (in the open transaction or savepoint) and starts a new tally. An entry leaves the
   * tally only once written: when a write fails and SQLite undoes only that statement (a full disk), the rest
   * stays tallied for the transaction's next flush, so the rows the transaction keeps are still counted.
   */
  flush(): void {
    for (const [key, e] of this.pending) {
      if (e.n !== 0) this.upsert.run(e.table, e.accountId, e.cols, e.vals, e.n);
      this.pending.delete(key);
    }
  }

  /** Forgets the tally: its changes were rolled back. */
  clear(): void {
    this.pending.clear();
  }
}
