#!/usr/bin/env node
// `node bench/compare.js create|confirm|journal SERVE_A SERVE_B…`: the server CPU per request of several builds,
// measured in alternation under the bench's load (load.js, 50 keep-alive connections): each SERVE is a build's
// bench/serve.js (a worktree of another commit, built with `tsc -p tsconfig.build.json`). Prints, per build, the
// median over COMPARE_ROUNDS rounds of the main thread's CPU µs per request (the server's bottleneck: SQLite and
// the request pipeline run there), of the whole process's, and of req/s. Rounds alternate builds (in reverse
// order every other round), so that a slow phase of the machine hits them alike: on these machines the same
// build measured ±10% from one minute to the next, and differences below that need several runs.
//
// Env: COMPARE_ROUNDS (default 5), COMPARE_MS (ms per create/journal load, default 4000), COMPARE_CONFIRMS
// (sessions confirmed per confirm round, default 4000).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs, median, startChild, stopChildren } from './children.js';

const here = dirname(fileURLToPath(import.meta.url));
const [mode, ...scripts] = process.argv.slice(2);
if (!['create', 'confirm', 'journal'].includes(mode) || scripts.length === 0) {
  process.stderr.write('usage: node bench/compare.js create|confirm|journal SERVE_A [SERVE_B…]\n');
  process.exit(2);
}
const ROUNDS = Number(process.env.COMPARE_ROUNDS ?? 5);
const MS = Number(process.env.COMPARE_MS ?? 4000);
const CONFIRMS = Number(process.env.COMPARE_CONFIRMS ?? 4000);
const tmp = mkdtempSync(join(tmpdir(), 'payorch-compare-'));

function load(url, body, headers, ms, targetsFile) {
  const args = [join(here, 'load.js'), url, 'POST', body, JSON.stringify(headers), '50', String(ms), ...(targetsFile ? [targetsFile] : [])];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`load failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

async function api(server, path, body) {
  const headers = { authorization: `Bearer ${server.info.apiKey}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() };
  const res = await fetch(server.info.baseUrl + path, { method: 'POST', headers, body: JSON.stringify(body) });
  return JSON.parse(await res.text());
}

/** The load of one round for `server` (prepared first: confirm's sessions, journal's accounts). */
async function prepare(server, confirms) {
  const auth = { authorization: `Bearer ${server.info.apiKey}` };
  if (mode === 'create') return () => load(server.info.baseUrl + '/create-session', JSON.stringify({ amount: 1999, currency: 'usd', metadata: { order: '1234' } }), auth, MS);
  if (mode === 'journal') {
    if (!server.journal) {
      const a1 = await api(server, '/ledger-accounts', { name: 'Bench cash', account_type: 'asset', currency: 'usd', is_system_account: true });
      const a2 = await api(server, '/ledger-accounts', { name: 'Bench wallet', account_type: 'liability', currency: 'usd', is_system_account: true });
      server.journal = JSON.stringify({ description: 'bench', entries: [{ account_id: a1.id, direction: 'debit', amount: 100 }, { account_id: a2.id, direction: 'credit', amount: 100 }] });
    }
    return () => load(server.info.baseUrl + '/journal-entries', server.journal, auth, MS);
  }
  const targets = [];
  for (let i = 0; i < confirms; i += 200) {
    const batch = await Promise.all(Array.from({ length: Math.min(200, confirms - i) }, () => api(server, '/create-session', { amount: 1999, currency: 'usd' })));
    for (const s of batch) targets.push({ path: `/confirm-payment/${s.id}`, headers: { authorization: `Bearer ${s.client_secret}` } });
  }
  const file = join(tmp, `confirm-${randomUUID()}.json`);
  writeFileSync(file, JSON.stringify(targets));
  return () => load(server.info.baseUrl, JSON.stringify({ token_id: 'tok_visa' }), {}, 600_000, file);
}

try {
  const servers = [];
  for (const [i, script] of scripts.entries()) {
    const { child, info } = await startChild(script, [join(tmp, `server-${i}`)]);
    servers.push({ script, pid: child.pid, info, rounds: [] });
  }
  for (const s of servers) (await prepare(s, 1500))(); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    for (const s of r % 2 ? [...servers].reverse() : servers) {
      const run = await prepare(s, CONFIRMS);
      const main0 = cpuMs(s.pid, true);
      const all0 = cpuMs(s.pid);
      const out = run();
      s.rounds.push({ rps: out.rps, main: ((cpuMs(s.pid, true) - main0) * 1000) / out.requests, all: ((cpuMs(s.pid) - all0) * 1000) / out.requests });
    }
  }
  for (const s of servers) {
    const m = (k) => median(s.rounds.map((x) => x[k]));
    process.stdout.write(
      `${mode} ${s.script}: main thread ${m('main').toFixed(0)} µs/request (rounds ${s.rounds.map((x) => x.main.toFixed(0)).join(', ')}), process ${m('all').toFixed(0)} µs, ${m('rps').toFixed(0)} req/s\n`,
    );
  }
} finally {
  stopChildren();
  await new Promise((r) => setTimeout(r, 300));
  rmSync(tmp, { recursive: true, force: true });
}
