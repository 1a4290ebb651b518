// PostgreSQL: the schema migrations, applied in order, each in its own transaction, with the bookkeeping SQLite's
// store keeps (`schema_migrations`: version, name, applied_at). Any number of processes may start on one database
// at once: each transaction first takes one transaction-level advisory lock, then reads what is applied, so a
// version is applied by exactly one of them and the others see it applied.
import type { Sql, TransactionSql } from 'postgres';
import { migrations as all } from '../../store/migrations/index.js';
import { migrationSql, type Migration } from '../../store/migrations/migration.js';

/**
 * The advisory lock key (pg_advisory_xact_lock's bigint) every payorch process takes to migrate a database, the
 * same in every version of payorch: the first 8 bytes of SHA-256('payorch:migrations'), as a signed 64-bit number.
 */
export const MIGRATION_LOCK = -574_941_217_913_339_671n;

export interface MigrateResult {
  /** The versions this call applied, in order (empty when the database was up to date). */
  applied: number[];
}

const SCHEMA_MIGRATIONS =
  'CREATE TABLE IF NOT EXISTS schema_migrations (version bigint PRIMARY KEY, name text NOT NULL, applied_at text NOT NULL)';

/**
 * Applies the migrations the database does not have yet, oldest first, one transaction each. A database written by
 * a newer payorch (a version above every one this build knows) is an error, and nothing is applied.
 */
export async function migratePostgres(sql: Sql, migrations: readonly Migration[] = all): Promise<MigrateResult> {
  const known = Math.max(0, ...migrations.map((m) => m.version));
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  // Up to date (every start but the first after an upgrade): one read, no lock.
  if (await upToDate(sql, migrations)) return { applied: [] };
  const applied: number[] = [];
  for (;;) {
    const next = await sql.begin(async (tx) => {
      await lock(tx);
      const done = await appliedVersions(tx);
      const newest = Math.max(0, ...done);
      if (newest > known)
        throw new Error(
          `This database was written by a newer payorch (schema ${newest}; this build knows ${known}). Upgrade payorch or use another database.`,
        );
      const m = ordered.find((x) => !done.has(x.version));
      if (!m) return undefined;
      await tx.unsafe(migrationSql(m, 'postgres'));
      await tx`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${m.version}, ${m.name}, ${new Date().toISOString()})`;
      return m.version;
    });
    if (next === undefined) return { applied };
    applied.push(next);
  }
}

/** The lock, then the bookkeeping table (created under the lock: concurrent CREATE TABLE IF NOT EXISTS can fail). */
async function lock(tx: TransactionSql): Promise<void> {
  // DROP … IF EXISTS of what is not there is a NOTICE: not worth a line in the server's log.
  await tx.unsafe('SET LOCAL client_min_messages = warning');
  await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK.toString()}::bigint)`;
  await tx.unsafe(SCHEMA_MIGRATIONS);
}

async function appliedVersions(tx: TransactionSql | Sql): Promise<Set<number>> {
  const rows = await tx<{ version: string }[]>`SELECT version::text AS version FROM schema_migrations`;
  return new Set(rows.map((r) => Number(r.version)));
}

/** Every known migration is applied, and no other (a newer payorch's is an error, raised under the lock). */
async function upToDate(sql: Sql, migrations: readonly Migration[]): Promise<boolean> {
  const exists = await sql<{ t: string | null }[]>`SELECT to_regclass('schema_migrations')::text AS t`;
  if (!exists[0]?.t) return false;
  const done = await appliedVersions(sql);
  return done.size === migrations.length && migrations.every((m) => done.has(m.version));
}
