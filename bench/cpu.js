#!/usr/bin/env node
// `node bench/cpu.js [bare|create|confirm|journal]…`: the server process's CPU time per request (user + system,
// from /proc/PID/stat) under the same load as `npm run bench` (load.js, 50 keep-alive connections), for the
// bare node:http baseline and the real server (bench/serve.js, a fresh data directory). Needs a build (dist/).
// Meant to compare builds when req/s is meaningless; but on a machine shared with other work (measured at a
// load average of ~12 on 2 cores) it too moves ±20% between runs, so only large differences show. The bare
// baseline is cheap per request and the load generator limits it, so bare ÷ endpoint here is much lower than
// the req/s ratio of `npm run bench` (0.18 vs ~0.5 for create-session); compare endpoints and builds with it.
//
// Env: CPU_REQUESTS (requests per measured run, default 3000), CPU_RUNS (runs per figure, median; default 3),
// CPU_SERVER_FLAGS (node flags for the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs, median, startChild, stopChildren } from './children.js';

const here = dirname(fileURLToPath(import.meta.url));
const N = Number(process.env.CPU_REQUESTS ?? 3000);
const RUNS = Number(process.env.CPU_RUNS ?? 3);
const SERVER_FLAGS = (process.env.CPU_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
const which = process.argv.slice(2).length ? process.argv.slice(2) : ['bare', 'create', 'confirm', 'journal'];
const tmp = mkdtempSync(join(tmpdir(), 'payorch-cpu-'));

/** Runs load.js for `n` requests (a targets file ends it; else a generous time budget) and returns its result. */
function load(url, method, body, headers, targetsFile, ms = 600_000) {
  const args = [
    join(here, 'load.js'),
    url,
    method,
    body ?? '',
    JSON.stringify(headers),
    '50',
    String(ms),
    ...(targetsFile ? [targetsFile] : []),
  ];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`load failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** A targets file of `n` times the same path (load.js then sends exactly n requests). */
function fixed(path, n) {
  const f = join(tmp, `fixed-${randomUUID()}.json`);
  writeFileSync(f, JSON.stringify(Array.from({ length: n }, () => ({ path, headers: {} }))));
  return f;
}

async function api(base, key, method, path, body) {
  const headers = {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    'idempotency-key': randomUUID(),
  };
  const res = await fetch(base + path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  return JSON.parse(await res.text());
}

/** CPU µs per request of `pid` while `run` sends `n` requests; the median of RUNS runs (after `prepare` for each). */
async function measure(name, pid, n, prepare, run) {
  const per = [];
  for (let i = 0; i < RUNS; i++) {
    const arg = await prepare();
    const before = cpuMs(pid);
    const r = run(arg);
    const used = cpuMs(pid) - before;
    const ok = Object.entries(r.statuses)
      .filter(([s]) => Number(s) < 300)
      .reduce((a, [, c]) => a + c, 0);
    if (ok !== n)
      throw new Error(`${name}: ${JSON.stringify(r.statuses)}, ${r.errors} errors (expected ${n} successes)`);
    per.push((used * 1000) / n);
  }
  const m = median(per);
  process.stdout.write(
    `${name.padEnd(16)} ${m.toFixed(1).padStart(7)} µs CPU/request  (runs: ${per.map((x) => x.toFixed(1)).join(', ')})\n`,
  );
  return m;
}

try {
  const results = {};
  const sessionBody = JSON.stringify({ amount: 1999, currency: 'usd', metadata: { order: '1234' } });
  if (which.includes('bare')) {
    const { child, info } = await startChild(join(here, 'bare-server.js'), ['800'], SERVER_FLAGS);
    load(info.url, 'POST', sessionBody, {}, fixed('/x', 2000)); // warm-up
    results.bare = await measure(
      'bare node:http',
      child.pid,
      N,
      () => fixed('/x', N),
      (f) => load(info.url, 'POST', sessionBody, {}, f),
    );
  }
  const needServer = which.some((w) => w !== 'bare');
  if (needServer) {
    const { child, info } = await startChild(join(here, 'serve.js'), [join(tmp, 'server')], SERVER_FLAGS);
    const auth = { authorization: `Bearer ${info.apiKey}` };
    const sessions = async (n) => {
      const targets = [];
      for (let i = 0; i < n; i += 200) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(200, n - i) }, () =>
            api(info.baseUrl, info.apiKey, 'POST', '/create-session', { amount: 1999, currency: 'usd' }),
          ),
        );
        for (const x of batch)
          targets.push({ path: `/confirm-payment/${x.id}`, headers: { authorization: `Bearer ${x.client_secret}` } });
      }
      const f = join(tmp, `confirm-${randomUUID()}.json`);
      writeFileSync(f, JSON.stringify(targets));
      return f;
    };
    const confirmBody = JSON.stringify({ token_id: 'tok_visa' });
    load(info.baseUrl, 'POST', confirmBody, {}, await sessions(1000)); // warm-up (also of create-session)
    load(info.baseUrl + '/create-session', 'POST', sessionBody, auth, fixed('', 1000));
    if (which.includes('create')) {
      results.create = await measure(
        'create-session',
        child.pid,
        N,
        () => fixed('', N),
        (f) => load(info.baseUrl + '/create-session', 'POST', sessionBody, auth, f),
      );
    }
    if (which.includes('confirm')) {
      results.confirm = await measure(
        'confirm-payment',
        child.pid,
        N,
        () => sessions(N),
        (f) => load(info.baseUrl, 'POST', confirmBody, {}, f),
      );
    }
    if (which.includes('journal')) {
      const a1 = await api(info.baseUrl, info.apiKey, 'POST', '/ledger-accounts', {
        name: 'Bench cash',
        account_type: 'asset',
        currency: 'usd',
        is_system_account: true,
      });
      const a2 = await api(info.baseUrl, info.apiKey, 'POST', '/ledger-accounts', {
        name: 'Bench wallet',
        account_type: 'liability',
        currency: 'usd',
        is_system_account: true,
      });
      const jeBody = JSON.stringify({
        description: 'bench',
        entries: [
          { account_id: a1.id, direction: 'debit', amount: 100 },
          { account_id: a2.id, direction: 'credit', amount: 100 },
        ],
      });
      load(info.baseUrl + '/journal-entries', 'POST', jeBody, auth, fixed('', 1000)); // warm-up
      results.journal = await measure(
        'journal entry',
        child.pid,
        N,
        () => fixed('', N),
        (f) => load(info.baseUrl + '/journal-entries', 'POST', jeBody, auth, f),
      );
    }
  }
  if (results.bare) {
    for (const k of ['create', 'confirm', 'journal'])
      if (results[k]) process.stdout.write(`bare ÷ ${k}: ${(results.bare / results[k]).toFixed(3)}\n`);
  }
} finally {
  stopChildren();
  await new Promise((r) => setTimeout(r, 300));
  rmSync(tmp, { recursive: true, force: true });
}
