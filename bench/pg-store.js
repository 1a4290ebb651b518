#!/usr/bin/env node
// `node bench/pg-store.js postgres://user@127.0.0.1:PORT/db [statements]`: what a request's transaction costs the
// server process through the PostgreSQL store (adapters/postgres/db.ts) beside SQLite's (adapters/sqlite/db.ts). One
// "request" runs `statements` (default 11, create-session's count; 19 a journal entry's, 30 a confirm's) statements —
// an insert, then reads by key, updates and event rows, as bench/seam.js and bench/pg-drivers.js run them — in one
// write transaction, CONCURRENCY requests in flight, driven four ways:
//   sqlite     SqliteDatabase.grouped (group commit, WAL file), each statement awaited as the domain awaits its ports;
//   driver     postgres.js alone: sql.begin (READ COMMITTED), each statement awaited on the transaction's handle;
//   store-ser  PostgresDatabase.grouped with SERIALIZABLE writes, each statement run on store.current()
//              (AsyncLocalStorage); serialization failures run again (up to 100 times here), counted;
//   store-rr   the store as it is (REPEATABLE READ writes: conflicts on the same rows only);
//   store-rc   the same store code with the driver's default isolation: what SERIALIZABLE itself costs.
// Rounds alternate the ways; each figure is the median CPU µs per request of this process (process.cpuUsage: what a
// payorch server process pays; PostgreSQL's own CPU is apart) and requests per second. Run `npm run build` first.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { measure, median, SQL } from './pg-shape.js';
import { openPostgresDatabase } from '../dist/lib/server/adapters/postgres/db.js';
import { openSqliteDatabase } from '../dist/lib/server/adapters/sqlite/db.js';

const url = process.argv[2];
if (!url) {
  process.stderr.write('usage: node bench/pg-store.js postgres://user@host:port/db [statements]\n');
  process.exit(2);
}
const STATEMENTS = Number(process.argv[3] ?? 11);
const CONCURRENCY = Number(process.env.PG_CONCURRENCY ?? 16);
const REQUESTS = Number(process.env.PG_REQUESTS ?? 1500);
const ROUNDS = Number(process.env.PG_ROUNDS ?? 5);

// SQLite's forms: `?` for `$n`.
const LITE = Object.fromEntries(Object.entries(SQL).map(([k, s]) => [k, s.replace(/\$\d+/g, '?')]));
const TABLES = `CREATE TABLE bench_objects (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, status TEXT NOT NULL,
    amount BIGINT NOT NULL, doc TEXT NOT NULL);
  CREATE TABLE bench_events (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, account_id TEXT NOT NULL,
    type TEXT NOT NULL, object_id TEXT NOT NULL, doc TEXT NOT NULL);`;

const admin = postgres(url, { max: 1, onnotice: () => {} });
await admin.unsafe(`DROP TABLE IF EXISTS bench_objects, bench_events; ${TABLES}`);
const sql = postgres(url, { max: CONCURRENCY, onnotice: () => {} });
const store = openPostgresDatabase(url, { max: CONCURRENCY, attempts: 100, isolation: 'serializable' });
const tmp = mkdtempSync(join(tmpdir(), 'payorch-pg-store-'));
const lite = openSqliteDatabase(join(tmp, 'bench.db'));
lite.db.exec(
  TABLES.replace('BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY', 'INTEGER PRIMARY KEY AUTOINCREMENT').replace(
    /BIGINT/g,
    'INTEGER',
  ),
);

/** A store whose writes run at the driver's default isolation (READ COMMITTED): the same code otherwise. */
const storeRc = openPostgresDatabase(url, { max: CONCURRENCY, attempts: 100 });
// Transactions run again after a serialization failure, per request (SERIALIZABLE's false conflicts included).
const storeRr = openPostgresDatabase(url, { max: CONCURRENCY, attempts: 100 });
const reruns = { 'store-ser': 0, 'store-rr': 0, 'store-rc': 0 };
storeRr.onRollback(() => reruns['store-rr']++);
store.onRollback(() => reruns['store-ser']++);
storeRc.onRollback(() => reruns['store-rc']++);
const rcBegin = (s) => {
  // The store's transactions go through the pool's begin(options, fn): drop the options for this one.
  const open = s.current();
  const begin = open.begin.bind(open);
  open.begin = (_options, fn) => begin(fn);
};
rcBegin(storeRc);

const ways = {
  async sqlite(steps) {
    await lite.grouped(async () => {
      for (const [kind, args] of steps)
        await (kind === 'get' ? lite.statement(LITE[kind]).get(...args) : lite.statement(LITE[kind]).run(...args));
    });
  },
  async driver(steps) {
    await sql.begin(async (tx) => {
      for (const [kind, args] of steps) await tx.unsafe(SQL[kind], args, { prepare: true });
    });
  },
  async 'store-ser'(steps) {
    await store.grouped(async () => {
      for (const [kind, args] of steps) await store.current().unsafe(SQL[kind], args, { prepare: true });
    });
  },
  async 'store-rr'(steps) {
    await storeRr.grouped(async () => {
      for (const [kind, args] of steps) await storeRr.current().unsafe(SQL[kind], args, { prepare: true });
    });
  },
  async 'store-rc'(steps) {
    await storeRc.grouped(async () => {
      for (const [kind, args] of steps) await storeRc.current().unsafe(SQL[kind], args, { prepare: true });
    });
  },
};

async function measureOne(name) {
  const before = reruns[name] ?? 0;
  const m = await measure(ways[name], { statements: STATEMENTS, requests: REQUESTS, concurrency: CONCURRENCY });
  return { ...m, again: ((reruns[name] ?? 0) - before) / REQUESTS };
}

const names = Object.keys(ways);
for (const n of names) await measureOne(n); // warm-up
const results = Object.fromEntries(names.map((n) => [n, []]));
for (let r = 0; r < ROUNDS; r++)
  for (const n of r % 2 ? [...names].reverse() : names) results[n].push(await measureOne(n));
process.stdout.write(
  `${STATEMENTS} statements per transaction, ${CONCURRENCY} in flight, ${REQUESTS} requests × ${ROUNDS} rounds\n`,
);
for (const n of names) {
  const cpu = median(results[n].map((x) => x.cpu));
  const rps = median(results[n].map((x) => x.rps));
  const again = median(results[n].map((x) => x.again));
  process.stdout.write(
    `${n.padEnd(9)} ${cpu.toFixed(0).padStart(5)} µs CPU/request (this process)  ${rps.toFixed(0).padStart(6)} req/s  ${again.toFixed(2)} re-runs/request\n`,
  );
}
await admin.unsafe('DROP TABLE bench_objects, bench_events');
await Promise.all([admin.end(), sql.end(), store.end(), storeRr.end(), storeRc.end()]);
lite.close();
rmSync(tmp, { recursive: true, force: true });
