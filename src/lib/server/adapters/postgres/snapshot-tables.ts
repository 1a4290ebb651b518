// What a snapshot on PostgreSQL is made of: the domain tables as the catalog describes them (every base table but
// the server's own, NOT_DATA: a table a new migration adds is covered with no change here), where their sequences
// stand, and the database's schema version and sealing-key check.
import type { PostgresDatabase, Handle } from './db.js';
import { migrations } from '../../store/migrations/index.js';

/** The newest schema version this build knows. */
export const SNAPSHOT_SCHEMA = Math.max(0, ...migrations.map((m) => m.version));

/** A domain table: its columns (those a row is written with), and its identity (or serial) column's sequence. */
export interface Table {
  name: string;
  columns: string[];
  sequence?: { column: string; name: string };
  /** Its primary key's columns (none: it has no primary key). */
  key: string[];
  /**
   * Its columns of a type whose equality is not sameness (floats: 0 = -0; numeric: 1.0 = 1.00; json has none), which
   * a restore compares as text.
   */
  inexact: string[];
  /** A foreign key names it, or it names another table. */
  related: boolean;
}

/** Where a sequence stood: the last value handed out (null: none yet). */
export type Positions = Record<string, number | null>;

/** An identifier, and a string literal, quoted for SQL text. */
export const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;
export const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** A snapshot's transactions run on their own: inside another, their snapshot would be that one's. */
export function ownTransaction(store: PostgresDatabase, what: string): void {
  if (store.inTransaction()) throw new Error(`${what} runs in a transaction of its own, not inside another`);
}

/** The SQLSTATE (or the driver's code) of `err`. */
export const sqlState = (err: unknown) => (err as { code?: unknown } | undefined)?.code;

/**
 * Tables of the server's own that a snapshot neither saves nor restores: the fault rules (a restore keeps them) and the
 * request log (a restore forgets its entries, and each account's numbering goes on: restore.ts).
 */
const NOT_DATA = ['schema_migrations', 'fault_rules', 'request_log', 'request_log_seqs'];

/**
 * The domain tables, parents before children (foreign keys), with their columns and sequences: every base table of
 * the current schema but NOT_DATA.
 */
export async function domainTables(q: Handle): Promise<Table[]> {
  const rows = await q.unsafe<
    {
      table_name: string;
      columns: string[];
      key: string[];
      inexact: string[];
      seq_column: string | null;
      seq: string | null;
    }[]
  >(
    `SELECT t.table_name,
            array(SELECT c.column_name::text FROM information_schema.columns c
                  WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name AND c.is_generated = 'NEVER'
                  ORDER BY c.ordinal_position) AS columns,
            array(SELECT a.attname::text FROM pg_index i
                  JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
                  WHERE i.indrelid = format('%I.%I', t.table_schema, t.table_name)::regclass AND i.indisprimary
                  ORDER BY a.attnum) AS key,
            array(SELECT c.column_name::text FROM information_schema.columns c
                  WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name AND c.is_generated = 'NEVER'
                    AND c.data_type NOT IN ('text', 'character varying', 'bigint', 'integer', 'smallint', 'boolean')
                  ORDER BY c.ordinal_position) AS inexact,
            s.column_name AS seq_column,
            pg_get_serial_sequence(format('%I.%I', t.table_schema, t.table_name), s.column_name) AS seq
     FROM information_schema.tables t
     LEFT JOIN LATERAL (SELECT c.column_name::text AS column_name FROM information_schema.columns c
                        WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name
                          AND (c.is_identity = 'YES' OR c.column_default LIKE 'nextval(%')
                        ORDER BY c.ordinal_position LIMIT 1) s ON true
     WHERE t.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND t.table_name <> ALL ($1::text[])
     ORDER BY t.table_name`,
    [NOT_DATA] as never[],
  );
  const refs = await q.unsafe<{ child: string; parent: string }[]>(
    `SELECT ch.relname AS child, pa.relname AS parent FROM pg_constraint k
     JOIN pg_class ch ON ch.oid = k.conrelid JOIN pg_class pa ON pa.oid = k.confrelid
     WHERE k.contype = 'f' AND k.connamespace = current_schema()::regnamespace`,
  );
  const related = new Set(refs.flatMap((r) => [r.child, r.parent]));
  const tables = rows.map((r): Table => ({
    name: r.table_name,
    columns: r.columns,
    ...(r.seq_column && r.seq ? { sequence: { column: r.seq_column, name: r.seq } } : {}),
    key: r.key,
    inexact: r.inexact,
    related: related.has(r.table_name),
  }));
  return parentsFirst(tables, refs);
}

/** `tables` ordered so that a table comes after those its foreign keys name (name order otherwise). */
function parentsFirst(tables: Table[], refs: { child: string; parent: string }[]): Table[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const out: Table[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (t: Table) => {
    if (state.get(t.name) === 'done') return;
    if (state.get(t.name) === 'visiting') return; // a cycle (none today): its own order
    state.set(t.name, 'visiting');
    for (const r of refs)
      if (r.child === t.name && r.parent !== t.name && byName.has(r.parent)) visit(byName.get(r.parent)!);
    state.set(t.name, 'done');
    out.push(t);
  };
  for (const t of tables) visit(t);
  return out;
}

export const sameTables = (a: Table[], b: Table[]) =>
  JSON.stringify(a.map((t) => [t.name, t.columns])) === JSON.stringify(b.map((t) => [t.name, t.columns]));

/** The schema version and sealing-key check of what `q` sees. */
export async function identity(q: Handle): Promise<{ schema: number; keyCheck: string | null }> {
  const [row] = await q.unsafe<{ schema: number | null; key_check: string | null }[]>(
    `SELECT (SELECT max(version) FROM schema_migrations) AS schema,
            (SELECT value FROM meta WHERE key = 'sealing_key_check') AS key_check`,
  );
  return { schema: row?.schema ?? 0, keyCheck: row?.key_check ?? null };
}

/** Where each table's sequence stands (sequences are not transactional: read as they are now). */
export async function positions(q: Handle, tables: Table[]): Promise<Positions> {
  const out: Positions = {};
  const withSeq = tables.filter((t) => t.sequence);
  if (withSeq.length === 0) return out;
  const rows = await q.unsafe<{ tbl: string; last: number | null }[]>(
    withSeq
      .map(
        (t) =>
          `SELECT ${literal(t.name)} AS tbl, CASE WHEN is_called THEN last_value END AS last FROM ${t.sequence!.name}`,
      )
      .join(' UNION ALL '),
  );
  for (const r of rows) out[r.tbl] = r.last;
  return out;
}
