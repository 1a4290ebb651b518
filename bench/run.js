#!/usr/bin/env node
// `npm run bench`: measures the figures of issue 6 and prints them as ratios against baselines measured in
// the same run (never asserted in tests). Writes bench/results.json.
//
//   CLI start      median wall time of the real binary ÷ median of `node -e 0` (runs alternated)
//   server         req/s and p99 at 50 connections ÷ a bare node:http server parsing the same JSON body
//   scale          p50 of a list page with 1k vs 1M rows; server RSS after; database bytes per 1k sessions
//
// Env: BENCH_SECONDS (load duration per endpoint, default 5), BENCH_ROWS (large table size, default 1e6),
// BENCH_RUNS (CLI runs per figure, default 15), BENCH_ROUNDS (server: baseline/endpoint load pairs per figure,
// alternated so that background load on the machine hits both alike; the median pair is reported; default 3), BENCH_ONLY (comma-separated parts to run: cli, server, webhooks (also part of server), scale;
// default all — a partial run prints and writes only its own figures).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, startChild, stopChildren } from './children.js';
import Database from 'better-sqlite3';

const here = dirname(fileURLToPath(import.meta.url));
const BIN = join(here, '..', 'bin', 'run.js');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((x) => x.trim())) : null;
const want = (part) => !ONLY || ONLY.has(part);
const tmp = mkdtempSync(join(tmpdir(), 'payorch-bench-'));
const results = { when: new Date().toISOString(), node: process.version, cores: (await import('node:os')).cpus().length, cli: {}, server: {}, scale: {} };

const log = (s) => process.stderr.write(s + '\n');

/**
 * Median wall time of each command, the commands run in turn (one of each per round, RUNS rounds after two
 * warm-up rounds), so that a burst of other work on the machine hits the baseline and the commands alike.
 */
function timeAlternated(commands) {
  const times = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let i = 0; i < RUNS + 2; i++) {
    for (const [name, { args, env = {} }] of Object.entries(commands)) {
      const t = process.hrtime.bigint();
      const r = spawnSync(process.execPath, args, { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr}`);
      if (i >= 2) times[name].push(ms); // two warm-up rounds (page cache, code cache)
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, xs]) => [k, median(xs)]));
}

function load(url, method, body, headers, concurrency = 50, ms = SECONDS * 1000, targetsFile) {
  const args = [join(here, 'load.js'), url, method, body ?? '', JSON.stringify(headers), String(concurrency), String(ms), ...(targetsFile ? [targetsFile] : [])];
  const r = spawnSync(process.execPath, args, {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (r.status !== 0) throw new Error(`load failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/**
 * One API call for set-up. A keep-alive connection left idle past the server's keepAliveTimeout (72 s; a long
 * BENCH_ROUNDS run leaves them so) can be closed just as it is reused ("other side closed"): retried, under
 * an Idempotency-Key so that a write the server did take is not made twice.
 */
async function api(base, key, method, path, body) {
  const headers = { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}), ...(method !== 'GET' ? { 'idempotency-key': randomUUID() } : {}) };
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await fetch(base + path, { method, headers, body: body ? JSON.stringify(body) : undefined });
      return { status: res.status, text: await res.text() };
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
}

function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

try {
  // ------------------------------------------------------------------------------------------ CLI start
  const { child: server, info } = await startChild(join(here, 'serve.js'), [join(tmp, 'server')]);
  const created = await api(info.baseUrl, info.apiKey, 'POST', '/create-session', { amount: 1999, currency: 'usd' });
  const sessionId = JSON.parse(created.text).id;
  let nodeBase;
  if (want('cli')) {
  log('CLI start…');
  const home = join(tmp, 'home');
  const emb = spawnSync(process.execPath, [BIN, 'sessions', 'create', '--amount', '100', '--currency', 'usd', '--json'], { env: { ...process.env, PAYORCH_HOME: home, PAYORCH_DAEMON: '0' }, encoding: 'utf8' });
  const embId = JSON.parse(emb.stdout).id;
  // In process needs a data directory no server runs on (keyless commands use a running one): a second home.
  const home2 = join(tmp, 'home2');
  const emb2 = spawnSync(process.execPath, [BIN, 'sessions', 'create', '--amount', '100', '--currency', 'usd', '--json'], { env: { ...process.env, PAYORCH_HOME: home2, PAYORCH_DAEMON: '0' }, encoding: 'utf8' });
  const embId2 = JSON.parse(emb2.stdout).id;
  // The default with no key configured, at a terminal: the background server on the default data directory
  // (PAYORCH_DAEMON=1 stands for the terminal; the first run starts it, a warm-up round). Without a terminal
  // (CI) and no server running on the data directory, the server runs in the CLI's process: PAYORCH_DAEMON=0
  // on a second home.
  let t;
  try {
    t = timeAlternated({
      node: { args: ['-e', '0'] },
      version: { args: [BIN, '--version'] },
      http: { args: [BIN, 'sessions', 'get', sessionId, '--json', '--base-url', info.baseUrl, '--api-key', info.apiKey] },
      embedded: { args: [BIN, 'sessions', 'get', embId, '--json'], env: { PAYORCH_HOME: home, PAYORCH_DAEMON: '1' } },
      inprocess: { args: [BIN, 'sessions', 'get', embId2, '--json'], env: { PAYORCH_HOME: home2, PAYORCH_DAEMON: '0' } },
    });
  } finally {
    spawnSync(process.execPath, [BIN, 'server', 'stop', '--all'], { env: { ...process.env, PAYORCH_HOME: home }, stdio: 'ignore' });
  }
  nodeBase = t.node;
  results.cli.node_e0_ms = nodeBase;
  results.cli.version_ratio = t.version / nodeBase;
  results.cli.get_json_http_ratio = t.http / nodeBase;
  results.cli.get_json_embedded_ratio = t.embedded / nodeBase;
  results.cli.get_json_inprocess_ratio = t.inprocess / nodeBase;
  results.cli.ms = t;
  }

  // --------------------------------------------------------------------------------------------- server
  let cs, cp, je, baseline, confirmBare, jeBare;
  if (want('server')) {
  log('server throughput…');
  const body = JSON.stringify({ amount: 1999, currency: 'usd', metadata: { order: '1234' } });
  const replySize = Buffer.byteLength(created.text);
  const { info: bareInfo } = await startChild(join(here, 'bare-server.js'), [String(replySize)]);
  const bare = (reqBody) => () => load(bareInfo.url + '/x', 'POST', reqBody, {});
  // Baseline and endpoint alternate, ROUNDS times; the figure is the round with the median ratio.
  const paired = (baselineRun, targetRun) => {
    const rounds = [];
    for (let r = 0; r < ROUNDS; r++) {
      const base = baselineRun(r);
      const target = targetRun(r);
      rounds.push({ base, target, ratio: target.rps / base.rps });
    }
    const mid = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)];
    return {
      base: mid.base,
      target: mid.target,
      result: { ...mid.target, rps_ratio: mid.ratio, p99_ratio: mid.target.p99_ms / mid.base.p99_ms, baseline: mid.base, rounds: rounds.map((x) => Number(x.ratio.toFixed(3))) },
    };
  };

  load(bareInfo.url + '/x', 'POST', body, {}, 50, 1000); // warm-up
  const auth = { authorization: `Bearer ${info.apiKey}` };
  load(info.baseUrl + '/create-session', 'POST', body, auth, 50, 1000); // warm-up
  const createPair = paired(bare(body), () => load(info.baseUrl + '/create-session', 'POST', body, auth));
  cs = createPair.target;
  baseline = createPair.base;
  results.server.baseline = baseline;
  results.server.create_session = createPair.result;

  // confirm-payment: one confirm per session (each with its own client secret), card tok_visa.
  const confirmBody = JSON.stringify({ token_id: 'tok_visa' });
  const perRound = Math.ceil(Math.max(cs.rps / 2, 500) * SECONDS * 1.5) + 1000;
  const targetFiles = [];
  for (let r = 0; r < ROUNDS; r++) {
    const targets = [];
    for (let i = 0; i < perRound; i += 200) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(200, perRound - i) }, () => api(info.baseUrl, info.apiKey, 'POST', '/create-session', { amount: 1999, currency: 'usd' })),
      );
      for (const res of batch) {
        const x = JSON.parse(res.text);
        targets.push({ path: `/confirm-payment/${x.id}`, headers: { authorization: `Bearer ${x.client_secret}` } });
      }
    }
    targetFiles.push(join(tmp, `confirm-targets-${r}.json`));
    writeFileSync(targetFiles[r], JSON.stringify(targets));
  }
  const confirmPair = paired(bare(confirmBody), (r) => load(info.baseUrl, 'POST', confirmBody, {}, 50, SECONDS * 1000, targetFiles[r]));
  cp = confirmPair.target;
  confirmBare = confirmPair.base;
  results.server.confirm_payment = confirmPair.result;

  // journal entry: a two-line entry between two system accounts (no balance limits), same body each time.
  const a1 = JSON.parse((await api(info.baseUrl, info.apiKey, 'POST', '/ledger-accounts', { name: 'Bench cash', account_type: 'asset', currency: 'usd', is_system_account: true })).text);
  const a2 = JSON.parse((await api(info.baseUrl, info.apiKey, 'POST', '/ledger-accounts', { name: 'Bench wallet', account_type: 'liability', currency: 'usd', is_system_account: true })).text);
  const jeBody = JSON.stringify({ description: 'bench', entries: [{ account_id: a1.id, direction: 'debit', amount: 100 }, { account_id: a2.id, direction: 'credit', amount: 100 }] });
  const journalPair = paired(bare(jeBody), () => load(info.baseUrl + '/journal-entries', 'POST', jeBody, auth));
  je = journalPair.target;
  jeBare = journalPair.base;
  results.server.journal_entry = journalPair.result;
  }

  // ------------------------------------------------------------------------------------------- webhooks
  // create-session on a server with one webhook endpoint (every event) whose receiver answers 200: a fresh server,
  // so that the figures above are untouched. Part of `server`; BENCH_ONLY=webhooks runs it alone.
  let wh, whBare, whDelivered;
  if (want('server') || want('webhooks')) {
    log('server throughput with a webhook endpoint…');
    const { info: rx } = await startChild(join(here, 'receiver.js'));
    const { info: hooked } = await startChild(join(here, 'serve.js'), [join(tmp, 'server-webhooks')]);
    const we = JSON.parse((await api(hooked.baseUrl, hooked.apiKey, 'POST', '/webhook-endpoints', { url: rx.url })).text);
    if (!we.id) throw new Error(`webhook endpoint: ${JSON.stringify(we)}`);
    const sample = await api(hooked.baseUrl, hooked.apiKey, 'POST', '/create-session', { amount: 1999, currency: 'usd' });
    const { info: whBareInfo } = await startChild(join(here, 'bare-server.js'), [String(Buffer.byteLength(sample.text))]);
    const whBody = JSON.stringify({ amount: 1999, currency: 'usd', metadata: { order: '1234' } });
    const whAuth = { authorization: `Bearer ${hooked.apiKey}` };
    load(whBareInfo.url + '/x', 'POST', whBody, {}, 50, 1000); // warm-up
    load(hooked.baseUrl + '/create-session', 'POST', whBody, whAuth, 50, 1000); // warm-up
    const count = async (status) => JSON.parse((await api(hooked.baseUrl, hooked.apiKey, 'GET', `/webhook-endpoints/${we.id}/deliveries?status=${status}&limit=1`)).text).total_count;
    // Deliveries lag behind a burst of create-sessions and go on after it: the baseline round waits until they are
    // done (else the bare server shares the machine with them and its figure falls, flattering the ratio).
    const drained = async () => {
      const until = Date.now() + 120_000;
      while ((await count('pending')) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 250));
    };
    const rounds = [];
    for (let r = 0; r < ROUNDS; r++) {
      await drained();
      const base = load(whBareInfo.url + '/x', 'POST', whBody, {});
      const target = load(hooked.baseUrl + '/create-session', 'POST', whBody, whAuth);
      rounds.push({ base, target, ratio: target.rps / base.rps });
    }
    const mid = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)];
    wh = mid.target;
    whBare = mid.base;
    whDelivered = { succeeded: await count('succeeded'), pending: await count('pending'), failed: await count('failed') };
    results.server.create_session_webhook = { ...wh, rps_ratio: mid.ratio, p99_ratio: wh.p99_ms / whBare.p99_ms, baseline: whBare, rounds: rounds.map((x) => Number(x.ratio.toFixed(3))), deliveries_at_end: whDelivered };
  }

  // ---------------------------------------------------------------------------------------------- scale
  if (want('scale')) {
  log(`scale (1k vs ${ROWS} rows)…`);
  const listP50 = async () => {
    const times = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      const r = await api(info.baseUrl, info.apiKey, 'GET', '/sessions?limit=10');
      if (r.status !== 200) throw new Error(r.text);
      times.push(performance.now() - t);
    }
    return median(times);
  };
  const dbPath = join(tmp, 'server', 'payorch.db');
  const db = new Database(dbPath);
  db.pragma('busy_timeout = 10000');
  const account = db.prepare("SELECT value FROM meta WHERE key = 'default_account'").get().value;
  const template = db.prepare('SELECT data FROM payment_sessions WHERE account_id = ? LIMIT 1').get(account).data;
  const seed = (target) => {
    const have = db.prepare('SELECT COUNT(*) AS n FROM payment_sessions WHERE account_id = ?').get(account).n;
    const insert = db.prepare(
      "INSERT INTO payment_sessions (id, account_id, status, external_id, expires_ms, secret_hash, data) VALUES (?, ?, 'requires_payment_method', NULL, ?, ?, ?)",
    );
    const batch = db.transaction((from, to) => {
      for (let i = from; i < to; i++) {
        const hex = i.toString(16).padStart(12, '0');
        insert.run(`01900000-0000-7000-8000-${hex}`, account, Date.now() + 86_400_000, `bench${i}`, template);
      }
    });
    for (let i = have; i < target; i += 50_000) batch(i, Math.min(target, i + 50_000));
  };
  seed(1000);
  results.scale.list_p50_1k_ms = await listP50();
  const sizeAt = () => {
    db.pragma('wal_checkpoint(TRUNCATE)');
    return statSync(dbPath).size;
  };
  const size1k = sizeAt();
  seed(ROWS);
  const sizeBig = sizeAt();
  results.scale.list_p50_big_ms = await listP50();
  results.scale.rows = ROWS;
  results.scale.list_ratio = results.scale.list_p50_big_ms / results.scale.list_p50_1k_ms;
  results.scale.server_rss_mb = rssMb(info.pid);
  results.scale.db_bytes_per_1k_sessions = Math.round(((sizeBig - size1k) / (ROWS - 1000)) * 1000);
  db.close();
  }
  server.kill('SIGTERM');

  // --------------------------------------------------------------------------------------------- report
  const f = (x, d = 2) => (typeof x === 'number' ? x.toFixed(d) : String(x));
  const rows = [
    ...(want('cli')
      ? [
          ['CLI `--version` ÷ node -e 0', f(results.cli.version_ratio), '≤ 1.5'],
          ['CLI `sessions get --json` (HTTP) ÷ node -e 0', f(results.cli.get_json_http_ratio), '≤ 2.0'],
          ['CLI `sessions get --json` (no key: background server) ÷ node -e 0', f(results.cli.get_json_embedded_ratio), '≤ 3.0'],
          ['CLI `sessions get --json` (no key, no terminal: in process) ÷ node -e 0', f(results.cli.get_json_inprocess_ratio), '—'],
        ]
      : []),
    ...(want('server')
      ? [
          ['create-session req/s ÷ bare node:http', `${f(results.server.create_session.rps_ratio)} (${f(cs.rps, 0)} vs ${f(baseline.rps, 0)} req/s)`, '≥ 0.5'],
          ['create-session p99 ÷ bare node:http', `${f(results.server.create_session.p99_ratio)} (${f(cs.p99_ms)} vs ${f(baseline.p99_ms)} ms)`, '—'],
          ['confirm-payment req/s ÷ bare node:http', `${f(results.server.confirm_payment.rps_ratio)} (${f(cp.rps, 0)} vs ${f(confirmBare.rps, 0)} req/s)`, '—'],
          ['confirm-payment p99 ÷ bare node:http', `${f(results.server.confirm_payment.p99_ratio)} (${f(cp.p99_ms)} vs ${f(confirmBare.p99_ms)} ms)`, '—'],
          ['journal entry req/s ÷ bare node:http', `${f(results.server.journal_entry.rps_ratio)} (${f(je.rps, 0)} vs ${f(jeBare.rps, 0)} req/s)`, '—'],
          ['journal entry p99 ÷ bare node:http', `${f(results.server.journal_entry.p99_ratio)} (${f(je.p99_ms)} vs ${f(jeBare.p99_ms)} ms)`, '—'],
        ]
      : []),
    ...(wh
      ? [
          [
            'create-session req/s, 1 webhook endpoint ÷ bare node:http',
            `${f(results.server.create_session_webhook.rps_ratio)} (${f(wh.rps, 0)} vs ${f(whBare.rps, 0)} req/s; deliveries at the end ${JSON.stringify(whDelivered)})`,
            '≥ 0.5',
          ],
        ]
      : []),
    ...(want('scale')
      ? [
          [`list p50 ${ROWS} rows ÷ 1k rows`, `${f(results.scale.list_ratio)} (${f(results.scale.list_p50_big_ms)} vs ${f(results.scale.list_p50_1k_ms)} ms)`, '≤ 2.0'],
          [`server RSS after ${ROWS} rows`, `${f(results.scale.server_rss_mb, 0)} MB`, '≤ 150 MB'],
          ['database bytes per 1k sessions', String(results.scale.db_bytes_per_1k_sessions), '—'],
        ]
      : []),
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  const w2 = Math.max(...rows.map((r) => r[1].length));
  process.stdout.write(`${'figure'.padEnd(w)}  ${'measured'.padEnd(w2)}  target\n`);
  for (const r of rows) process.stdout.write(`${r[0].padEnd(w)}  ${r[1].padEnd(w2)}  ${r[2]}\n`);
  process.stdout.write(
    `(${nodeBase ? `node -e 0 = ${f(nodeBase, 1)} ms; ` : ''}${results.cores} cores; ${SECONDS}s per load${cs ? `, median of ${ROUNDS} alternated baseline/endpoint rounds (create-session ratios ${results.server.create_session.rounds.join(', ')})` : ''}${cs ? `; statuses: create ${JSON.stringify(cs.statuses)}, confirm ${JSON.stringify(cp.statuses)}, journal ${JSON.stringify(je.statuses)}` : ''})\n`,
  );
  writeFileSync(join(here, ONLY ? `results.${[...ONLY].sort().join('+')}.json` : 'results.json'), JSON.stringify(results, null, 2) + '\n');
} finally {
  stopChildren();
  await new Promise((r) => setTimeout(r, 300));
  if (existsSync(tmp)) rmSync(tmp, { recursive: true, force: true });
}
