#!/usr/bin/env node
// `node bench/pg-drivers.js postgres://user@127.0.0.1:PORT/db`: which Node driver for PostgreSQL costs a payorch
// server process least. Two maintained pure-JavaScript drivers: `pg` (node-postgres, with pg-pool) and `postgres`
// (postgres.js). Each runs the same request shape as the store would — a transaction on a pooled connection with
// STATEMENTS statements (default 11, create-session's count: an insert, then reads by key, updates and event rows,
// as bench/seam.js runs them on SQLite), CONCURRENCY requests in flight — and reports the client process's CPU µs
// per request (what the server process would pay; PostgreSQL's own CPU is apart), requests per second, and the
// time to import the driver. Rounds alternate the drivers. postgres.js is the project's (chosen from these figures);
// `pg` is not a dependency: `npm i --no-save pg` first.
import { performance } from 'node:perf_hooks';
import { measure, median, SQL } from './pg-shape.js';

const url = process.argv[2];
if (!url) {
  process.stderr.write('usage: node bench/pg-drivers.js postgres://user@host:port/db [statements]\n');
  process.exit(2);
}
const STATEMENTS = Number(process.argv[3] ?? 11);
const CONCURRENCY = Number(process.env.PG_CONCURRENCY ?? 16);
const REQUESTS = Number(process.env.PG_REQUESTS ?? 2000);
const ROUNDS = Number(process.env.PG_ROUNDS ?? 5);

const importMs = {};
let t = performance.now();
const { default: pg } = await import('pg');
importMs.pg = performance.now() - t;
t = performance.now();
const { default: postgres } = await import('postgres');
importMs.postgres = performance.now() - t;

const pool = new pg.Pool({ connectionString: url, max: CONCURRENCY });
const sql = postgres(url, { max: CONCURRENCY, prepare: true, onnotice: () => {} });
await pool.query(`DROP TABLE IF EXISTS bench_objects, bench_events;
  CREATE TABLE bench_objects (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, status TEXT NOT NULL,
    amount BIGINT NOT NULL, doc TEXT NOT NULL);
  CREATE TABLE bench_events (seq BIGSERIAL PRIMARY KEY, account_id TEXT NOT NULL, type TEXT NOT NULL,
    object_id TEXT NOT NULL, doc TEXT NOT NULL);`);

const drivers = {
  // node-postgres: named prepared statements (parsed once per connection), BEGIN/COMMIT on one pooled client.
  async pg(steps) {
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      for (const [kind, args] of steps) await c.query({ name: kind, text: SQL[kind], values: args });
      await c.query('COMMIT');
    } catch (err) {
      await c.query('ROLLBACK');
      throw err;
    } finally {
      c.release();
    }
  },
  // postgres.js: sql.begin reserves a connection; unsafe() with prepare keeps the statement per connection.
  async postgres(steps) {
    await sql.begin(async (tx) => {
      for (const [kind, args] of steps) await tx.unsafe(SQL[kind], args, { prepare: true });
    });
  },
};

const measureOne = (name) =>
  measure(drivers[name], { statements: STATEMENTS, requests: REQUESTS, concurrency: CONCURRENCY });

const names = Object.keys(drivers);
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
  process.stdout.write(
    `${n.padEnd(9)} ${cpu.toFixed(0).padStart(5)} µs client CPU/request  ${rps.toFixed(0).padStart(6)} req/s  import ${importMs[n].toFixed(0)} ms\n`,
  );
}
await pool.query('DROP TABLE bench_objects, bench_events');
await pool.end();
await sql.end();
