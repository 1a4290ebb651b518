// A document table on PostgreSQL: the seam's Documents over any table declared in store/tables.ts, with
// the same contract as SQLite's Collection — the same errors, newest-first keyset pagination on `seq`, equality
// filters on the declared filter columns (a null value matches NULL), exact totals. Documents are JSON text in
// `data`; the declared columns are written beside them from the document's readers. Every query runs on
// `store.current()`: inside the caller's transaction (a savepoint's inside `tx`), never on a connection of its own.
//
// `seq` is handed out at INSERT, not at COMMIT: of two transactions writing at once, the one with the lower seq may
// commit last, so a reader paging with `starting_after` meanwhile can pass over its row (SQLite, one writer at a
// time, cannot). A list read in one snapshot (`Store.read`) is consistent in itself: its page and its total agree.
import type { List } from '../../../contract/common.js';
import { errors } from '../../errors.js';
import { keysetAsync, type Keyset, type PageQuery } from '../../store/paging.js';
import type { Documents, ListOptions } from '../../store/seam.js';
import type { TableDef } from '../../store/tables.js';
import type { Handle, PostgresDatabase } from './db.js';
import { raceLost } from './claim.js';
import { bind, pgQuery, type Value } from './query.js';

/**
 * The documents of table `def` on the store's database. The statements of writes and reads are written once; a list's
 * text depends on its filter set and cursor. The driver prepares each text once per connection.
 */
export function pgDocuments<T extends { id: string }>(
  store: PostgresDatabase,
  def: TableDef<T>,
  raced: readonly string[] = [],
): Documents<T> {
  const table = def.name;
  const names = Object.keys(def.columns);
  const readers = Object.values(def.columns).map((c) => c.read);
  const values = (doc: T): Value[] => readers.map((read) => read(doc));
  /** $1, $2, … $n. */
  const params = (n: number) => Array.from({ length: n }, (_, i) => `$${i + 1}`);

  const insertSql = `INSERT INTO ${table} (id, account_id, ${names.map((n) => `${n}, `).join('')}data) VALUES (${params(names.length + 3).join(', ')})`;
  // Every declared column is set: PostgreSQL decides on a HOT update (no new index entries) by comparing the indexed
  // values themselves, so a column set to the value it had does not by itself cost an index write.
  // The update fails in PostgreSQL (a division by zero, 22012) unless it touched its row: it is sent and not waited
  // for (`send`), and a failure PostgreSQL knows of undoes the transaction at its COMMIT; one found afterwards could not.
  const updateSql = `WITH u AS (UPDATE ${table} SET ${names.map((n, i) => `${n} = $${i + 1}, `).join('')}data = $${names.length + 1} WHERE id = $${names.length + 2} AND account_id = $${names.length + 3} RETURNING 1) SELECT 1 / (SELECT COUNT(*) FROM u) AS one`;
  const deleteSql = `DELETE FROM ${table} WHERE id = $1 AND account_id = $2`;
  const getSql = `SELECT data FROM ${table} WHERE id = $1 AND account_id = $2`;

  /** The WHERE condition of the account's rows matching `where`, and its parameters ($1 is the account). */
  const filtered = (accountId: string, where: ListOptions['where'] = {}) => {
    const filters = Object.entries(where).filter(([, v]) => v !== undefined);
    for (const [name] of filters) if (!(name in def.columns)) throw new Error(`${table}: no indexed column ${name}`);
    const args: Value[] = [accountId];
    const cond = ['account_id = $1'];
    for (const [name, v] of filters) {
      if (v === null) {
        cond.push(`${name} IS NULL`);
      } else {
        args.push(v!);
        cond.push(`${name} = $${args.length}`);
      }
    }
    return { cond: cond.join(' AND '), args };
  };

  /**
   * How many rows match: an exact COUNT(*), read through the account's index (`<table>_account_seq`) or a declared
   * filter's (`<table>_<cols>`, which leads with account_id). SQLite keeps these counts in `list_counts`; here the
   * count is read each time, which a table of many rows per account will feel — keeping counts is for a later step.
   */
  const count = async (q: Handle, cond: string, args: Value[]): Promise<number> => {
    const rows = await pgQuery<{ n: number }>(q, `SELECT COUNT(*) AS n FROM ${table} WHERE ${cond}`, args);
    return rows[0]!.n;
  };

  const get = async (accountId: string, id: string): Promise<T | undefined> => {
    const rows = await pgQuery<{ data: string }>(store.current(), getSql, [id, accountId]);
    return rows.length ? (JSON.parse(rows[0]!.data) as T) : undefined;
  };

  /** A violation of one of the `raced` unique indexes is a conflict (claim.ts `raceLost`). */
  const write = (run: (q: Handle) => Promise<unknown>) =>
    store.send(raced.length ? (q) => run(q).catch((err: unknown) => raceLost(err, raced)) : run);

  return {
    // Writes are sent and not waited for (`PostgresDatabase.send`): their failure is the transaction's.
    async insert(accountId, doc) {
      const args = [doc.id, accountId, ...values(doc), JSON.stringify(doc)];
      await write((q) => pgQuery(q, insertSql, args));
      return doc;
    },

    async update(accountId, doc) {
      const args = [...values(doc), JSON.stringify(doc), doc.id, accountId];
      await write((q) =>
        pgQuery(q, updateSql, args).catch((err: unknown) => {
          if ((err as { code?: string }).code === '22012')
            throw new Error(`${table}: update of ${doc.id} touched 0 rows`);
          throw err;
        }),
      );
      return doc;
    },

    async delete(accountId, id) {
      const r = await pgQuery(store.current(), deleteSql, [id, accountId]);
      return r.count > 0;
    },

    get,

    async require(accountId, id, resource, param) {
      const doc = await get(accountId, id);
      if (!doc) throw errors.notFound(resource, id, param);
      return doc;
    },

    async list(accountId: string, url: string, opts: ListOptions = {}): Promise<List<T>> {
      const q = store.current();
      const { cond, args } = filtered(accountId, opts.where);
      const pageArgs = [...args];
      const { keyset: k, cond: after } = await pgKeyset(q, table, 'account_id', accountId, opts, pageArgs);
      const pageSql = `SELECT data FROM ${table} WHERE ${cond}${after} ORDER BY seq ${k.order} LIMIT ${bind(pageArgs, k.fetch)}`;
      // The page and its total, sent together on the transaction's connection (one round trip).
      const [rows, total] = await Promise.all([pgQuery<{ data: string }>(q, pageSql, pageArgs), count(q, cond, args)]);
      return k.list(rows, (r) => JSON.parse(r.data) as T, total, url);
    },

    async total(accountId, where) {
      const { cond, args } = filtered(accountId, where);
      return count(store.current(), cond, args);
    },
  };
}

/**
 * The keyset (store/paging.ts) of a page of `table`'s rows whose `owner` column (the account, a listener) is
 * `ownerId`, the cursor's row found by its id on `q`; and its bound as a condition on `column` (default `seq`), the
 * cursor's seq added to `args` (its placeholder followed by `cast`).
 */
export async function pgKeyset(
  q: Handle,
  table: string,
  owner: string,
  ownerId: string,
  opts: PageQuery,
  args: Value[],
  { column = 'seq', cast = '' } = {},
): Promise<{ keyset: Keyset; cond: string }> {
  const seqOf = async (id: string) => {
    const rows = await pgQuery<{ seq: number }>(q, `SELECT seq FROM ${table} WHERE id = $1 AND ${owner} = $2`, [
      id,
      ownerId,
    ]);
    return rows[0]?.seq;
  };
  const k = await keysetAsync(opts, seqOf);
  return { keyset: k, cond: k.after ? ` AND ${column} ${k.after.op} ${bind(args, k.after.seq)}${cast}` : '' };
}

/**
 * JSON texts (documents, event bodies) sent as one parameter for a statement of many rows: joined by U+001E, which no
 * JSON text holds raw (JSON.stringify writes every control character as an escape), and split by PostgreSQL: the
 * driver's text[] parameter escapes each element, which costs (bench/README.md).
 */
export const JSON_TEXTS = '\x1e';

/** The SQL of parameter `$n` (JSON texts joined by JSON_TEXTS) as a text[]. */
export const jsonTexts = (n: number): string => `string_to_array($${n}::text, chr(30))`;

/** PostgreSQL's type of a column declared with SQLite's `sql` (tables.ts): INTEGER → bigint, REAL → double precision. */
const pgType = (sql: string): string => {
  const t = sql.trim().split(/\s+/)[0]!.toUpperCase();
  return t === 'INTEGER' ? 'bigint' : t === 'REAL' ? 'double precision' : 'text';
};

/**
 * Writes many documents of table `def` (each changed whole, of one account) in one UPDATE: their columns as arrays and
 * their texts (JSON_TEXTS), `unnest`ed and joined to the rows by id and account. Each must be a row of the account, as
 * Documents.update requires (else it throws, having written none). The account is a column of the arrays, not a
 * condition on the table: with `account_id = $n` the planner of a table not yet analyzed reads every row of the
 * account for each set; this way it finds the rows by their ids.
 */
export function pgUpdateAll<T extends { id: string }>(
  store: PostgresDatabase,
  def: TableDef<T>,
): (accountId: string, docs: readonly T[]) => Promise<void> {
  const table = def.name;
  const names = Object.keys(def.columns);
  const readers = Object.values(def.columns).map((c) => c.read);
  const arrays = Object.values(def.columns).map((c, i) => `$${i + 1}::${pgType(c.sql)}[]`);
  const n = names.length;
  const sql = `UPDATE ${table} AS t SET ${names.map((c) => `${c} = u.${c}, `).join('')}data = u.data FROM unnest(${[...arrays, `$${n + 1}::text[]`, jsonTexts(n + 2), `$${n + 3}::text[]`].join(', ')}) AS u(${names.map((c) => `${c}, `).join('')}id, data, account_id) WHERE t.id = ANY($${n + 1}::text[]) AND t.id = u.id AND t.account_id = u.account_id`;
  return async (accountId, docs) => {
    if (docs.length === 0) return;
    const columns = readers.map((read) => docs.map((doc) => read(doc)));
    const ids = docs.map((doc) => doc.id);
    const texts = docs.map((doc) => JSON.stringify(doc)).join(JSON_TEXTS);
    const r = await pgQuery(store.current(), sql, [...columns, ids, texts, docs.map(() => accountId)]);
    if (r.count !== docs.length) throw new Error(`${table}: an update of ${docs.length} rows touched ${r.count}`);
  };
}
