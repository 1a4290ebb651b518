// The engine the suite's servers run on. `PAYORCH_TEST_ENGINE=postgres npm test` runs every test server
// (startTestServer) on PostgreSQL: this file's setup (vitest's globalSetup) starts one throwaway PostgreSQL cluster for
// the run and migrates a template database; each server gets a database of its own, copied from the template, and a
// sealing key of its own (a server started again on the same data directory gets the same database and key back, as
// it would get its SQLite file). Unset (or `sqlite`), nothing starts here.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { startCluster } from './postgres.js';

export type TestEngine = 'sqlite' | 'postgres';

export const testEngine = (): TestEngine => (process.env.PAYORCH_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite');

const TEMPLATE = 'payorch_template';

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (testEngine() !== 'postgres') return undefined;
  const cluster = await startCluster();
  const base = `postgres://postgres@127.0.0.1:${cluster.port}`;
  const admin = postgres(`${base}/postgres`, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${TEMPLATE}`);
    const { migrateDatabase } = await import('../../dist/index.js');
    await migrateDatabase(`${base}/${TEMPLATE}`);
  } catch (err) {
    await admin.end({ timeout: 5 });
    cluster.destroy();
    throw err;
  }
  // The test files' processes start after this, with this environment.
  process.env.PAYORCH_TEST_POSTGRES_BASE = base;
  return async () => {
    await admin.end({ timeout: 5 });
    reportDeadlocks(cluster.log);
    cluster.destroy();
  };
}

/**
 * Each deadlock PostgreSQL broke during the run, on stderr: the server ran the aborted transaction again (no test
 * sees it), but each cost a second (deadlock_timeout) and names two places that write rows in different orders.
 */
function reportDeadlocks(log: string): void {
  let text: string;
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return;
  }
  const found = text
    .split('\n')
    .filter((l, i, all) => /ERROR: {2}deadlock detected/.test(all[i - 1] ?? '') || /^\tProcess \d+: /.test(l));
  const count = text.split('deadlock detected').length - 1;
  if (count > 0)
    process.stderr.write(`PostgreSQL broke ${count} deadlocks during the run:\n${[...new Set(found)].join('\n')}\n`);
}

let admin: postgres.Sql | undefined;
let n = 0;
/** The database and key a data directory's server uses (the same each time it starts), by data directory. */
const byDir = new Map<string, { url: string; key: string }>();

/** A fresh database (a copy of the migrated template) and sealing key, or the ones `dataDir` had. */
export async function testDatabase(dataDir: string | undefined): Promise<{ url: string; key: string }> {
  const known = dataDir === undefined ? undefined : byDir.get(dataDir);
  if (known) return known;
  const base = process.env.PAYORCH_TEST_POSTGRES_BASE;
  if (!base) throw new Error('PAYORCH_TEST_ENGINE=postgres, but no PostgreSQL was started for the run (globalSetup)');
  admin ??= postgres(`${base}/postgres`, { max: 1, idle_timeout: 2, onnotice: () => {} });
  const name = `s${process.pid}_${++n}`;
  await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
  const made = { url: `${base}/${name}`, key: randomBytes(32).toString('hex') };
  if (dataDir !== undefined) byDir.set(dataDir, made);
  return made;
}

/**
 * Whether this run's servers are on SQLite. Tests of SQLite's own machinery — rows read from its file, its statement
 * counts, its files and worker threads, the CLI's embedded default writing the same data directory — run only then
 * (`it.runIf(onSqlite)`): a PostgreSQL run has no such file, and test/postgres covers its own.
 */
export const onSqlite = testEngine() === 'sqlite';
