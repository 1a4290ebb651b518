// Snapshots on PostgreSQL (docs/api.md "Snapshots"). Several processes serve one database, so a named snapshot lives
// in the database itself: a schema of its own (`payorch_snapshot_<hash of the name>`), holding a copy of every
// domain table (`CREATE TABLE … AS`, from one REPEATABLE READ snapshot: writers go on) and a one-row table `_snapshot`
// that says what it is. Any process restores what another saved. An unnamed snapshot (`server.snapshot()`) is an
// image: the tables' rows as COPY writes them, in a Buffer the caller keeps.
//
// The domain tables are every base table of the store's schema but `schema_migrations` (snapshots live in schemas of
// their own) and the server's own state that a restore leaves as it is, as on SQLite, where it is in memory (NOT_DATA):
// a table a new migration adds is covered without a change here.
//
// A restore is ONE write transaction. Its first statements lock (`LOCK TABLE`, which takes no snapshot) the
// snapshot's `_snapshot` table, then `serial_work` (EXCLUSIVE: every write transaction of every process takes it
// first, so those in flight end and new ones wait for the restore's COMMIT, before their snapshot), then every domain
// table in EXCLUSIVE mode, in name order; only then does the transaction take its snapshot, so it sees every write
// committed before it, and no other transaction writes a domain table until it commits (reads go on, and see the data
// as it was until then). An autovacuum worker that holds a table is waited for until PostgreSQL cancels it (after
// deadlock_timeout, 1 s by default): it takes a lock that any mode keeping writers out conflicts with. It makes each
// table equal to the snapshot's copy touching only the rows that differ (`converge`: rows whose key and columns are
// the same in both stay as they are; the others are deleted, and the snapshot's missing rows inserted — a test that
// changed a few rows costs a restore those rows and one comparison per table, not a rewrite of the database), and
// restarts each identity column's sequence where it stood when the snapshot was saved (at least past the restored
// rows): `ALTER SEQUENCE … RESTART` is transactional, so a restore that fails leaves the sequences as they were.
//
// Rows are deleted with DELETE, never TRUNCATE, and tables are never swapped: TRUNCATE (and a table renamed into
// place) is not MVCC-safe — a transaction whose snapshot was taken before the restore committed (a read: reads take
// no lock before their snapshot) would find the tables empty; with DELETE it finds the old data, all of it (the rows
// the restore deleted and those it left). Another process's next transaction sees the data before the restore or
// after it, never a mix and never empty tables. An image is restored the same way, through temporary tables that its
// rows are loaded into (`COPY … FROM STDIN`); a snapshot or image of an older schema is migrated in a schema of the
// restore's own, and then every domain table is emptied and copied whole.
import { moveChangeMark } from './core.js';
import { createHash, randomBytes, webcrypto } from 'node:crypto';
import type { SnapshotInfo } from '../../../contract/snapshots.js';
import { migrations } from '../../store/migrations/index.js';
import { migrationSql } from '../../store/migrations/migration.js';
import {
  checkName,
  checkRestorable,
  missingSnapshot,
  SnapshotError,
  unrestorable,
} from '../../store/snapshot-rules.js';
import type { Inspected } from '../engine.js';
import type { Handle, PostgresStore } from './db.js';

/** The newest schema version this build knows. */
export const SNAPSHOT_SCHEMA = Math.max(0, ...migrations.map((m) => m.version));

/** The schemas that hold named snapshots begin with this. */
export const SNAPSHOT_SCHEMA_PREFIX = 'payorch_snapshot_';
const INFO = '_snapshot';
const IMAGE_MAGIC = 'payorch postgres image 2\n';
/**
 * The temporary tables an image is restored through: this and the table's name (not the table's name alone, which
 * would hide the domain table from the transaction's unqualified statements).
 */
const IMAGE_TABLE_PREFIX = 'payorch_image_';

/** A domain table: its columns (those a row is written with), and its identity (or serial) column's sequence. */
interface Table {
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
type Positions = Record<string, number | null>;

/**
 * What the image's header says (then each table's rows, in this order, `bytes` long each, as `format` says; `sha256`:
 * the hash of all of them).
 */
interface ImageHeader {
  schema: number;
  key_check: string | null;
  sequences: Positions;
  tables: { name: string; columns: string[]; format: ImageFormat; bytes: number }[];
  sha256: string;
}

/** How a table's rows are in an image: a JSON array of rows, or what `COPY … TO STDOUT (FORMAT binary)` writes. */
type ImageFormat = 'json' | 'binary';

const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;
const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** The schema that holds the snapshot `name` (a hash: names are case-sensitive and may be longer than identifiers). */
export function snapshotSchema(name: string): string {
  return SNAPSHOT_SCHEMA_PREFIX + createHash('sha256').update(checkName(name)).digest('hex').slice(0, 32);
}

/** A snapshot's transactions run on their own: inside another, their snapshot would be that one's. */
function ownTransaction(store: PostgresStore, what: string): void {
  if (store.inTransaction()) throw new Error(`${what} runs in a transaction of its own, not inside another`);
}

const sqlState = (err: unknown) => (err as { code?: unknown } | undefined)?.code;

// ------------------------------------------------------------------------------------------------ the tables

/**
 * Tables of the server's own that a snapshot neither saves nor restores: the fault rules (a restore keeps them) and the
 * request log (a restore forgets its entries, and each account's numbering goes on: restore.ts).
 */
const NOT_DATA = ['schema_migrations', 'fault_rules', 'request_log', 'request_log_seqs'];

/**
 * The domain tables, parents before children (foreign keys), with their columns and sequences: every base table of
 * the current schema but NOT_DATA.
 */
async function domainTables(q: Handle): Promise<Table[]> {
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

const sameTables = (a: Table[], b: Table[]) =>
  JSON.stringify(a.map((t) => [t.name, t.columns])) === JSON.stringify(b.map((t) => [t.name, t.columns]));

/** The schema version and sealing-key check of what `q` sees. */
async function identity(q: Handle): Promise<{ schema: number; keyCheck: string | null }> {
  const [row] = await q.unsafe<{ schema: number | null; key_check: string | null }[]>(
    `SELECT (SELECT max(version) FROM schema_migrations) AS schema,
            (SELECT value FROM meta WHERE key = 'sealing_key_check') AS key_check`,
  );
  return { schema: row?.schema ?? 0, keyCheck: row?.key_check ?? null };
}

/** Where each table's sequence stands (sequences are not transactional: read as they are now). */
async function positions(q: Handle, tables: Table[]): Promise<Positions> {
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

// ------------------------------------------------------------------------------------------------ checks

/**
 * `found` checked as every engine's snapshot is (store/snapshot-rules.ts): not of a newer schema, sealed with this key;
 * a string is what is wrong with it. Answers its schema version.
 */
function check(found: Inspected | string, keyCheck: string, label: string): number {
  if (typeof found === 'string') throw unrestorable(label, found);
  return checkRestorable(found, SNAPSHOT_SCHEMA, keyCheck, label);
}

// ------------------------------------------------------------------------------------------------ named snapshots

/**
 * Saves what is committed now as snapshot `name`, replacing one of that name (atomically: a restore of it finds the
 * old one or the new one). Writers go on meanwhile.
 */
export async function saveSnapshot(store: PostgresStore, name: string): Promise<SnapshotInfo> {
  const schema = snapshotSchema(name);
  ownTransaction(store, 'A snapshot save');
  await store.grouped(async () => {
    const q = store.current();
    // Saves of one name, one at a time (the key: the schema's name, hashed by PostgreSQL).
    await q.unsafe(`SELECT pg_advisory_xact_lock(hashtextextended(${literal(schema)}, 0))`);
    await q.unsafe(`DROP SCHEMA IF EXISTS ${ident(schema)} CASCADE`);
    await q.unsafe(`CREATE SCHEMA ${ident(schema)}`);
    const tables = await domainTables(q);
    for (const t of tables)
      await q.unsafe(
        `CREATE TABLE ${ident(schema)}.${ident(t.name)} AS SELECT ${t.columns.map(ident).join(', ')} FROM ${ident(t.name)}`,
      );
    const { schema: version, keyCheck } = await identity(q);
    await q.unsafe(
      `CREATE TABLE ${ident(schema)}.${INFO} (name text NOT NULL, created_ms bigint NOT NULL, schema_version bigint NOT NULL, key_check text, sequences text NOT NULL)`,
    );
    await q.unsafe(`INSERT INTO ${ident(schema)}.${INFO} VALUES ($1, $2, $3, $4, $5)`, [
      name,
      Date.now(),
      version,
      keyCheck,
      JSON.stringify(await positions(q, tables)),
    ]);
  });
  return snapshotInfo(store, name);
}

/** Snapshot `name`'s info; SnapshotError('snapshot_missing') when there is none. */
export async function snapshotInfo(store: PostgresStore, name: string): Promise<SnapshotInfo> {
  checkName(name);
  const all = await listSnapshots(store);
  const found = all.find((s) => s.name === name);
  if (!found) throw missingSnapshot(name, all.map((s) => s.name).sort());
  return found;
}

/** The saved snapshots, by name. */
export async function listSnapshots(store: PostgresStore): Promise<SnapshotInfo[]> {
  // A snapshot dropped between the two statements (a save or delete elsewhere) is looked for again.
  for (let attempt = 1; ; attempt++) {
    try {
      const rows = await store.read(async () => {
        const q = store.current();
        const schemas = await q.unsafe<{ nspname: string }[]>(
          `SELECT n.nspname FROM pg_namespace n JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = '${INFO}'
           WHERE n.nspname LIKE '${SNAPSHOT_SCHEMA_PREFIX.replace(/_/g, '\\_')}%'`,
        );
        if (schemas.length === 0) return [];
        return q.unsafe<{ name: string; created_ms: number; schema_version: number; size: number }[]>(
          schemas
            .map(
              ({ nspname }) =>
                `SELECT name, created_ms, schema_version,
                        (SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
                         WHERE c.relnamespace = ${literal(nspname)}::regnamespace AND c.relkind = 'r') AS size
                 FROM ${ident(nspname)}.${INFO}`,
            )
            .join(' UNION ALL '),
        );
      });
      return rows
        .map((r): SnapshotInfo => ({
          object: 'snapshot',
          name: r.name,
          size: r.size,
          created_at: new Date(r.created_ms).toISOString(),
          schema_version: r.schema_version,
        }))
        .sort((a, b) => a.name.localeCompare(b.name));
    } catch (err) {
      if (attempt < 5 && (sqlState(err) === '42P01' || sqlState(err) === '3F000')) continue;
      throw err;
    }
  }
}

async function names(store: PostgresStore): Promise<string[]> {
  return (await listSnapshots(store)).map((s) => s.name).sort();
}

/** Deletes snapshot `name`, answering what it was; SnapshotError('snapshot_missing') when there is none. */
export async function deleteSnapshot(store: PostgresStore, name: string): Promise<SnapshotInfo> {
  const schema = snapshotSchema(name);
  ownTransaction(store, 'A snapshot delete');
  const info = await snapshotInfo(store, name);
  const dropped = await store.grouped(async () => {
    const q = store.current();
    await q.unsafe(`SELECT pg_advisory_xact_lock(hashtextextended(${literal(schema)}, 0))`);
    const [row] = await q.unsafe<{ n: string | null }[]>(`SELECT to_regnamespace(${literal(schema)})::text AS n`);
    if (!row?.n) return false;
    await q.unsafe(`DROP SCHEMA ${ident(schema)} CASCADE`);
    return true;
  });
  if (!dropped) throw missingSnapshot(name, await names(store));
  return info;
}

/**
 * Puts the database back to snapshot `name`, in one transaction (see the top of this file). `keyCheck` is the
 * sealing-key check of the key this process seals with: a snapshot whose `meta` carries another is refused, as is
 * one of another schema version (SnapshotError 'invalid_snapshot'); an unknown name is 'snapshot_missing'. Nothing
 * changes when it throws.
 */
export async function restoreSnapshot(store: PostgresStore, name: string, keyCheck: string): Promise<void> {
  const schema = snapshotSchema(name);
  ownTransaction(store, 'A snapshot restore');
  const label = JSON.stringify(name);
  try {
    await restoring(
      store,
      async (q, tables) => {
        const [info] = await q.unsafe<
          { name: string; schema_version: number; key_check: string | null; sequences: string }[]
        >(`SELECT name, schema_version, key_check, sequences FROM ${ident(schema)}.${INFO}`);
        if (info?.name !== name) throw missingSnapshot(name, []);
        const version = check({ schema: info.schema_version, keyCheck: info.key_check ?? undefined }, keyCheck, label);
        const saved = new Set(
          (
            await q.unsafe<{ relname: string }[]>(
              `SELECT relname FROM pg_class WHERE relnamespace = ${literal(schema)}::regnamespace AND relkind = 'r'`,
            )
          ).map((r) => r.relname),
        );
        if (version === SNAPSHOT_SCHEMA) await converge(q, (t) => `${ident(schema)}.${ident(t.name)}`, tables, saved);
        else {
          await emptyAll(q, tables);
          await migrated(q, version, tables, (into, to) =>
            copyTables(
              q,
              schema,
              into,
              to.filter((t) => saved.has(t.name)),
            ),
          );
        }
        return JSON.parse(info.sequences) as Positions;
      },
      `LOCK TABLE ${ident(schema)}.${INFO} IN SHARE MODE`,
    );
  } catch (err) {
    // The snapshot's schema is not there (42P01: its _snapshot table; 3F000: the schema).
    if (sqlState(err) === '42P01' || sqlState(err) === '3F000') throw missingSnapshot(name, await names(store));
    if (err instanceof SnapshotError && err.code === 'snapshot_missing')
      throw missingSnapshot(name, await names(store));
    throw err;
  }
}

/**
 * The restore's transaction: `lockFirst` (a LOCK statement, if any), every domain table locked, emptied, filled by
 * `fill` (which answers where the sequences stood), the sequences restarted.
 */
async function restoring(
  store: PostgresStore,
  fill: (q: Handle, tables: Table[]) => Promise<Positions>,
  lockFirst?: string,
): Promise<void> {
  // The tables are listed before the transaction: inside it, the first query would take its snapshot before the locks.
  const { listed, lz4 } = await store.read(async () => {
    const q = store.current();
    const [row] = await q.unsafe<{ lz4: boolean }[]>(
      `SELECT 'lz4' = ANY(enumvals) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'`,
    );
    return { listed: await domainTables(q), lz4: row?.lz4 === true };
  });
  const byName = [...listed].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const serial = listed.find((t) => t.name === SERIAL_TABLE)?.name;
  // EXCLUSIVE: no other transaction writes a domain table (or locks its rows) until the restore commits; reads go on,
  // and see the data as it was (the restore deletes rows, it does not truncate tables).
  const lockAll = `LOCK TABLE ${byName.map((t) => ident(t.name)).join(', ')} IN EXCLUSIVE MODE`;
  let vacuumed = false;
  for (let attempt = 1; ; attempt++) {
    // Autovacuum works on the tables: PostgreSQL cancels it for a transaction that has waited deadlock_timeout (1 s
    // by default) for a table it holds — which a restore that lets go after 100 ms would never do.
    const patient = attempt > LOCK_ATTEMPTS || vacuumed;
    try {
      await store.grouped(async () => {
        const q = store.current();
        if (!patient) await q.unsafe(`SET LOCAL lock_timeout = '${LOCK_WAIT_MS}ms'`);
        // Rows written from an image are compressed again (those copied from a named snapshot keep theirs): LZ4,
        // where the server has it, takes half the time of the default (measured: COPY of 10k payments of ~2 KB,
        // 340 → 170 ms).
        if (lz4) await q.unsafe(`SET LOCAL default_toast_compression = 'lz4'`);
        if (lockFirst) await q.unsafe(lockFirst);
        // Every write transaction of every process takes this table (ROW SHARE, or more) as its first statement,
        // before its snapshot: once the restore has it, those in flight have ended and new ones wait for its COMMIT.
        if (serial) await q.unsafe(`LOCK TABLE ${ident(serial)} IN EXCLUSIVE MODE`);
        await q.unsafe(lockAll);
        if (!patient) await q.unsafe('SET LOCAL lock_timeout = 0');
        await replace(q, listed, fill);
        // Every process's key cache and clocks look again (AccountsStore.changeMark): the keys and offsets changed.
        await moveChangeMark(store);
      });
      return;
    } catch (err) {
      // The locks were not all had in time: let the requests that hold them go on, and try again shortly.
      if (sqlState(err) !== '55P03' || patient) throw err;
      vacuumed = await autovacuumRuns(store);
      if (!vacuumed) await new Promise((resolve) => setTimeout(resolve, Math.random() * LOCK_WAIT_MS));
    }
  }
}

/**
 * Whether an autovacuum worker works in this database now (it goes from table to table: when the restore's lock
 * attempt has timed out, it may hold another table than the one it held then, or be about to take one).
 */
async function autovacuumRuns(store: PostgresStore): Promise<boolean> {
  const [row] = await store.read(() =>
    store.current().unsafe<{ runs: boolean }[]>(
      `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
                      WHERE backend_type = 'autovacuum worker' AND datname = current_database()) AS runs`,
    ),
  );
  return row?.runs === true;
}

/**
 * How long a restore waits for its locks before it lets go of those it has and tries again, and how many times: a
 * request that holds a table the restore has not locked yet and then asks for one it has would otherwise wait for
 * PostgreSQL's deadlock detection (deadlock_timeout, 1 s by default, which only a superuser may change). After these
 * attempts, the restore waits as long as it takes.
 */
const LOCK_WAIT_MS = 100;
/** The table every write transaction locks first (db.ts, `serialTable`). */
const SERIAL_TABLE = 'serial_work';
const LOCK_ATTEMPTS = 20;

/** The domain tables (locked) filled by `fill` (which empties them first, or makes them equal), sequences restarted. */
async function replace(
  q: Handle,
  listed: Table[],
  fill: (q: Handle, tables: Table[]) => Promise<Positions>,
): Promise<void> {
  const tables = await domainTables(q);
  if (!sameTables(tables, listed)) throw new Error('The database schema changed during the restore: try again.');
  const stood = await fill(q, tables);
  for (const t of tables) {
    if (!t.sequence) continue;
    const [row] = await q.unsafe<{ top: number | null }[]>(
      `SELECT max(${ident(t.sequence.column)}) AS top FROM ${ident(t.name)}`,
    );
    const last = Math.max(stood[t.name] ?? 0, row?.top ?? 0);
    await q.unsafe(`ALTER SEQUENCE ${t.sequence.name} RESTART${last > 0 ? ` WITH ${last + 1}` : ''}`);
  }
}

/** Every row of `tables` deleted (children before parents: foreign keys). */
async function emptyAll(q: Handle, tables: Table[]): Promise<void> {
  for (const t of [...tables].reverse()) await q.unsafe(`DELETE FROM ${ident(t.name)}`);
}

/**
 * The domain tables (`tables`, locked) made equal to the copies (`source`: a qualified table name) of those in
 * `saved` (the others emptied), touching only the rows that differ: a row whose primary key and every column are the
 * same in both stays as it is (a column of a type whose equality is not sameness is compared as text); the others are
 * deleted, and the snapshot's rows whose key is then missing inserted. A restore after a test that changed a few rows
 * writes those rows, not the whole database (measured in bench/README.md).
 *
 * Rows are deleted, never truncated, and rows that stay are not written: a transaction whose snapshot was taken before
 * the restore committed sees every row as it was, those the restore deleted included (MVCC), and one that begins after
 * it sees the snapshot's. A table with no primary key, or that a foreign key names or that names another, is emptied
 * and copied whole (parents copied before children), so that no row is deleted while another still refers to it.
 */
async function converge(q: Handle, source: (t: Table) => string, tables: Table[], saved: Set<string>): Promise<void> {
  const whole = (t: Table) => !saved.has(t.name) || t.related || t.key.length === 0;
  // The comparison hashes the snapshot's rows (all columns): in memory, not in batches on disk, at 10k objects.
  await q.unsafe(`SET LOCAL work_mem = '${CONVERGE_WORK_MEM}'`);
  for (const t of [...tables].reverse()) {
    if (whole(t)) {
      await q.unsafe(`DELETE FROM ${ident(t.name)}`);
      continue;
    }
    const same = t.columns
      .flatMap((c) => {
        const [a, b] = [`s.${ident(c)}`, `l.${ident(c)}`];
        const text = `${a}::text IS NOT DISTINCT FROM ${b}::text`;
        if (t.key.includes(c)) return t.inexact.includes(c) ? [`${a} = ${b}`, text] : [`${a} = ${b}`];
        return [t.inexact.includes(c) ? text : `${a} IS NOT DISTINCT FROM ${b}`];
      })
      .join(' AND ');
    await q.unsafe(`DELETE FROM ${ident(t.name)} l WHERE NOT EXISTS (SELECT 1 FROM ${source(t)} s WHERE ${same})`);
  }
  for (const t of tables) {
    if (!saved.has(t.name)) continue;
    const cols = t.columns.map(ident).join(', ');
    const missing = whole(t)
      ? ''
      : ` WHERE NOT EXISTS (SELECT 1 FROM ${ident(t.name)} l WHERE ${t.key.map((k) => `l.${ident(k)} = s.${ident(k)}`).join(' AND ')})`;
    await q.unsafe(
      `INSERT INTO ${ident(t.name)} (${cols}) OVERRIDING SYSTEM VALUE SELECT ${t.columns.map((c) => `s.${ident(c)}`).join(', ')} FROM ${source(t)} s${missing}`,
    );
  }
}

/** The memory a restore's comparison of a table with its snapshot may use (PostgreSQL's default is 4MB). */
const CONVERGE_WORK_MEM = '64MB';

/**
 * Copies the rows of `tables` from the schema `from` into the same tables of the schema `into` (null: the current
 * one), with the columns `tables` lists.
 */
async function copyTables(q: Handle, from: string, into: string | null, tables: Table[]): Promise<void> {
  for (const t of tables) {
    const cols = t.columns.map(ident).join(', ');
    const target = into === null ? ident(t.name) : `${ident(into)}.${ident(t.name)}`;
    await q.unsafe(
      `INSERT INTO ${target} (${cols}) OVERRIDING SYSTEM VALUE SELECT ${cols} FROM ${ident(from)}.${ident(t.name)}`,
    );
  }
}

/**
 * A snapshot of an older schema (`version`), migrated as SQLite's are: a schema of the restore's own is made at that
 * version (the migrations up to it), `load` fills its tables with the snapshot's rows, the later migrations run on
 * them, and the result is copied into the domain tables (`live`, emptied). All in the restore's transaction: a
 * migration that fails changes nothing.
 */
async function migrated(
  q: Handle,
  version: number,
  live: Table[],
  load: (into: string, tables: Table[]) => Promise<void>,
): Promise<void> {
  const staging = `payorch_restore_${randomBytes(8).toString('hex')}`;
  const [{ path } = { path: '' }] = await q.unsafe<{ path: string }[]>(`SELECT current_setting('search_path') AS path`);
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  await q.unsafe(`CREATE SCHEMA ${ident(staging)}`);
  await q.unsafe(`SELECT set_config('search_path', ${literal(ident(staging))}, true)`);
  for (const m of ordered.filter((x) => x.version <= version)) await q.unsafe(migrationSql(m, 'postgres'));
  const old = await domainTables(q);
  // What the migrations wrote (count specs): the snapshot has its own.
  for (const t of [...old].reverse()) await q.unsafe(`DELETE FROM ${ident(t.name)}`);
  await load(staging, old);
  for (const m of ordered.filter((x) => x.version > version)) await q.unsafe(migrationSql(m, 'postgres'));
  await q.unsafe(`SELECT set_config('search_path', ${literal(path)}, true)`);
  await copyTables(q, staging, null, live);
  await q.unsafe(`DROP SCHEMA ${ident(staging)} CASCADE`);
}

// ------------------------------------------------------------------------------------------------ images

/**
 * What is committed now, as bytes a restoreImage puts back (an unnamed snapshot): a header (schema version, sealing
 * key check, sequences, tables and their columns, the body's SHA-256), then each table's rows — a table of less than
 * SMALL_TABLE bytes as a JSON array (`json`), a bigger one as `COPY … TO STDOUT (FORMAT binary)` writes it (`binary`):
 * COPY is PostgreSQL's fastest way out and in, but each COPY into a table costs a restore a wait (copyIn), which a
 * table of a few rows is not worth. It holds the database only: secrets stay sealed as they are in it.
 */
export async function image(store: PostgresStore): Promise<Buffer> {
  ownTransaction(store, 'A snapshot image');
  return store.read(async () => {
    const q = store.current();
    const tables = await domainTables(q);
    const { schema, keyCheck } = await identity(q);
    const sequences = await positions(q, tables);
    const sizes = new Map(
      (
        await q.unsafe<{ name: string; size: number }[]>(
          `SELECT relname AS name, pg_table_size(oid) AS size FROM pg_class
           WHERE relnamespace = current_schema()::regnamespace AND relkind = 'r'`,
        )
      ).map((r) => [r.name, r.size]),
    );
    const parts: Buffer[] = [];
    const digest = createHash('sha256');
    const header: ImageHeader = { schema, key_check: keyCheck, sequences, tables: [], sha256: '' };
    // The small tables' JSON asked for at once (the driver sends the statements together), then the COPYs in turn.
    const small = tables.map((t) =>
      (sizes.get(t.name) ?? 0) < SMALL_TABLE
        ? q
            .unsafe<{ rows: string }[]>(
              // `x.*`: the whole row, even in a table that has a column named x (`json_agg(x)` would aggregate it).
              `SELECT COALESCE(json_agg(x.*), '[]')::text AS rows FROM (SELECT ${t.columns.map(ident).join(', ')} FROM ${ident(t.name)}) x`,
            )
            .then(([row]) => Buffer.from(row?.rows ?? '[]'))
        : undefined,
    );
    await Promise.all(small.filter((p) => p !== undefined));
    for (const [i, t] of tables.entries()) {
      const json = small[i];
      const rows = json
        ? [await json]
        : await copyOut(q, `COPY ${ident(t.name)} (${t.columns.map(ident).join(', ')}) TO STDOUT (FORMAT binary)`);
      let bytes = 0;
      for (const chunk of rows) {
        digest.update(chunk);
        bytes += chunk.length;
      }
      parts.push(...rows);
      header.tables.push({ name: t.name, columns: t.columns, format: json ? 'json' : 'binary', bytes });
    }
    header.sha256 = digest.digest('hex');
    return Buffer.concat([Buffer.from(IMAGE_MAGIC + JSON.stringify(header) + '\n'), ...parts]);
  });
}

/** Below this size (`pg_table_size`), a table's rows are in an image as JSON; from it, as COPY's binary format. */
const SMALL_TABLE = 256 * 1024;

/**
 * The rows `statement` (`COPY … TO STDOUT`) writes, as the driver's chunks.
 *
 * postgres.js 3.4 pauses the connection's socket when the stream's buffer is full, and resumes it when the stream is
 * read; when the end of the COPY arrives in the same network read as rows that filled the buffer (a table of a few
 * dozen KB, read before the stream is), the stream ends with the socket paused, and every later statement on the
 * connection waits for ever. So once the stream has ended, the socket is resumed (the stream's own read hook: what a
 * read of it would have done).
 */
async function copyOut(q: Handle, statement: string): Promise<Buffer[]> {
  const stream = await q.unsafe(statement).readable();
  const chunks: Buffer[] = [];
  try {
    // Read as it comes ('data': a row a chunk, ~100k at 10k objects: an async iterator's cost per chunk would show).
    await new Promise<void>((resolve, reject) => {
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.once('end', resolve);
      stream.once('error', reject);
      stream.once('close', () => reject(new Error('The COPY of an image ended before its rows did.')));
    });
  } finally {
    // Also when PostgreSQL ended the COPY with an error (the transaction's ROLLBACK must be answered); not when the
    // connection is gone (the driver has no socket to resume then).
    try {
      (stream as unknown as { _read(size: number): void })._read(0);
    } catch {
      // the connection is gone
    }
  }
  return chunks;
}

/**
 * `data` written through `statement` (`COPY … FROM STDIN`), in the caller's transaction.
 *
 * postgres.js 3.4's COPY stream tells its end (`finish`) when PostgreSQL says the COPY is complete, and nothing at all
 * when PostgreSQL refuses the rows after the last was sent, or the connection is lost then: waiting for `finish` could
 * wait for ever. So once every row is sent and the stream ended (the driver has sent the end of the COPY), a
 * statement follows on the same connection: it answers once the COPY is complete, or fails (the transaction aborted,
 * or the connection lost) — it cannot wait for ever.
 */
async function copyIn(q: Handle, statement: string, data: Buffer): Promise<void> {
  const stream = await q.unsafe(statement).writable();
  let failed: unknown;
  const refused = new Promise<never>((_, reject) =>
    stream.once('error', (err) => {
      failed ??= err;
      reject(err);
    }),
  );
  refused.catch(() => {});
  for (let at = 0; at < data.length; at += COPY_CHUNK) {
    const chunk = data.subarray(at, at + COPY_CHUNK);
    await Promise.race([
      refused,
      new Promise<void>((resolve, reject) => stream.write(chunk, (err) => (err ? reject(err) : resolve()))),
    ]);
  }
  // Nothing is left to write: the stream ends now, the driver sending the end of the COPY before the next statement.
  stream.end();
  try {
    await q.unsafe(AFTER_COPY);
  } catch (err) {
    // Refused after its last row was sent: the driver dropped PostgreSQL's reason; the transaction is aborted.
    throw failed ?? (sqlState(err) === '25P02' ? new CopyRefused() : err);
  }
  if (failed !== undefined) throw failed;
}

/** PostgreSQL refused a COPY's rows once they were all sent (its reason is not known: copyIn). */
class CopyRefused extends Error {
  constructor() {
    super('PostgreSQL refused them');
  }
}

/** Whether `err` is PostgreSQL refusing a COPY's rows (rather than the connection or the server failing). */
const refusedRows = (err: unknown) =>
  err instanceof CopyRefused || String(sqlState(err)).startsWith('22') || sqlState(err) === '23502';

/** How much of an image a message of a COPY carries. */
const COPY_CHUNK = 1 << 20;

/**
 * The statement that follows a COPY's rows (copyIn): `SELECT 1` and 64 KB of comment. The driver leaves Nagle's
 * algorithm on (no TCP_NODELAY), and PostgreSQL answers nothing to rows: the end of the COPY, a few bytes, would wait
 * in the kernel for PostgreSQL's delayed acknowledgment of the last rows (40 ms on Linux), at each table. Bytes of a
 * full segment or more behind it are sent at once, and it with them (measured: 5 tables' COPYs 300–410 ms → 270–320).
 */
const AFTER_COPY = `SELECT 1 /* ${'-'.repeat(64 * 1024)} */`;

/** An image's header, or what is wrong with it (not an image of this engine, cut short). */
function readImage(buf: Buffer): { header: ImageHeader; start: number } | string {
  if (buf.length < IMAGE_MAGIC.length || buf.toString('latin1', 0, IMAGE_MAGIC.length) !== IMAGE_MAGIC)
    return 'it is not a payorch PostgreSQL image';
  const end = buf.indexOf(10, IMAGE_MAGIC.length);
  let header: ImageHeader;
  try {
    if (end < 0) throw new Error('no header');
    header = JSON.parse(buf.toString('utf8', IMAGE_MAGIC.length, end)) as ImageHeader;
    if (
      !Array.isArray(header.tables) ||
      typeof header.schema !== 'number' ||
      typeof header.sha256 !== 'string' ||
      !header.tables.every((t) => t.format === 'json' || t.format === 'binary')
    )
      throw new Error('no tables');
  } catch {
    return 'it is damaged (its header cannot be read)';
  }
  const want = header.tables.reduce((n, t) => n + t.bytes, 0);
  const have = buf.length - end - 1;
  if (have !== want) return `it is cut short (${have} of ${want} bytes)`;
  return { header, start: end + 1 };
}

/** An image's schema version and sealing-key check; throws when it is not an image (see readImage). */
export function inspectImage(buf: Buffer): Inspected {
  const read = readImage(buf);
  if (typeof read === 'string') throw new SnapshotError('invalid_snapshot', read);
  return { schema: read.header.schema, keyCheck: read.header.key_check ?? undefined };
}

/**
 * Puts the database back to `image` (made by `image`), in one transaction, as restoreSnapshot does. Refused
 * (SnapshotError 'invalid_snapshot', nothing changed) when it is not an image, is cut short or damaged, was taken of
 * another sealing key than `keyCheck`'s, or of another schema version.
 */
export async function restoreImage(store: PostgresStore, buf: Buffer, keyCheck: string): Promise<void> {
  ownTransaction(store, 'A snapshot restore');
  const read = readImage(buf);
  const label = 'in memory';
  if (typeof read === 'string') check(read, keyCheck, label);
  const { header, start } = read as { header: ImageHeader; start: number };
  check({ schema: header.schema, keyCheck: header.key_check ?? undefined }, keyCheck, label);
  // Its rows must be what it was made with, byte for byte: hashed off the main thread while the restore takes its
  // locks and loads them; a damaged image is refused before the domain tables are touched (and not met as a COPY's
  // failure).
  const body = buf.subarray(start);
  const hashed = webcrypto.subtle
    .digest('SHA-256', new Uint8Array(body.buffer, body.byteOffset, body.length))
    .then((d) => Buffer.from(d).toString('hex') === header.sha256);
  hashed.catch(() => {});
  const sound = async () => {
    if (!(await hashed)) check('it is damaged (its rows are not those it was made with)', keyCheck, label);
  };
  await restoring(store, async (q, tables) => {
    const copy = async (target: (t: Table) => string, to: Table[]) => {
      let at = start;
      const inserts: Promise<unknown>[] = [];
      const copies: { name: string; run: () => Promise<void> }[] = [];
      // A failure: the image's hash is checked first (a damaged image is said so); rows PostgreSQL refuses in an
      // image that is not damaged are not rows of this schema's table: not an image this build made.
      const refused = async (name: string, err: unknown): Promise<never> => {
        await sound();
        if (!refusedRows(err)) throw err;
        check(`PostgreSQL refused its rows of table ${name} (${(err as Error).message})`, keyCheck, label);
        throw err;
      };
      for (const s of header.tables) {
        const rows = buf.subarray(at, at + s.bytes);
        at += s.bytes;
        const t = to.find((x) => x.name === s.name);
        if (!t || JSON.stringify(s.columns) !== JSON.stringify(t.columns))
          throw unrestorable(label, `its table ${s.name} is not one of schema ${header.schema}'s`);
        const cols = s.columns.map(ident).join(', ');
        if (s.format === 'binary')
          copies.push({
            name: s.name,
            run: () => copyIn(q, `COPY ${target(t)} (${cols}) FROM STDIN (FORMAT binary)`, rows),
          });
        else if (s.bytes > 2)
          // Sent together: the driver writes them at once, PostgreSQL answers each in turn.
          inserts.push(
            q
              .unsafe(
                `INSERT INTO ${target(t)} (${cols}) OVERRIDING SYSTEM VALUE SELECT ${cols} FROM json_populate_recordset(null::${target(t)}, $1::text::json)`,
                [rows.toString('utf8')],
              )
              .catch((err: unknown) => refused(s.name, err)),
          );
      }
      await Promise.all(inserts);
      for (const c of copies) await c.run().catch((err: unknown) => refused(c.name, err));
    };
    if (header.schema === SNAPSHOT_SCHEMA) {
      // The image's rows go to temporary tables (no index, no WAL; dropped at the transaction's end), which the
      // domain tables are then made equal to as to a named snapshot: only the rows that differ are written.
      const staged = (t: Table) => `pg_temp.${ident(IMAGE_TABLE_PREFIX + t.name)}`;
      // A table the image has no row of is emptied (converge), with no temporary table to compare it with.
      const inImage = new Set(header.tables.filter((t) => !(t.format === 'json' && t.bytes <= 2)).map((t) => t.name));
      // Sent together: the driver writes them at once, PostgreSQL answers each in turn.
      await Promise.all(
        tables
          .filter((x) => inImage.has(x.name))
          .map((t) => q.unsafe(`CREATE TEMPORARY TABLE ${staged(t)} (LIKE ${ident(t.name)}) ON COMMIT DROP`)),
      );
      await copy(staged, tables);
      await sound();
      await converge(q, staged, tables, inImage);
    } else {
      await emptyAll(q, tables);
      await migrated(q, header.schema, tables, async (into, to) => {
        await copy((t) => `${ident(into)}.${ident(t.name)}`, to);
        await sound();
      });
    }
    return header.sequences;
  });
}
