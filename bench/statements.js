#!/usr/bin/env node
// `node bench/statements.js confirm|journal|create`: the SQLite statements one request executes, counted by
// wrapping better-sqlite3's Statement methods in this process, over 20 sequential requests through the real
// server's pipeline (fastify inject) after 20 warm-up ones. A count, not a time: the same whatever else the
// machine is doing, so it shows a saved query where CPU timings cannot. Sequential requests commit one by
// one (BEGIN/COMMIT per request; under load the group commit shares them). Needs a build (dist/).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const what = process.argv[2] ?? 'confirm';
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
const s = await startServer({
  port: 0,
  dataDir: join(tmp, 'd'),
  rateLimits: { perMinute: 1e9, perDay: 1e12, concurrency: 10_000 },
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
  counting = true;
  for (let i = N; i < 2 * N; i++) await one(i);
  counting = false;
  let total = 0;
  for (const [sql, n] of [...counts].sort((a, b) => b[1] - a[1])) {
    total += n;
    process.stdout.write(`${(n / N).toFixed(2).padStart(6)}  ${sql}\n`);
  }
  process.stdout.write(`${what}: ${(total / N).toFixed(2)} statements per request\n`);
} finally {
  await s.close();
  rmSync(tmp, { recursive: true, force: true });
}
