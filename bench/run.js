#!/usr/bin/env node
// `npm run bench`: measures the figures of issue 27 (and the scale figures of issue 6) and prints each beside its
// target with a plain "met" / "not met" (never asserted in tests). Every figure is a ratio against a baseline
// measured in the same run. Writes bench/results.json: the figures, and {target, met} beside those with a target.
//
//   server   the server process's CPU per request (all its threads; its HTTP thread alone beside it) and p99 at
//            50 connections, for create-session, a two-line journal entry and confirm-payment, each ÷ the same of
//            a bare node:http server parsing the same JSON body (bench/per-request.js measures both alike)
//   CLI      median wall time of the real binary ÷ median of `node -e 0` (runs alternated)
//   webhooks create-session on a server with one webhook endpoint, its deliveries included (no target)
//   scale    p50 of a list page with 1k vs 1M rows; server RSS after; database bytes per 1k sessions
//   snapshot restore of a running server's snapshot with 10k and 100k sessions and their payments (bench/snapshot.js)
//
// Env: BENCH_SECONDS (load duration per endpoint, default 5), BENCH_ROWS (large table size, default 1e6),
// BENCH_RUNS (CLI runs per figure, default 15), BENCH_ROUNDS (server: bare/endpoint load pairs per figure,
// alternated so that background load on the machine hits both alike; each figure is the median of its rounds'
// ratios; default 3), BENCH_ONLY (comma-separated parts to run: cli, server, webhooks (also part of server),
// scale, snapshot, postgres; default all, postgres only where PostgreSQL's binaries are found — a partial run prints
// and writes only its own figures), BENCH_PG_RATE (the postgres part's fixed rate, requests a second, default 200).
//   postgres the server on PostgreSQL beside the server on SQLite (bench/postgres.js): CPU per request of the server
//            and of PostgreSQL, p99 at a fixed rate and req/s at saturation, for the three workloads of `server`;
//            one server process on a database against two; a clock advance over 5,000 sessions (PostgreSQL ÷ SQLite)
//            and the worst 1-day advance under a mixed load of 20 clients (bench/advance.js)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, call, confirmTargets, journalBody, loadPosts, median, startChild, stopChildren } from './children.js';
import { measure } from './per-request.js';
import { findPostgres } from './pg-cluster.js';
import { postgresPart } from './postgres.js';
import { advanceVerdicts } from './advance.js';
import Database from 'better-sqlite3';

const here = dirname(fileURLToPath(import.meta.url));
const BIN = join(here, '..', 'bin', 'run.js');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((x) => x.trim())) : null;
const want = (part) => !ONLY || ONLY.has(part);
const PG_RATE = Number(process.env.BENCH_PG_RATE ?? 200);
// The postgres part runs by default where PostgreSQL's binaries are found; asked for by name, their absence fails.
const pgMissing = findPostgres();
if (ONLY?.has('postgres') && typeof pgMissing === 'string') throw new Error(`BENCH_ONLY=postgres: ${pgMissing}`);
const wantPostgres = ONLY ? ONLY.has('postgres') : typeof pgMissing !== 'string';
const tmp = mkdtempSync(join(tmpdir(), 'payorch-bench-'));
const results = {
  when: new Date().toISOString(),
  node: process.version,
  cores: (await import('node:os')).cpus().length,
  cli: {},
  server: {},
  scale: {},
};

/**
 * The most each figure may be (every target is an upper bound): issue 27's for the server and for `--version`,
 * issue 38's for the CLI over HTTP and in process (no server running, no terminal: CI), issue 13's for the
 * background server, issue 6's for scale. A figure not named has none (`--help`: no slower than before, which
 * bench/cli-compare.js measures against another build).
 */
const TARGETS = {
  cli: { version_ratio: 1.2, get_json_http_ratio: 1.5, get_json_embedded_ratio: 3.0, get_json_inprocess_ratio: 3.0 },
  create_session: { cpu_ratio: 3.0, p99_ratio: 3.0 },
  journal_entry: { cpu_ratio: 4.0, p99_ratio: 3.0 },
  confirm_payment: { cpu_ratio: 6.0, p99_ratio: 3.0 },
  scale: { list_ratio: 2.0, server_rss_mb: 150 },
  // issue 28: a running server's restore (wall time at the client), by the number of sessions with a payment each
  snapshot: { restore_10k_ms: 200, restore_100k_ms: 1000 },
};

/** A figure with a target: {value, target, met}; without one, {value}. */
const judged = (value, target) => (target === undefined ? { value } : { value, target, met: value <= target });

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
      const r = spawnSync(process.execPath, args, {
        env: { ...process.env, NO_COLOR: '1', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr}`);
      if (i >= 2) times[name].push(ms); // two warm-up rounds (page cache, code cache)
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, xs]) => [k, median(xs)]));
}

/**
 * ROUNDS rounds, each a load of the bare server (`bare`: {pid, url}) with `bareBody`, then the workload `run(r)`
 * on the server `pid`, both measured by per-request.js (`after` and `receiverPid`: its options), judged against
 * `targets` ({cpu_ratio, p99_ratio}). Every ratio is of one round's two loads; a figure is the round with the
 * median ratio (the figure's own: CPU, p99 and req/s may come from different rounds), with that round's two
 * values (`server`, `bare`) and every round's ratio.
 */
async function paired(bare, bareBody, pid, run, { targets = {}, after, receiverPid } = {}) {
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const base = await measure(bare.pid, () => loadPosts(bare.url + '/x', bareBody, {}, SECONDS * 1000));
    const target = await measure(pid, () => run(r), { after, receiverPid });
    rounds.push({ base, target });
  }
  const ratio = (name, k) => {
    const each = rounds.map(({ base, target }) => ({ ratio: target[k] / base[k], server: target[k], bare: base[k] }));
    const mid = [...each].sort((a, b) => a.ratio - b.ratio)[Math.floor(each.length / 2)];
    return {
      ...judged(mid.ratio, targets[name]),
      server: mid.server,
      bare: mid.bare,
      rounds: each.map((x) => Number(x.ratio.toFixed(3))),
    };
  };
  const statuses = {};
  for (const { target } of rounds)
    for (const [code, n] of Object.entries(target.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  return {
    cpu_ratio: ratio('cpu_ratio', 'server'),
    main_ratio: ratio('main_ratio', 'main'),
    p99_ratio: ratio('p99_ratio', 'p99_ms'),
    rps_ratio: ratio('rps_ratio', 'rps'),
    statuses,
    errors: rounds.reduce((n, { target }) => n + target.errors, 0),
  };
}

function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

try {
  const { child: server, info } = await startChild(join(here, 'serve.js'), [join(tmp, 'server')]);
  const created = await call(info, 'POST', '/create-session', { amount: 1999, currency: 'usd' });
  const sessionId = JSON.parse(created.text).id;

  // ------------------------------------------------------------------------------------------ CLI start
  let nodeBase;
  if (want('cli')) {
    log('CLI start…');
    const home = join(tmp, 'home');
    const emb = spawnSync(
      process.execPath,
      [BIN, 'sessions', 'create', '--amount', '100', '--currency', 'usd', '--json'],
      { env: { ...process.env, PAYORCH_HOME: home, PAYORCH_DAEMON: '0' }, encoding: 'utf8' },
    );
    const embId = JSON.parse(emb.stdout).id;
    // In process needs a data directory no server runs on (keyless commands use a running one): a second home.
    const home2 = join(tmp, 'home2');
    const emb2 = spawnSync(
      process.execPath,
      [BIN, 'sessions', 'create', '--amount', '100', '--currency', 'usd', '--json'],
      { env: { ...process.env, PAYORCH_HOME: home2, PAYORCH_DAEMON: '0' }, encoding: 'utf8' },
    );
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
        help: { args: [BIN, 'sessions', 'get', '--help'] },
        http: {
          args: [BIN, 'sessions', 'get', sessionId, '--json', '--base-url', info.baseUrl, '--api-key', info.apiKey],
        },
        embedded: { args: [BIN, 'sessions', 'get', embId, '--json'], env: { PAYORCH_HOME: home, PAYORCH_DAEMON: '1' } },
        inprocess: {
          args: [BIN, 'sessions', 'get', embId2, '--json'],
          env: { PAYORCH_HOME: home2, PAYORCH_DAEMON: '0' },
        },
      });
    } finally {
      spawnSync(process.execPath, [BIN, 'server', 'stop', '--all'], {
        env: { ...process.env, PAYORCH_HOME: home },
        stdio: 'ignore',
      });
    }
    nodeBase = t.node;
    results.cli.node_e0_ms = nodeBase;
    results.cli.version_ratio = judged(t.version / nodeBase, TARGETS.cli.version_ratio);
    results.cli.help_ratio = judged(t.help / nodeBase, TARGETS.cli.help_ratio);
    results.cli.get_json_http_ratio = judged(t.http / nodeBase, TARGETS.cli.get_json_http_ratio);
    results.cli.get_json_embedded_ratio = judged(t.embedded / nodeBase, TARGETS.cli.get_json_embedded_ratio);
    results.cli.get_json_inprocess_ratio = judged(t.inprocess / nodeBase, TARGETS.cli.get_json_inprocess_ratio);
    results.cli.ms = t;
  }

  // --------------------------------------------------------------------------------------------- server
  // The server's CPU per request ÷ the bare node:http server's, in the same run: what the server costs beyond
  // HTTP and JSON on this machine, whatever share of the cores the load generator takes.
  if (want('server')) {
    log('server CPU per request…');
    const body = JSON.stringify({ amount: 1999, currency: 'usd', metadata: { order: '1234' } });
    const { child: bareChild, info: bareInfo } = await startChild(join(here, 'bare-server.js'), [
      String(Buffer.byteLength(created.text)),
    ]);
    const bare = { pid: bareChild.pid, url: bareInfo.url };
    const auth = { authorization: `Bearer ${info.apiKey}` };
    loadPosts(bare.url + '/x', body, {}, 1000); // warm-up
    loadPosts(info.baseUrl + '/create-session', body, auth, 1000); // warm-up
    results.server.create_session = await paired(
      bare,
      body,
      server.pid,
      () => loadPosts(info.baseUrl + '/create-session', body, auth, SECONDS * 1000),
      { targets: TARGETS.create_session },
    );

    // confirm-payment: one confirm per session (each with its own client secret), card tok_visa.
    const confirmBody = JSON.stringify({ token_id: 'tok_visa' });
    const perRound =
      Math.ceil(Math.max(results.server.create_session.rps_ratio.server / 2, 500) * SECONDS * 1.5) + 1000;
    const targetFiles = [];
    for (let r = 0; r < ROUNDS; r++)
      targetFiles.push(await confirmTargets(info, perRound, join(tmp, `confirm-targets-${r}.json`)));
    results.server.confirm_payment = await paired(
      bare,
      confirmBody,
      server.pid,
      (r) => loadPosts(info.baseUrl, confirmBody, {}, SECONDS * 1000, targetFiles[r]),
      { targets: TARGETS.confirm_payment },
    );

    // journal entry: a two-line entry between two system accounts (no balance limits), same body each time.
    const jeBody = await journalBody(info);
    results.server.journal_entry = await paired(
      bare,
      jeBody,
      server.pid,
      () => loadPosts(info.baseUrl + '/journal-entries', jeBody, auth, SECONDS * 1000),
      { targets: TARGETS.journal_entry },
    );
  }

  // ------------------------------------------------------------------------------------------- webhooks
  // create-session on a server with one webhook endpoint (every event) whose receiver answers 200: a fresh server,
  // so that the figures above are untouched. Each round's CPU counts until its deliveries are done (else the next
  // bare round shares the machine with them). Part of `server`; BENCH_ONLY=webhooks runs it alone.
  if (want('server') || want('webhooks')) {
    log('server CPU per request with a webhook endpoint…');
    const { child: rx, info: rxInfo } = await startChild(join(here, 'receiver.js'));
    const { child: hookedChild, info: hooked } = await startChild(join(here, 'serve.js'), [
      join(tmp, 'server-webhooks'),
    ]);
    const we = await api(hooked, 'POST', '/webhook-endpoints', { url: rxInfo.url });
    if (!we.id) throw new Error(`webhook endpoint: ${JSON.stringify(we)}`);
    const sample = await call(hooked, 'POST', '/create-session', { amount: 1999, currency: 'usd' });
    const { child: whBareChild, info: whBareInfo } = await startChild(join(here, 'bare-server.js'), [
      String(Buffer.byteLength(sample.text)),
    ]);
    const whBody = JSON.stringify({ amount: 1999, currency: 'usd', metadata: { order: '1234' } });
    const whAuth = { authorization: `Bearer ${hooked.apiKey}` };
    loadPosts(whBareInfo.url + '/x', whBody, {}, 1000); // warm-up
    loadPosts(hooked.baseUrl + '/create-session', whBody, whAuth, 1000); // warm-up
    const count = async (status) =>
      (await api(hooked, 'GET', `/webhook-endpoints/${we.id}/deliveries?status=${status}&limit=1`)).total_count;
    const drained = async () => {
      const until = Date.now() + 120_000;
      while ((await count('pending')) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 250));
    };
    await drained();
    const figures = await paired(
      { pid: whBareChild.pid, url: whBareInfo.url },
      whBody,
      hookedChild.pid,
      () => loadPosts(hooked.baseUrl + '/create-session', whBody, whAuth, SECONDS * 1000),
      { after: drained, receiverPid: rx.pid },
    );
    results.server.create_session_webhook = {
      ...figures,
      deliveries_at_end: {
        succeeded: await count('succeeded'),
        pending: await count('pending'),
        failed: await count('failed'),
      },
    };
  }

  // ---------------------------------------------------------------------------------------------- scale
  if (want('scale')) {
    log(`scale (1k vs ${ROWS} rows)…`);
    // A server of its own: issue 6's RSS figure is the memory 1M rows cost, not the heap the load figures above left
    // behind on the shared server (after ~300k requests of load that one measured ~210 MB; fresh, ~120 MB).
    const { child: scaleServer, info: scaleInfo } = await startChild(join(here, 'serve.js'), [join(tmp, 'scale')]);
    await call(scaleInfo, 'POST', '/create-session', { amount: 1999, currency: 'usd' });
    const listP50 = async () => {
      const times = [];
      for (let i = 0; i < 200; i++) {
        const t = performance.now();
        const r = await call(scaleInfo, 'GET', '/sessions?limit=10');
        if (r.status !== 200) throw new Error(r.text);
        times.push(performance.now() - t);
      }
      return median(times);
    };
    const dbPath = join(tmp, 'scale', 'payorch.db');
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
    results.scale.list_ratio = judged(
      results.scale.list_p50_big_ms / results.scale.list_p50_1k_ms,
      TARGETS.scale.list_ratio,
    );
    results.scale.server_rss_mb = judged(rssMb(scaleServer.pid), TARGETS.scale.server_rss_mb);
    results.scale.db_bytes_per_1k_sessions = Math.round(((sizeBig - size1k) / (ROWS - 1000)) * 1000);
    db.close();
  }
  server.kill('SIGTERM');

  // ------------------------------------------------------------------------------------------- postgres
  if (wantPostgres) {
    log('postgres: a throwaway cluster (fsync on)…');
    results.postgres = await postgresPart({ tmp, seconds: SECONDS, rounds: ROUNDS, rate: PG_RATE, log });
  }

  // ------------------------------------------------------------------------------------------- snapshots
  // bench/snapshot.js: a server with 10k (then 100k) sessions and their payments, a snapshot restored over HTTP.
  if (want('snapshot')) {
    log('snapshot restore (10k and 100k sessions with payments; seeding 100k takes minutes)…');
    const r = spawnSync(process.execPath, [join(here, 'snapshot.js'), '10000', '100000'], {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (r.status !== 0) throw new Error('bench/snapshot.js failed');
    for (const line of r.stdout.trim().split('\n')) {
      const x = JSON.parse(line);
      const key =
        x.sessions === 10_000
          ? 'restore_10k_ms'
          : x.sessions === 100_000
            ? 'restore_100k_ms'
            : `restore_${x.sessions}_ms`;
      results.snapshot ??= {};
      results.snapshot[key] = {
        ...judged(x.restore_ms, TARGETS.snapshot[key]),
        paused_ms: x.paused_ms,
        first_restore_ms: x.first_restore_ms,
        save_ms: x.save_ms,
        db_bytes: x.db_bytes,
      };
    }
  }

  // --------------------------------------------------------------------------------------------- report
  // One row a figure: what it is, the value measured, its target and verdict, then what the value is a ratio of.
  const f = (x, d = 2) => (typeof x === 'number' ? x.toFixed(d) : String(x));
  const rows = [];
  const row = (label, x, detail = '', unit = '×', digits = 2) => {
    const figure = typeof x === 'number' ? { value: x } : x;
    const target =
      figure.target === undefined
        ? ['—', '']
        : [`≤ ${f(figure.target, unit === '×' ? 1 : 0)}${unit}`, figure.met ? 'met' : 'not met'];
    rows.push({ figure, cells: [label, `${f(figure.value, digits)}${unit}`, ...target, detail] });
  };
  const serverRows = (label, x) => {
    row(
      `${label}: CPU per request ÷ bare node:http`,
      x.cpu_ratio,
      `all threads ${f(x.cpu_ratio.server, 0)} vs ${f(x.cpu_ratio.bare, 0)} µs; main thread ${f(x.main_ratio.value)}×, ${f(x.main_ratio.server, 0)} vs ${f(x.main_ratio.bare, 0)} µs`,
    );
    row(`${label}: p99 at 50 connections ÷ bare`, x.p99_ratio, `${f(x.p99_ratio.server)} vs ${f(x.p99_ratio.bare)} ms`);
    row(`${label}: req/s ÷ bare`, x.rps_ratio, `${f(x.rps_ratio.server, 0)} vs ${f(x.rps_ratio.bare, 0)} req/s`);
  };
  if (results.server.create_session) {
    serverRows('create-session', results.server.create_session);
    serverRows('journal entry (two lines)', results.server.journal_entry);
    serverRows('confirm-payment (tok_visa)', results.server.confirm_payment);
  }
  const wh = results.server.create_session_webhook;
  if (wh) {
    row(
      'create-session, 1 webhook endpoint: CPU per request until delivered ÷ bare',
      wh.cpu_ratio,
      `all threads ${f(wh.cpu_ratio.server, 0)} vs ${f(wh.cpu_ratio.bare, 0)} µs; deliveries at the end ${JSON.stringify(wh.deliveries_at_end)}`,
    );
    row(
      'create-session, 1 webhook endpoint: req/s ÷ bare',
      wh.rps_ratio,
      `${f(wh.rps_ratio.server, 0)} vs ${f(wh.rps_ratio.bare, 0)} req/s`,
    );
  }
  if (want('cli')) {
    row('CLI `--version` ÷ node -e 0', results.cli.version_ratio);
    row('CLI `sessions get --help` ÷ node -e 0', results.cli.help_ratio);
    row('CLI `sessions get --json` (HTTP) ÷ node -e 0', results.cli.get_json_http_ratio);
    row('CLI `sessions get --json` (no key: background server) ÷ node -e 0', results.cli.get_json_embedded_ratio);
    row(
      'CLI `sessions get --json` (no key, no terminal: in process) ÷ node -e 0',
      results.cli.get_json_inprocess_ratio,
    );
  }
  if (want('scale')) {
    row(
      `list p50 ${ROWS} rows ÷ 1k rows`,
      results.scale.list_ratio,
      `${f(results.scale.list_p50_big_ms)} vs ${f(results.scale.list_p50_1k_ms)} ms`,
    );
    row(`server RSS after ${ROWS} rows`, results.scale.server_rss_mb, '', ' MB', 0);
    row('database bytes per 1k sessions', results.scale.db_bytes_per_1k_sessions, '', '', 0);
  }
  const pg = results.postgres;
  if (pg) {
    const us = (x) => f(x, 0);
    // Answers that were not a success (PostgreSQL's 503 when a transaction kept conflicting, say) are in the figures.
    const failed = (x) => {
      const n = Object.entries(x.statuses).reduce((sum, [code, k]) => sum + (Number(code) >= 400 ? k : 0), x.errors);
      const all = Object.values(x.statuses).reduce((a, b) => a + b, x.errors);
      return n ? `; ${n} of ${all} answers failed (${JSON.stringify(x.statuses)})` : '';
    };
    for (const [w, label] of [
      ['create_session', 'create-session'],
      ['journal_entry', 'journal entry'],
      ['confirm_payment', 'confirm-payment'],
    ]) {
      const { sqlite: l, postgres: p } = pg.workloads[w];
      row(
        `${label} on PostgreSQL, ${pg.rate} req/s: CPU per request, server + PostgreSQL`,
        p.fixed.server + p.fixed.postgres,
        `server ${us(p.fixed.server)} + PostgreSQL ${us(p.fixed.postgres)} µs; on SQLite ${us(l.fixed.server)} µs${failed(p.fixed)}`,
        ' µs',
        0,
      );
      row(
        `${label} on PostgreSQL: p99 at ${pg.rate} req/s`,
        p.fixed.p99_ms,
        `on SQLite ${f(l.fixed.p99_ms)} ms; bare node:http ${f(pg.workloads[w].bare_fixed.p99_ms)} ms; answered ${us(p.fixed.rps)} and ${us(l.fixed.rps)} req/s`,
        ' ms',
      );
      // Issue 44's targets, from the saturated loads of the same rounds: PostgreSQL at least half of SQLite's req/s
      // (SQLite's ÷ PostgreSQL's ≤ 2), at most 3× its CPU per request (server process + PostgreSQL's).
      row(
        `${label}, saturated: SQLite req/s ÷ PostgreSQL's`,
        judged(l.saturated.rps / p.saturated.rps, 2),
        `${us(l.saturated.rps)} vs ${us(p.saturated.rps)} req/s (PostgreSQL ${f(p.saturated.rps / l.saturated.rps)}× SQLite's)`,
      );
      row(
        `${label}, saturated: CPU per request on PostgreSQL (server + PostgreSQL) ÷ SQLite's`,
        judged((p.saturated.server + p.saturated.postgres) / l.saturated.server, 3),
        `${us(p.saturated.server)} + ${us(p.saturated.postgres)} vs ${us(l.saturated.server)} µs`,
      );
      row(
        `${label} on PostgreSQL, saturated (50 connections): req/s`,
        p.saturated.rps,
        `server ${us(p.saturated.server)} + PostgreSQL ${us(p.saturated.postgres)} µs a request; on SQLite ${us(l.saturated.rps)} req/s, ${us(l.saturated.server)} µs${failed(p.saturated)}`,
        '',
        0,
      );
    }
    const { one, two } = pg.processes;
    row(
      'create-session on PostgreSQL, saturated: req/s of one server process ÷ two on one database',
      judged(one.rps / two.rps, 1),
      `${us(two.rps)} vs ${us(one.rps)} req/s; servers ${us(two.server)} + PostgreSQL ${us(two.postgres)} µs a request vs ${us(one.server)} + ${us(one.postgres)}; machine idle ${f(two.idle, 0)}% vs ${f(one.idle, 0)}%`,
    );
    // 10,000 create-sessions a second: CPU per request at saturation × 10,000 = cores; a server process's HTTP
    // thread serves at most 1 s ÷ its CPU per request.
    const c = pg.workloads.create_session.postgres.saturated;
    pg.estimate_10k_create = {
      server_cores: (10_000 * c.server) / 1e6,
      postgres_cores: (10_000 * c.postgres) / 1e6,
      server_processes_at_full_thread: Math.ceil((10_000 * c.main) / 1e6),
    };
    const e = pg.estimate_10k_create;
    row(
      '10,000 create-sessions/s on PostgreSQL: server cores + PostgreSQL cores',
      { value: `${f(e.server_cores, 1)} + ${f(e.postgres_cores, 1)}` },
      `10,000 × ${us(c.server)} µs + 10,000 × ${us(c.postgres)} µs; ≥ ${e.server_processes_at_full_thread} server processes (HTTP thread ${us(c.main)} µs a request)`,
      '',
    );
    const adv = pg.advance;
    if (adv) {
      const v = advanceVerdicts(adv);
      row(
        `clock advance of 2 days over ${adv.sessions.toLocaleString('en-US')} sessions: PostgreSQL ÷ SQLite`,
        v.once_postgres_over_sqlite,
        `${us(adv.once.postgres.median_ms)} vs ${us(adv.once.sqlite.median_ms)} ms; rounds' ratios ${adv.once.postgres_over_sqlite.rounds.join(', ')}`,
      );
      for (const e of ['postgres', 'sqlite'])
        row(
          `clock advance of 1 day under ${adv.clients} clients creating and confirming, on ${e === 'postgres' ? 'PostgreSQL' : 'SQLite'}: the worst`,
          v[`load_worst_ms_${e}`],
          `each: ${adv.load[e].advances_ms.join(', ')} ms; sessions expired ${adv.load[e].expired.join(', ')}; ${adv.load[e].requests} requests ${JSON.stringify(adv.load[e].statuses)}`,
          ' ms',
          0,
        );
    }
  }
  for (const [key, x] of Object.entries(results.snapshot ?? {})) {
    const n = key.replace(/^restore_|_ms$/g, '');
    row(
      `snapshot restore, ${n} sessions with payments (running server, HTTP)`,
      x,
      `requests held ${f(x.paused_ms, 0)} ms; first restore (no spare copy yet) ${f(x.first_restore_ms, 0)} ms; save ${f(x.save_ms, 0)} ms; ${f(x.db_bytes / 1e6, 0)} MB`,
      ' ms',
      0,
    );
  }
  const table = [['figure', 'measured', 'target', '', 'of'], ...rows.map((r) => r.cells)];
  const widths = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)));
  for (const r of table)
    process.stdout.write(
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd() + '\n',
    );
  const judgedRows = rows.filter((r) => r.figure.target !== undefined);
  results.targets_met = { met: judgedRows.filter((r) => r.figure.met).length, of: judgedRows.length };
  const notes = [`${results.cores} cores`];
  if (nodeBase) notes.unshift(`node -e 0 = ${f(nodeBase, 1)} ms`);
  const loads = Object.entries(results.server);
  if (loads.length) {
    notes.push(`${SECONDS}s per load, ${ROUNDS} alternated bare/endpoint rounds per figure, the median shown`);
    if (results.server.create_session)
      notes.push(`create-session CPU ratios by round ${results.server.create_session.cpu_ratio.rounds.join(', ')}`);
    notes.push(
      `statuses: ${loads.map(([k, x]) => `${k} ${JSON.stringify(x.statuses)}${x.errors ? `, ${x.errors} errors` : ''}`).join('; ')}`,
    );
  }
  if (pg) {
    const st = (x) => `${JSON.stringify(x.statuses)}${x.errors ? `, ${x.errors} errors` : ''}`;
    const pgLoads = Object.entries(pg.workloads).map(
      ([w, x]) =>
        `${w} ${st(x.postgres.fixed)} ${st(x.postgres.saturated)} (SQLite ${st(x.sqlite.fixed)} ${st(x.sqlite.saturated)})`,
    );
    notes.push(
      `postgres part: ${pg.postgres_version}, fsync on, ${pg.seconds}s per load, ${pg.rounds} alternated rounds, medians; p99 at a fixed rate counts from each request's scheduled send; statuses: ${pgLoads.join('; ')}; two processes ${st(pg.processes.two)}, one ${st(pg.processes.one)}`,
    );
  }
  process.stdout.write(`targets met: ${results.targets_met.met} of ${results.targets_met.of}\n(${notes.join('; ')})\n`);
  writeFileSync(
    join(here, ONLY ? `results.${[...ONLY].sort().join('+')}.json` : 'results.json'),
    JSON.stringify(results, null, 2) + '\n',
  );
} finally {
  stopChildren();
  await new Promise((r) => setTimeout(r, 300));
  if (existsSync(tmp)) rmSync(tmp, { recursive: true, force: true });
}
