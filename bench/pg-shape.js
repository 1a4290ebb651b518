// The request shape the PostgreSQL benchmarks (bench/pg-drivers.js, bench/pg-store.js) run: a write transaction of
// N statements — an insert, then reads by key, updates and event rows, as bench/seam.js runs them on SQLite — and
// how a way of running it is timed: CPU µs of this process per request and requests per second, `concurrency`
// requests in flight.
import { performance } from 'node:perf_hooks';

export const SQL = {
  get: 'SELECT id, status, amount, doc FROM bench_objects WHERE id = $1 AND account_id = $2',
  insert: 'INSERT INTO bench_objects (id, account_id, status, amount, doc) VALUES ($1, $2, $3, $4, $5)',
  update: 'UPDATE bench_objects SET status = $1, doc = $2 WHERE id = $3 AND account_id = $4',
  event: 'INSERT INTO bench_events (account_id, type, object_id, doc) VALUES ($1, $2, $3, $4)',
};

const doc = JSON.stringify({ amount: 1999, currency: 'USD', metadata: { order: '1234' }, status: 'created' });
let serial = 0;

/** The statements of one request, in order: `[kind, args]` pairs (kind is a key of SQL). */
export function plan(statements) {
  const id = `obj_${process.pid}_${serial++}`;
  const out = [];
  for (let i = 0; i < statements; i++) {
    const k = i % 3;
    if (i === 0) out.push(['insert', [id, 'acct_1', 'created', 1999, doc]]);
    else if (k === 1) out.push(['get', [id, 'acct_1']]);
    else if (k === 2) out.push(['update', ['processing', doc, id, 'acct_1']]);
    else out.push(['event', ['acct_1', 'object.updated', id, doc]]);
  }
  return out;
}

/** Runs `requests` planned requests through `run`, `concurrency` at a time: CPU µs per request and requests/s. */
export async function measure(run, { statements, requests, concurrency }) {
  const plans = Array.from({ length: requests }, () => plan(statements));
  let next = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < plans.length) await run(plans[next++]);
    }),
  );
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { cpu: (used.user + used.system) / requests, rps: (requests / wall) * 1000 };
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
