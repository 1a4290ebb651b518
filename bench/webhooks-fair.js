#!/usr/bin/env node
// `node bench/webhooks-fair.js`: what endpoints that never answer cost other accounts' deliveries. A server (in
// this process, so that it can make accounts) with FAIR_DEAD endpoints (default 100, at most 16 per account: as
// many accounts as that takes) whose receiver never answers, each with FAIR_EVENTS (default 5) deliveries due; then
// account B's one endpoint, to a receiver that answers 200 at once, and FAIR_N (default 200) customers of B created
// one after another: the latency from each create's answer to its delivery, p50 / p99 / max. The POST timeout is
// the default (10 s). Needs a build (dist/).
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../dist/index.js';

const DEAD = Number(process.env.FAIR_DEAD ?? 100);
const EVENTS = Number(process.env.FAIR_EVENTS ?? 5);
const N = Number(process.env.FAIR_N ?? 200);
const tmp = mkdtempSync(join(tmpdir(), 'payorch-fair-'));

const hanging = [];
const dead = http.createServer((req) => hanging.push(req));
let waiter;
const arrivals = new Map();
const live = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    arrivals.set(JSON.parse(body).data.object.id, performance.now());
    res.end('ok');
    waiter?.();
  });
});
await Promise.all([dead, live].map((s) => new Promise((r) => s.listen(0, '127.0.0.1', r))));
const s = await startServer({
  port: 0,
  dataDir: join(tmp, 'server'),
  rateLimits: { perMinute: 1e9, perDay: 1e12, concurrency: 10_000 },
});
const call = async (key, path, body) => {
  const res = await fetch(s.baseUrl + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
};
try {
  const deadPort = dead.address().port;
  for (let made = 0, a = 0; made < DEAD; a++) {
    const key = s.services.accounts.createAccountWithKey().api_key;
    const n = Math.min(16, DEAD - made);
    for (let i = 0; i < n; i++)
      await call(key, '/webhook-endpoints', {
        url: `http://127.0.0.1:${deadPort}/${a}/${i}`,
        enabled_events: ['customer.created'],
      });
    for (let i = 0; i < EVENTS; i++) await call(key, '/customers', { email: 'dead@example.com' });
    made += n;
  }
  const t = Date.now();
  while (hanging.length < DEAD && Date.now() - t < 30_000) await new Promise((r) => setTimeout(r, 50));
  const keyB = s.services.accounts.createAccountWithKey().api_key;
  await call(keyB, '/webhook-endpoints', {
    url: `http://127.0.0.1:${live.address().port}/b`,
    enabled_events: ['customer.created'],
  });
  const ms = [];
  for (let i = 0; i < N; i++) {
    const { id } = await call(keyB, '/customers', { email: 'b@example.com' });
    const t0 = performance.now();
    while (!arrivals.has(id)) await new Promise((r) => (waiter = r));
    ms.push(arrivals.get(id) - t0);
  }
  ms.sort((x, y) => x - y);
  const at = (q) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))].toFixed(1);
  console.log(
    `${DEAD} endpoints that never answer (${hanging.length} POSTs open to them); account B, ${N} deliveries: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${ms.at(-1).toFixed(1)} ms`,
  );
} finally {
  for (const r of hanging) r.socket.destroy();
  await s.close();
  dead.close();
  live.close();
  rmSync(tmp, { recursive: true, force: true });
}
