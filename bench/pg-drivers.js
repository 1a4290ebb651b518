#!/usr/bin/env node
// `node bench/pg-drivers.js postgres://user@127.0.0.1:PORT/db`: which Node driver for PostgreSQL costs a payorch
// server process least. Two maintained pure-JavaScript drivers: `pg` (node-postgres, with pg-pool) and `postgres`
// (postgres.js). Each runs the same request shape as the store would — a transaction on a pooled connection with
// STATEMENTS statements (default 11, create-session's count: an insert, then reads by key, updates and event rows,
// as bench/seam.js runs them on SQLite), CONCURRENCY requests in flight — and reports the client process's CPU µs
// per request (what the server process would pay; PostgreSQL's own CPU is apart), requests per second, and the
// time to import the driver. Rounds alternate the drivers. Neither is a dependency yet: `npm i --no-save pg postgres`.
import { performance } from 'node:perf_hooks';

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

const SQL = {
  get: 'SELECT id, status, amount, doc FROM bench_objects WHERE id = $1 AND account_id = $2',
  insert: 'INSERT INTO bench_objects (id, account_id, status, amount, doc) VALUES ($1, $2, $3, $4, $5)',
  update: 'UPDATE bench_objects SET status = $1, doc = $2 WHERE id = $3 AND account_id = $4',
  event: 'INSERT INTO bench_events (account_id, type, object_id, doc) VALUES ($1, $2, $3, $4)',
};
const doc = JSON.stringify({ amount: 1999, currency: 'USD', metadata: { order: '1234' }, status: 'created' });
let serial = 0;
function plan() {
  const id = `obj_${process.pid}_${serial++}`;
  const out = [];
  for (let i = 0; i < STATEMENTS; i++) {
    const k = i % 3;
    if (i === 0) out.push(['insert', [id, 'acct_1', 'created', 1999, doc]]);
    else if (k === 1) out.push(['get', [id, 'acct_1']]);
    else if (k === 2) out.push(['update', ['processing', doc, id, 'acct_1']]);
    else out.push(['event', ['acct_1', 'object.updated', id, doc]]);
  }
  return out;
}

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

async function measure(name) {
  const run = drivers[name];
  const plans = Array.from({ length: REQUESTS }, plan);
  let next = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < plans.length) await run(plans[next++]);
    }),
  );
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { cpu: (used.user + used.system) / REQUESTS, rps: (REQUESTS / wall) * 1000 };
}

const names = Object.keys(drivers);
for (const n of names) await measure(n); // warm-up
const results = Object.fromEntries(names.map((n) => [n, []]));
for (let r = 0; r < ROUNDS; r++)
  for (const n of r % 2 ? [...names].reverse() : names) results[n].push(await measure(n));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
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
