/**
 * One schema version: its number, a name for the log, and the SQL that takes the schema there from the one before.
 *
 * `sql` is SQLite's text. `postgres` is PostgreSQL's, where the dialects differ (types, `WITHOUT ROWID`, table
 * rebuilds, JSON functions, triggers); absent, `sql` serves both engines. Both forms must give the same tables,
 * columns and indexes (test/store/migrations-dialects.test.ts).
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  postgres?: string;
}

/** The text a migration runs on an engine. */
export const migrationSql = (m: Migration, engine: 'sqlite' | 'postgres'): string =>
  engine === 'postgres' ? (m.postgres ?? m.sql) : m.sql;
