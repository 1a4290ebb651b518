// The converging restore on PostgreSQL: ONE write transaction that locks every domain table, makes each equal to the
// snapshot's rows touching only those that differ, and restarts the sequences. Shared by named snapshots and images.
//
// Its first statements lock (`LOCK TABLE`, which takes no snapshot) what the caller names, then `serial_work`
// (EXCLUSIVE: every write transaction of every process takes it first, so those in flight end and new ones wait for
// the restore's COMMIT), then every domain table EXCLUSIVE, in name order; only then does it take its snapshot, so it
// sees every write committed before it, and no other transaction writes a domain table until it commits (reads go on,
// and see the data as it was). Rows are deleted with DELETE, never TRUNCATE, and tables are never swapped: neither is
// MVCC-safe — a read whose snapshot is older than the restore's COMMIT would find empty tables; with DELETE it finds
// the old data, all of it. `ALTER SEQUENCE … RESTART` is transactional: a restore that fails leaves the sequences as
// they were. A snapshot of an older schema is migrated in a schema of the restore's own, then copied whole.
import { randomBytes } from 'node:crypto';
import { moveChangeMark } from './core.js';
import { migrations } from '../../store/migrations/index.js';
import { migrationSql } from '../../store/migrations/migration.js';
import { checkRestorable, unrestorable } from '../../store/snapshot-rules.js';
import type { Inspected } from '../engine.js';
import type { Handle, PostgresDatabase } from './db.js';
import {
  domainTables,
  ident,
  literal,
  type Positions,
  sameTables,
  SNAPSHOT_SCHEMA,
  sqlState,
  type Table,
} from './snapshot-tables.js';

/**
 * `found` checked as every engine's snapshot is (store/snapshot-rules.ts): not of a newer schema, sealed with this key;
 * a string is what is wrong with it. Answers its schema version.
 */
export function checkSaved(found: Inspected | string, keyCheck: string, label: string): number {
  if (typeof found === 'string') throw unrestorable(label, found);
  return checkRestorable(found, SNAPSHOT_SCHEMA, keyCheck, label);
}

/**
 * The restore's transaction: `lockFirst` (a LOCK statement, if any), every domain table locked, emptied, filled by
 * `fill` (which answers where the sequences stood), the sequences restarted.
 */
export async function restoring(
  store: PostgresDatabase,
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
        // where the server has it, takes half the time of the default (bench/README.md "Images by COPY").
        if (lz4) await q.unsafe(`SET LOCAL default_toast_compression = 'lz4'`);
        if (lockFirst) await q.unsafe(lockFirst);
        // Every write transaction of every process takes this table (ROW SHARE, or more) as its first statement,
        // before its snapshot: once the restore has it, those in flight have ended and new ones wait for its COMMIT.
        if (serial) await q.unsafe(`LOCK TABLE ${ident(serial)} IN EXCLUSIVE MODE`);
        await q.unsafe(lockAll);
        if (!patient) await q.unsafe('SET LOCAL lock_timeout = 0');
        await replace(q, listed, fill);
        // Every process's key cache and clocks look again (AccountsPort.changeMark): the keys and offsets changed.
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
async function autovacuumRuns(store: PostgresDatabase): Promise<boolean> {
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
export async function emptyAll(q: Handle, tables: Table[]): Promise<void> {
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
export async function converge(
  q: Handle,
  source: (t: Table) => string,
  tables: Table[],
  saved: Set<string>,
): Promise<void> {
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
export async function copyTables(q: Handle, from: string, into: string | null, tables: Table[]): Promise<void> {
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
export async function migrated(
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
