#!/usr/bin/env node
// `node bench/statements.js confirm|journal|create [--postgres]`: the SQLite statements one request executes, counted
// by wrapping better-sqlite3's Statement methods in this process, over 20 sequential requests through the real
// server's pipeline (fastify inject) after 20 warm-up ones. A count, not a time: the same whatever else the
// machine is doing, so it shows a saved query where CPU timings cannot. Sequential requests commit one by
// one (BEGIN/COMMIT per request; under load the group commit shares them). Needs a build (dist/).
//
// With --postgres, the server is on a throwaway PostgreSQL cluster (bench/pg-cluster.js) and the statements are those
// it sends to PostgreSQL, counted on the wire by a proxy in front of it (bench/pg-wire.js): BEGIN, LOCK, SAVEPOINT
// and COMMIT each one, as each is a message the server's driver sends and PostgreSQL runs. The request log's write is
// listed apart: it is off the request path (one statement per account every 200 ms per process, whatever the rate).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const args = process.argv.slice(2);
const onPostgres = args.includes('--postgres');
const what = args.find((a) => !a.startsWith('--')) ?? 'confirm';
const N = 20;
const proto = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1'));
const counts = new Map();
let counting = false;
for (const method of ['run', 'get', 'all', 'iterate']) {
  const original = proto[method];
  proto[method] = function (...args) {
    if (counting) {
      const k = `${method} ${this.source.replace(/\s+/g, ' ').slice(0, 100)}`;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    return original.apply(this, args);
  };
}

const { startServer } = await import(join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js'));
const tmp = mkdtempSync(join(tmpdir(), 'payorch-stmts-'));
let cluster;
let proxy;
let database;
if (onPostgres) {
  cluster = await (await import('./pg-cluster.js')).startCluster();
  const { default: postgres } = await import('postgres');
  const admin = postgres(cluster.url('postgres'), { max: 1, onnotice: () => {} });
  await admin.unsafe('CREATE DATABASE statements');
  await admin.end();
  proxy = await (await import('./pg-wire.js')).statementProxy(cluster.port);
  database = { database: proxy.url('statements'), sealingKey: randomBytes(32).toString('hex') };
}
/** The request log's write, apart from the request's statements (see the top). */
const REQUEST_LOG_WRITE = /^WITH s AS \(\s*INSERT INTO request_log_seqs\b/;
const s = await startServer({
  port: 0,
  dataDir: join(tmp, 'd'),
  ...database,
  rateLimits: { perMinute: 1e9, perDay: 1e12, concurrency: 10_000 },
  // No timers of the server's own (due work, the webhook dispatcher's poll) run statements between requests.
  dueWorkIntervalMs: 0,
  webhooks: { pollIntervalMs: 3_600_000 },
});
try {
  let k = 0;
  const call = async (url, body, auth) => {
    const r = await s.app.inject({
      method: 'POST',
      url: `/functions/v1${url}`,
      payload: body,
      headers: { authorization: `Bearer ${auth}`, 'idempotency-key': `k${k++}` },
    });
    if (r.statusCode >= 300) throw new Error(r.body);
    return r.json();
  };
  const a1 = await call(
    '/ledger-accounts',
    { name: 'cash', account_type: 'asset', currency: 'usd', is_system_account: true },
    s.apiKey,
  );
  const a2 = await call(
    '/ledger-accounts',
    { name: 'wallet', account_type: 'liability', currency: 'usd', is_system_account: true },
    s.apiKey,
  );
  const je = {
    description: 'bench',
    entries: [
      { account_id: a1.id, direction: 'debit', amount: 100 },
      { account_id: a2.id, direction: 'credit', amount: 100 },
    ],
  };
  const sessions = [];
  if (what === 'confirm')
    for (let i = 0; i < 2 * N; i++)
      sessions.push(await call('/create-session', { amount: 1999, currency: 'usd' }, s.apiKey));
  const one = (i) =>
    what === 'confirm'
      ? call(`/confirm-payment/${sessions[i].id}`, { token_id: 'tok_visa' }, sessions[i].client_secret)
      : what === 'journal'
        ? call('/journal-entries', je, s.apiKey)
        : call('/create-session', { amount: 1999, currency: 'usd', metadata: { order: '1234' } }, s.apiKey);
  for (let i = 0; i < N; i++) await one(i); // warm-up (a first confirm also creates the system accounts)
  counting = !onPostgres;
  proxy?.counting(true);
  for (let i = N; i < 2 * N; i++) await one(i);
  counting = false;
  proxy?.counting(false);
  for (const { text } of proxy?.take() ?? []) {
    const k = REQUEST_LOG_WRITE.test(text)
      ? `(request log, off the request path) ${text.replace(/\s+/g, ' ').slice(0, 60)}`
      : text.replace(/\s+/g, ' ').slice(0, 140);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  let total = 0;
  for (const [sql, n] of [...counts].sort((a, b) => b[1] - a[1])) {
    if (!sql.startsWith('(request log')) total += n;
    process.stdout.write(`${(n / N).toFixed(2).padStart(6)}  ${sql}\n`);
  }
  process.stdout.write(
    `${what}: ${(total / N).toFixed(2)} ${onPostgres ? 'PostgreSQL' : 'SQLite'} statements per request\n`,
  );
} finally {
  await s.close();
  await proxy?.close();
  cluster?.destroy();
  rmSync(tmp, { recursive: true, force: true });
}
