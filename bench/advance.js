#!/usr/bin/env node
// `node bench/advance.js [once|load|both] [SERVE_A SERVE_B…]`: how long a test clock's advance takes when it meets many
// objects (issue 44, "Due work in sets"), on SQLite and on PostgreSQL (a throwaway cluster, bench/pg-cluster.js:
// fsync on), each engine's server the real one (bench/serve.js, or each SERVE given: a build's bench/serve.js, to
// compare builds) over HTTP.
//
//   once  ADVANCE_SESSIONS sessions (default 5,000) made over HTTP (50 at a time), then one
//         `POST /test-helpers/advance-clock` of 2 days, which expires every one of them: its wall time at the client.
//         A fresh server (and database) per run; ADVANCE_ROUNDS rounds (default 3), engines and builds alternated
//         (in reverse order every other round); each time is the median of its rounds, and PostgreSQL ÷ SQLite the
//         median of the rounds' ratios (a round's two runs follow each other: a slow phase of the machine hits both).
//   load  ADVANCE_CLIENTS clients (default 20), each making two sessions and confirming the first (tok_visa), over
//         and over, for ADVANCE_LOAD_SECONDS (default 30); meanwhile an advance of 1 day, ADVANCE_EVERY_MS (default
//         3000) after the previous one ended (it expires the sessions left unconfirmed since). The figure is the
//         worst advance's wall time; every advance's time, the clients' requests and their statuses are printed (a
//         confirm of a session an advance expired first answers 401 or 409, as it should). An advance that does not
//         answer 200 ends the bench.
//
// Targets (issue 44): the `once` advance on PostgreSQL ≤ 2× SQLite's; the worst 1-day advance under load ≤ 5 s.
// Prints JSON on stdout; progress and the verdicts on stderr. bench/postgres.js runs it as part of `npm run bench`.
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, startChild } from './children.js';

const here = dirname(fileURLToPath(import.meta.url));
const DAY = 86_400;

export const ADVANCE_TARGETS = { postgres_over_sqlite: 2, worst_under_load_ms: 5000 };

/** One request to the server `info` with its key (or `key`): status, parsed body, wall ms. */
async function request(info, method, path, body, key = info.apiKey) {
  const t0 = performance.now();
  const res = await fetch(info.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, ms: performance.now() - t0 };
}

/** `n` sessions on the server, `parallel` requests at a time. */
async function makeSessions(info, n, parallel = 50) {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      const r = await request(info, 'POST', '/create-session', { amount: 1999, currency: 'usd' });
      if (r.status !== 201) throw new Error(`create-session: ${r.status} ${JSON.stringify(r.body)}`);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/** An advance of `seconds`: its wall ms and how many sessions it expired (and how many `ran` entries it had). */
async function advance(info, seconds) {
  const r = await request(info, 'POST', '/test-helpers/advance-clock', { seconds });
  if (r.status !== 200) throw new Error(`advance-clock: ${r.status} ${JSON.stringify(r.body)}`);
  const expiry = r.body.ran.filter((x) => x.name === 'session expiry');
  return { ms: r.ms, expired: expiry.reduce((a, x) => a + x.count, 0), entries: r.body.ran.length };
}

/** Stops a child and resolves once it has exited. */
function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  return new Promise((r) => child.once('exit', r)).finally(() => clearTimeout(timer));
}

/**
 * Runs the bench; resolves with its figures. `mode`: once, load or both; `serves`: the builds' serve.js (this
 * build's when empty); `engines`: sqlite, postgres; `log`: progress.
 */
export async function advanceBench({
  mode = 'both',
  serves = [join(here, 'serve.js')],
  engines = ['sqlite', 'postgres'],
  sessions = Number(process.env.ADVANCE_SESSIONS ?? 5000),
  rounds = Number(process.env.ADVANCE_ROUNDS ?? 3),
  clients = Number(process.env.ADVANCE_CLIENTS ?? 20),
  loadSeconds = Number(process.env.ADVANCE_LOAD_SECONDS ?? 30),
  everyMs = Number(process.env.ADVANCE_EVERY_MS ?? 3000),
  log = (s) => process.stderr.write(s + '\n'),
  cluster: given,
} = {}) {
  const tmp = mkdtempSync(join(tmpdir(), 'payorch-advance-'));
  const cluster =
    given ?? (engines.includes('postgres') ? await (await import('./pg-cluster.js')).startCluster() : undefined);
  let dbs = 0;
  const children = new Set();
  /** A fresh server of build `b` on `engine`. */
  const start = async (b, engine) => {
    let env = {};
    if (engine === 'postgres') {
      const { default: postgres } = await import('postgres');
      const admin = postgres(cluster.url('postgres'), { max: 1, onnotice: () => {} });
      const name = `advance_${process.pid}_${dbs++}`;
      await admin.unsafe(`CREATE DATABASE ${name}`);
      await admin.end();
      env = { BENCH_DATABASE: cluster.url(name), BENCH_SEALING_KEY: randomBytes(32).toString('hex') };
    }
    const { child, info } = await startChild(
      serves[b],
      [join(tmp, `server-${dbs}-${children.size}-${Date.now()}`)],
      [],
      env,
    );
    children.add(child);
    return {
      info,
      close: async () => {
        await stop(child);
        children.delete(child);
      },
    };
  };
  const label = (b, engine) => (serves.length > 1 ? `${engine} [${b}] ${serves[b]}` : engine);
  const pairs = [];
  for (let b = 0; b < serves.length; b++) for (const e of engines) pairs.push([b, e]);
  const out = {
    sessions,
    rounds,
    clients,
    load_seconds: loadSeconds,
    every_ms: everyMs,
    builds: serves,
    once: {},
    load: {},
  };
  try {
    if (mode === 'once' || mode === 'both') {
      const runs = {};
      for (let r = 0; r < rounds; r++) {
        for (const [b, e] of r % 2 ? [...pairs].reverse() : pairs) {
          const s = await start(b, e);
          try {
            await makeSessions(s.info, sessions);
            const a = await advance(s.info, 2 * DAY);
            // The server's own tick may take a few whose time came in real time while the advance ran.
            const left = (await request(s.info, 'GET', '/sessions?status=requires_payment_method&limit=1')).body;
            if (left.total_count !== 0 || a.expired < sessions * 0.9)
              throw new Error(
                `${label(b, e)}: the advance expired ${a.expired} of ${sessions}, ${left.total_count} left`,
              );
            (runs[label(b, e)] ??= []).push(Math.round(a.ms));
            log(
              `advance: ${label(b, e)} round ${r + 1}: 2 days after ${sessions} sessions ${Math.round(a.ms)} ms (${a.entries} ran entries)`,
            );
          } finally {
            await s.close();
          }
        }
      }
      for (const [k, ms] of Object.entries(runs)) out.once[k] = { median_ms: median(ms), runs_ms: ms };
      // Each round's ratio (its two loads ran one after the other, so a slow phase of the machine hits both).
      if (runs.sqlite && runs.postgres)
        out.once.postgres_over_sqlite = {
          median: median(runs.postgres.map((ms, r) => ms / runs.sqlite[r])),
          rounds: runs.postgres.map((ms, r) => Math.round((ms / runs.sqlite[r]) * 100) / 100),
        };
    }
    if (mode === 'load' || mode === 'both') {
      for (const [b, e] of pairs) {
        const s = await start(b, e);
        try {
          out.load[label(b, e)] = await underLoad(s.info, { clients, loadSeconds, everyMs });
          const l = out.load[label(b, e)];
          log(
            `advance: ${label(b, e)} under load: worst ${l.worst_ms} ms of ${l.advances_ms.join(', ')}; ${l.requests} requests ${JSON.stringify(l.statuses)}`,
          );
        } finally {
          await s.close();
        }
      }
    }
  } finally {
    for (const c of children) await stop(c);
    if (!given) cluster?.destroy();
    rmSync(tmp, { recursive: true, force: true });
  }
  return out;
}

/** The mixed load on one server, with an advance of 1 day every `everyMs`: the advances' times and the load's counts. */
async function underLoad(info, { clients, loadSeconds, everyMs }) {
  let running = true;
  const statuses = {};
  let requests = 0;
  const note = (r) => {
    requests++;
    statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    return r;
  };
  /** A request's answer, or its failure to get one (counted by its error code). */
  const send = async (...args) => {
    try {
      return note(await request(info, ...args));
    } catch (err) {
      const code = `failed: ${err.cause?.code ?? err.message} at ${Math.round(performance.now() - began)} ms`;
      statuses[code] = (statuses[code] ?? 0) + 1;
      return { status: 0 };
    }
  };
  const client = async () => {
    while (running) {
      const a = await send('POST', '/create-session', { amount: 1999, currency: 'usd' });
      await send('POST', '/create-session', { amount: 1999, currency: 'usd' });
      if (a.status === 201)
        await send('POST', `/confirm-payment/${a.body.id}`, { token_id: 'tok_visa' }, a.body.client_secret);
    }
  };
  const began = performance.now();
  const load = Array.from({ length: clients }, client);
  const advances = [];
  const expired = [];
  const end = performance.now() + loadSeconds * 1000;
  await new Promise((r) => setTimeout(r, Math.min(everyMs, 2000)));
  while (performance.now() < end) {
    const a = await advance(info, DAY);
    advances.push(Math.round(a.ms));
    expired.push(a.expired);
    await new Promise((r) => setTimeout(r, everyMs));
  }
  running = false;
  await Promise.all(load);
  // An advance that did not answer 200 throws (advance()): every one counted here completed.
  return { worst_ms: Math.max(...advances), advances_ms: advances, expired, requests, statuses };
}

/** The targets' verdicts for figures of one build (this one's: labels are the engines' names). */
export function advanceVerdicts(out) {
  const v = {};
  const ratio = out.once.postgres_over_sqlite?.median;
  if (ratio !== undefined) {
    const value = Math.round(ratio * 100) / 100;
    v.once_postgres_over_sqlite = {
      value,
      target: ADVANCE_TARGETS.postgres_over_sqlite,
      met: value <= ADVANCE_TARGETS.postgres_over_sqlite,
    };
  }
  for (const [e, l] of Object.entries(out.load))
    v[`load_worst_ms_${e}`] = {
      value: l.worst_ms,
      target: ADVANCE_TARGETS.worst_under_load_ms,
      met: l.worst_ms <= ADVANCE_TARGETS.worst_under_load_ms,
    };
  return v;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [mode = 'both', ...serves] = process.argv.slice(2);
  if (!['once', 'load', 'both'].includes(mode)) {
    process.stderr.write('usage: node bench/advance.js [once|load|both] [SERVE_A SERVE_B…]\n');
    process.exit(2);
  }
  const engines = (process.env.ADVANCE_ENGINES ?? 'sqlite,postgres').split(',').map((x) => x.trim());
  const out = await advanceBench({ mode, serves: serves.length ? serves : undefined, engines });
  if (serves.length <= 1) out.verdicts = advanceVerdicts(out);
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  for (const [k, x] of Object.entries(out.verdicts ?? {}))
    process.stderr.write(`${k}: ${x.value} (target ≤ ${x.target}) ${x.met ? 'met' : 'not met'}\n`);
}
