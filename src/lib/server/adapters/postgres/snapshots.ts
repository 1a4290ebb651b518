// Named snapshots on PostgreSQL (docs/api.md "Snapshots"). Several processes serve one database, so a named snapshot
// lives in the database itself: a schema of its own (`payorch_snapshot_<hash of the name>`) holding a copy of every
// domain table (`CREATE TABLE … AS`, from one REPEATABLE READ snapshot: writers go on) and a one-row table `_snapshot`
// that says what it is. Any process restores what another saved (snapshot-restore.ts).
import { createHash } from 'node:crypto';
import type { SnapshotInfo } from '../../../contract/snapshots.js';
import { checkName, missingSnapshot, SnapshotError } from '../../store/snapshot-rules.js';
import type { PostgresDatabase } from './db.js';
import { checkSaved, converge, copyTables, emptyAll, migrated, restoring } from './snapshot-restore.js';
import {
  domainTables,
  ident,
  identity,
  literal,
  ownTransaction,
  type Positions,
  positions,
  SNAPSHOT_SCHEMA,
  sqlState,
} from './snapshot-tables.js';

/** The schemas that hold named snapshots begin with this. */
export const SNAPSHOT_SCHEMA_PREFIX = 'payorch_snapshot_';
const INFO = '_snapshot';

/** The schema that holds the snapshot `name` (a hash: names are case-sensitive and may be longer than identifiers). */
export function snapshotSchema(name: string): string {
  return SNAPSHOT_SCHEMA_PREFIX + createHash('sha256').update(checkName(name)).digest('hex').slice(0, 32);
}

/**
 * Saves what is committed now as snapshot `name`, replacing one of that name (atomically: a restore of it finds the
 * old one or the new one). Writers go on meanwhile.
 */
export async function saveSnapshot(store: PostgresDatabase, name: string): Promise<SnapshotInfo> {
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
export async function snapshotInfo(store: PostgresDatabase, name: string): Promise<SnapshotInfo> {
  checkName(name);
  const all = await listSnapshots(store);
  const found = all.find((s) => s.name === name);
  if (!found) throw missingSnapshot(name, all.map((s) => s.name).sort());
  return found;
}

/** The saved snapshots, by name. */
export async function listSnapshots(store: PostgresDatabase): Promise<SnapshotInfo[]> {
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

async function names(store: PostgresDatabase): Promise<string[]> {
  return (await listSnapshots(store)).map((s) => s.name).sort();
}

/** Deletes snapshot `name`, answering what it was; SnapshotError('snapshot_missing') when there is none. */
export async function deleteSnapshot(store: PostgresDatabase, name: string): Promise<SnapshotInfo> {
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
 * Puts the database back to snapshot `name`, in one transaction (snapshot-restore.ts). `keyCheck` is the
 * sealing-key check of the key this process seals with: a snapshot whose `meta` carries another is refused, as is
 * one of another schema version (SnapshotError 'invalid_snapshot'); an unknown name is 'snapshot_missing'. Nothing
 * changes when it throws.
 */
export async function restoreSnapshot(store: PostgresDatabase, name: string, keyCheck: string): Promise<void> {
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
        const version = checkSaved(
          { schema: info.schema_version, keyCheck: info.key_check ?? undefined },
          keyCheck,
          label,
        );
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
