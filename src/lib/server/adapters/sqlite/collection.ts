// A typed document table: insert, get, update, and keyset-paginated lists (newest first) with equality
// filters on indexed columns. Every area stores its objects through one of these.
import type { Statement } from 'better-sqlite3';
import type { List } from '../../../contract/common.js';
import { errors } from '../../errors.js';
import { countColumns, countValue, countValues } from './counts.js';
import type { SqliteDatabase } from './db.js';
import type { TableDef } from '../../store/tables.js';
import type { Documents, ListOptions } from '../../store/seam.js';
import { keyset, type Keyset, type PageQuery } from '../../store/paging.js';

export type { ListOptions };

/**
 * The keyset (store/paging.ts) of a page of `table`'s rows whose `owner` column (the account, a listener) is
 * `ownerId`, the cursor's row found by its id; and its bound as SQLite's condition on `column` (default `seq`), with
 * its parameters.
 */
export function seqKeyset(
  store: SqliteDatabase,
  table: string,
  owner: string,
  ownerId: string,
  opts: PageQuery,
  { column = 'seq' } = {},
): { keyset: Keyset; cond: string; params: number[] } {
  const seqOf = (id: string) =>
    (
      store.statement(`SELECT seq FROM ${table} WHERE id = ? AND ${owner} = ?`).get(id, ownerId) as
        | { seq: number }
        | undefined
    )?.seq;
  const k = keyset(opts, seqOf);
  if (!k.after) return { keyset: k, cond: '', params: [] };
  return { keyset: k, cond: ` AND ${column} ${k.after.op} ?`, params: [k.after.seq] };
}

/** At most this many remembered documents per Collection (see `known`). */
const KNOWN_MAX = 1024;

/**
 * The domain's view of a collection (the seam's Documents): the same calls, each answering with a promise. The
 * adapter's own code uses the Collection itself, synchronously.
 */
export function asyncDocuments<T extends { id: string }>(c: Collection<T>): Documents<T> {
  return {
    insert: async (accountId, doc) => c.insert(accountId, doc),
    update: async (accountId, doc) => c.update(accountId, doc),
    delete: async (accountId, id) => c.delete(accountId, id),
    get: async (accountId, id) => c.get(accountId, id),
    require: async (accountId, id, resource, param) => c.require(accountId, id, resource, param),
    list: async (accountId, url, opts) => c.list(accountId, url, opts),
    total: async (accountId, where) => c.total(accountId, where),
  };
}

export class Collection<T extends { id: string }> {
  private countSpecs?: Set<string>;
  readonly table: string;
  /** The table's columns (besides seq, id, account_id and data) and how to read each from a document. */
  private readonly columns: Record<string, (doc: T) => string | number | null>;

  /** @param def the table's declaration (store/tables.ts) */
  constructor(
    private readonly store: SqliteDatabase,
    def: TableDef<T>,
  ) {
    this.table = def.name;
    this.columns = Object.fromEntries(Object.entries(def.columns).map(([name, column]) => [name, column.read]));
    this.names = Object.keys(this.columns);
    if (def.counted) {
      // The row counts lists read (list_counts): every row of the account, and each filter set by its values.
      const narrow = new Set(def.narrow.map((f) => countColumns([...f].sort())));
      for (const cs of [[], ...def.filters].map((f) => [...f].sort()).filter((f) => !narrow.has(countColumns(f)))) {
        const idx = cs.map((c) => this.names.indexOf(c));
        if (idx.includes(-1)) throw new Error(`${this.table}: filter on ${cs.join(', ')}, which is not a column`);
        this.tallies.push({
          cols: countColumns(cs),
          idx,
          nullable: idx.filter((i) => def.nullable.includes(this.names[i]!)),
        });
      }
    }
    if (this.names.length) {
      const forget = () => this.known.clear();
      store.onCommit(forget);
      store.onRollback(forget);
    }
  }

  private values(doc: T): (string | number | null)[] {
    return Object.values(this.columns).map((read) => read(doc));
  }

  private insertStmt?: Statement;
  private currentStmt?: Statement;
  /** UPDATE statements by the set of indexed columns they write (bit i = column i). */
  private readonly updateStmts = new Map<number, Statement>();
  /** The same, guarded by the values of the columns they leave alone (see update). */
  private readonly guardedStmts = new Map<number, Statement>();
  /**
   * The indexed column values each document this Collection read or wrote had then (see update). Documents
   * are the callers' to change; the values are taken when the row is read, before any change. Hints only (an
   * update checks them, see guardedUpdate), so they are dropped at every COMMIT and rollback, and past
   * KNOWN_MAX entries (reads outside write transactions). A Map, not a WeakMap: cheaper (bench/README.md).
   */
  private readonly known = new Map<T, (string | number | null)[]>();
  private readonly names: string[];
  /**
   * The counts a row of this table is in (SqliteDatabase.count): its filter sets, as column indexes; a set with a
   * nullable column counts only rows that have a value in it.
   */
  private readonly tallies: { cols: string; idx: number[]; nullable: number[] }[] = [];

  /** Adds `delta` to every count the row with column values `values` is in. */
  private tally(accountId: string, values: (string | number | null)[], delta: number): void {
    for (const t of this.tallies) this.countOne(accountId, t, values, delta);
  }

  private countOne(
    accountId: string,
    t: { cols: string; idx: number[]; nullable: number[] },
    values: (string | number | null)[],
    delta: number,
  ): void {
    for (const i of t.nullable) if (values[i] === null) return;
    const idx = t.idx;
    const vals =
      idx.length === 0 ? '' : idx.length === 1 ? countValue(values[idx[0]!]!) : countValues(idx.map((i) => values[i]!));
    this.store.count(this.table, accountId, t.cols, vals, delta);
  }

  /** Moves the row from the counts of its values `before` to those of `after` (filter sets whose values changed). */
  private moved(accountId: string, before: (string | number | null)[], after: (string | number | null)[]): void {
    for (const t of this.tallies) {
      if (!t.idx.some((i) => before[i] !== after[i])) continue;
      this.countOne(accountId, t, before, -1);
      this.countOne(accountId, t, after, 1);
    }
  }

  /** `doc`, as read from its row: its column values are remembered for a later update (none for a table without columns). */
  private read(doc: T): T {
    if (this.names.length) this.remember(doc, this.values(doc));
    return doc;
  }

  private remember(doc: T, values: (string | number | null)[]): void {
    if (this.known.size >= KNOWN_MAX) this.known.clear();
    this.known.set(doc, values);
  }

  insert(accountId: string, doc: T): T {
    if (!this.insertStmt) {
      const names = Object.keys(this.columns);
      this.insertStmt = this.store.statement(
        `INSERT INTO ${this.table} (id, account_id, ${names.map((n) => `${n}, `).join('')}data) VALUES (?, ?, ${names.map(() => '?, ').join('')}?)`,
      );
    }
    const values = this.values(doc);
    this.insertStmt.run(doc.id, accountId, ...values, JSON.stringify(doc));
    this.tally(accountId, values, 1);
    if (this.names.length) this.remember(doc, values);
    return doc;
  }

  /**
   * Writes the document, and of its indexed columns only those whose value changed: SQLite rewrites every index on
   * a column named in SET whether or not the value changed (cost in bench/README.md).
   *
   * What changed is known without reading the row back when this Collection read (or wrote) `doc` itself: the
   * column values it had then are remembered with it. That UPDATE also requires the columns it leaves alone to
   * still hold those values (`col IS ?`), so a row changed meanwhile by another path is never half-written: it
   * touches no row, and the update reads the row back as before.
   */
  update(accountId: string, doc: T): T {
    const next = this.values(doc);
    const known = this.known.get(doc);
    if (known && this.guardedUpdate(accountId, doc, known, next)) return doc;
    const names = this.names;
    let mask = 0;
    let current: (string | number | null)[] | undefined;
    if (names.length) {
      this.currentStmt ??= this.store
        .statement(`SELECT ${names.join(', ')} FROM ${this.table} WHERE id = ? AND account_id = ?`)
        .raw(true);
      current = this.currentStmt.get(doc.id, accountId) as (string | number | null)[] | undefined;
      if (!current) throw new Error(`${this.table}: update of ${doc.id} touched 0 rows`);
      for (let i = 0; i < names.length; i++) if (current[i] !== next[i]) mask |= 1 << i;
    }
    let stmt = this.updateStmts.get(mask);
    if (!stmt) {
      const set = names.filter((_, i) => mask & (1 << i));
      stmt = this.store.db.prepare(
        `UPDATE ${this.table} SET ${set.map((n) => `${n} = ?, `).join('')}data = ? WHERE id = ? AND account_id = ?`,
      );
      this.updateStmts.set(mask, stmt);
    }
    const r = stmt.run(...next.filter((_, i) => mask & (1 << i)), JSON.stringify(doc), doc.id, accountId);
    if (r.changes !== 1) throw new Error(`${this.table}: update of ${doc.id} touched ${r.changes} rows`);
    if (current) this.moved(accountId, current, next);
    if (names.length) this.remember(doc, next);
    return doc;
  }

  /** The UPDATE of `doc` as read with column values `known` (see update); false when the row no longer has them. */
  private guardedUpdate(
    accountId: string,
    doc: T,
    known: (string | number | null)[],
    next: (string | number | null)[],
  ): boolean {
    const names = this.names;
    let mask = 0;
    for (let i = 0; i < names.length; i++) if (known[i] !== next[i]) mask |= 1 << i;
    let stmt = this.guardedStmts.get(mask);
    if (!stmt) {
      const set = names.filter((_, i) => mask & (1 << i));
      const same = names.filter((_, i) => !(mask & (1 << i)));
      stmt = this.store.db.prepare(
        `UPDATE ${this.table} SET ${set.map((n) => `${n} = ?, `).join('')}data = ? WHERE id = ? AND account_id = ?${same.map((n) => ` AND ${n} IS ?`).join('')}`,
      );
      this.guardedStmts.set(mask, stmt);
    }
    const params: (string | number | null)[] = [];
    for (let i = 0; i < names.length; i++) if (mask & (1 << i)) params.push(next[i]!);
    params.push(JSON.stringify(doc), doc.id, accountId);
    for (let i = 0; i < names.length; i++) if (!(mask & (1 << i))) params.push(known[i]!);
    if (stmt.run(...params).changes !== 1) return false;
    if (mask) this.moved(accountId, known, next);
    this.remember(doc, next);
    return true;
  }

  delete(accountId: string, id: string): boolean {
    const gone = this.store
      .statement(
        `DELETE FROM ${this.table} WHERE id = ? AND account_id = ? RETURNING ${['id', ...this.names].join(', ')}`,
      )
      .raw(true)
      .get(id, accountId) as (string | number | null)[] | undefined;
    if (!gone) return false;
    this.tally(accountId, gone.slice(1), -1);
    return true;
  }

  get(accountId: string, id: string): T | undefined {
    const row = this.store
      .statement(`SELECT data FROM ${this.table} WHERE id = ? AND account_id = ?`)
      .get(id, accountId) as { data: string } | undefined;
    return row ? this.read(JSON.parse(row.data) as T) : undefined;
  }

  /** The document, or 404 `resource_missing` naming `resource`. */
  require(accountId: string, id: string, resource: string, param?: string): T {
    const doc = this.get(accountId, id);
    if (!doc) throw errors.notFound(resource, id, param);
    return doc;
  }

  /** Documents matching `where` (all accounts when accountId is null), by a raw SQL condition — for due work. */
  selectWhere(condition: string, ...params: (string | number)[]): { accountId: string; doc: T }[] {
    return this.selectFirst(-1, condition, ...params);
  }

  /** The first `limit` rows (all when -1) matching `condition`, in creation order. */
  selectFirst(limit: number, condition: string, ...params: (string | number)[]): { accountId: string; doc: T }[] {
    const rows = this.store
      .statement(
        `SELECT account_id, data FROM ${this.table} WHERE ${condition} ORDER BY +seq LIMIT ${Math.trunc(limit)}`,
      )
      .all(...params) as {
      account_id: string;
      data: string;
    }[];
    return rows.map((r) => ({ accountId: r.account_id, doc: this.read(JSON.parse(r.data) as T) }));
  }

  /**
   * The documents of a whole statement `sql` of this table's rows, which selects their `data` (due work in an order
   * of its own), in its order; read as `get` reads them (an update of one is the guarded UPDATE).
   */
  selectDocs(sql: string, ...params: (string | number)[]): T[] {
    const rows = this.store.statement(sql).all(...params) as { data: string }[];
    return rows.map((r) => this.read(JSON.parse(r.data) as T));
  }

  list(accountId: string, url: string, opts: ListOptions = {}): List<T> {
    const { filters, where, params } = this.filtered(accountId, opts.where);
    const { keyset: k, cond, params: after } = seqKeyset(this.store, this.table, 'account_id', accountId, opts);
    const rows = this.store
      .statement(`SELECT data FROM ${this.table} WHERE ${where}${cond} ORDER BY seq ${k.order} LIMIT ?`)
      .all(...params, ...after, k.fetch) as { data: string }[];
    return k.list(rows, (r) => JSON.parse(r.data) as T, this.count(accountId, filters, where, params), url);
  }

  /** How many of the account's rows match `where` (as list's `total_count`: from the kept counters when it can). */
  total(accountId: string, where?: ListOptions['where']): number {
    const { filters, where: sql, params } = this.filtered(accountId, where);
    return this.count(accountId, filters, sql, params);
  }

  private filtered(accountId: string, where: ListOptions['where'] = {}) {
    const filters = Object.entries(where).filter(([, v]) => v !== undefined);
    for (const [name] of filters)
      if (!(name in this.columns)) throw new Error(`${this.table}: no indexed column ${name}`);
    const cond = ['account_id = ?', ...filters.map(([n, v]) => (v === null ? `${n} IS NULL` : `${n} = ?`))];
    const params: (string | number)[] = [
      accountId,
      ...(filters.map(([, v]) => v).filter((v) => v !== null) as (string | number)[]),
    ];
    return { filters, where: cond.join(' AND '), params };
  }

  /** Exact count of the filter's matches: O(1) from the kept counters (SqliteDatabase.count) when the filter set has one. */
  private count(
    accountId: string,
    filters: [string, string | number | null | undefined][],
    where: string,
    params: (string | number)[],
  ): number {
    this.countSpecs ??= new Set(
      (this.store.db.prepare('SELECT cols FROM count_specs WHERE tbl = ?').all(this.table) as { cols: string }[]).map(
        (r) => r.cols,
      ),
    );
    const sorted = [...filters].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const cols = countColumns(sorted.map(([n]) => n));
    if (this.countSpecs.has(cols))
      return this.store.counted(this.table, accountId, cols, countValues(sorted.map(([, v]) => v ?? null)));
    const total = this.store.statement(`SELECT COUNT(*) AS n FROM ${this.table} WHERE ${where}`).get(...params) as {
      n: number;
    };
    return total.n;
  }
}
