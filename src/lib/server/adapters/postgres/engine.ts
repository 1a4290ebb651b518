// The PostgreSQL engine: one database shared by any number of server processes. What it gives the server beside the
// domain's ports (adapters/engine.ts): the database opened (migrated first, once, whichever process comes first), the
// accounts, the idempotency records and the server's own records on it. There is no file and no background thread:
// PostgreSQL does its own checkpoints, and snapshots live in the database (adapters/postgres/snapshots.ts).
import postgres from 'postgres';
import type { OpenEngine } from '../engine.js';
import type { Store } from '../../store/seam.js';
import { Accounts } from '../../domain/accounts.js';
import {
  describeUrl,
  openPostgresDatabase,
  unavailable,
  type PostgresDatabase,
  type PostgresDatabaseOptions,
} from './db.js';
import { migratePostgres, type MigrateResult } from './migrate.js';
import { databaseUrlProblem } from '../../database-url.js';
import { postgresPorts } from './ports.js';
import { pgAccountsStore } from './core.js';
import { pgIdempotencyRecords } from './idempotency.js';
import { pgServerRecords } from './records.js';

/**
 * The engine over `raw`, the PostgreSQL store the ports' queries run on (`raw.current()`). The store the server runs
 * transactions with may wrap it (a seeded server's, serialized: store/scoped.ts): the ports are built on `raw`
 * whatever store they are asked for.
 */
export function postgresEngine(raw: PostgresDatabase): OpenEngine<Store> {
  return {
    ports: () => postgresPorts(raw),
    accounts: (store, now) => new Accounts(store, pgAccountsStore(raw), now),
    idempotency: () => pgIdempotencyRecords(raw),
    records: () => pgServerRecords(raw),
    background: () => ({ started: Promise.resolve(), stop: async () => {} }),
  };
}

/** A database that could not be opened: the message names its host and database, never the password. */
export class DatabaseError extends Error {
  constructor(
    message: string,
    /** The database could not be reached (rather than refusing or failing what was asked of it). */
    readonly unreachable = false,
  ) {
    super(message);
    this.name = 'DatabaseError';
  }
}

/** The message of `err` with the URL's password (raw and decoded) left out. */
function scrubbed(url: string, err: unknown): string {
  let text = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && !text.includes(code)) text = `${text} (${code})`;
  try {
    const password = new URL(url).password;
    for (const s of [password, decodeURIComponent(password)]) if (s) text = text.split(s).join('***');
  } catch {
    // an unreadable URL: nothing of it is in the message but what the driver says
  }
  return text;
}

/** Checks that `url` is a PostgreSQL URL (postgres:// or postgresql://), naming what is wrong but not the password. */
export function checkDatabaseUrl(url: string): void {
  const problem = databaseUrlProblem(url);
  if (problem?.kind === 'not_a_url')
    throw new DatabaseError('The database URL is not a URL: give postgres://user:password@host:port/database.');
  if (problem?.kind === 'not_postgres')
    throw new DatabaseError(
      `The database URL must start with postgres:// or postgresql:// (got ${problem.protocol}//): only PostgreSQL is supported.`,
    );
  if (problem?.kind === 'no_database')
    throw new DatabaseError(`The database URL ${describeUrl(url)} names no database: add /DATABASE after the host.`);
}

/**
 * Applies the schema migrations the database at `url` does not have yet (any number of processes may do this at
 * once: each version is applied once). A failure to connect names the host and database, never the password.
 */
export async function migrateDatabase(url: string): Promise<MigrateResult> {
  checkDatabaseUrl(url);
  const sql = postgres(url, { max: 1, connect_timeout: 5, onnotice: () => {} });
  try {
    return await migratePostgres(sql);
  } catch (err) {
    const where = describeUrl(url);
    if (unavailable(err))
      throw new DatabaseError(`Could not connect to PostgreSQL at ${where}: ${scrubbed(url, err)}`, true);
    throw new DatabaseError(`Migrating the database at ${where} failed: ${scrubbed(url, err)}`);
  } finally {
    await sql.end({ timeout: 5 }).catch(() => {});
  }
}

/** The store over the database at `url`, migrated to this build's schema first. */
export async function openDatabase(url: string, options: PostgresDatabaseOptions = {}): Promise<PostgresDatabase> {
  await migrateDatabase(url);
  return openPostgresDatabase(url, { serialTable: 'serial_work', ...options });
}

/** The advisory lock a seeded server holds on its database for as long as it runs ('seed' in ASCII). */
const SEEDED_LOCK = 0x73656564;

/**
 * Takes the database's seeded-server lock (a session-level advisory lock, on a connection of its own kept for as long
 * as the server runs: PostgreSQL lets it go when the process stops or dies); undefined when another process holds it.
 * A seeded server draws one stream of ids in turn, in its own memory: a second process drawing from the same stream
 * would hand out the same ids. The function answered lets the lock go.
 */
export async function holdSeededLock(url: string): Promise<(() => Promise<void>) | undefined> {
  // One connection that is never recycled (postgres.js otherwise ends a connection after 30–60 minutes).
  const sql = postgres(url, { max: 1, max_lifetime: 0, idle_timeout: 0, connect_timeout: 5, onnotice: () => {} });
  try {
    const conn = await sql.reserve();
    const [row] = await conn<{ held: boolean }[]>`SELECT pg_try_advisory_lock(${SEEDED_LOCK}) AS held`;
    if (row?.held) {
      return async () => {
        conn.release();
        await sql.end({ timeout: 5 }).catch(() => {});
      };
    }
    conn.release();
  } catch (err) {
    await sql.end({ timeout: 5 }).catch(() => {});
    throw unavailable(err) ? new DatabaseError(`The database ${describeUrl(url)} could not be reached.`, true) : err;
  }
  await sql.end({ timeout: 5 }).catch(() => {});
  return undefined;
}
