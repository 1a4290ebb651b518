// The `postgres` part of `npm run bench` (bench/run.js): the server on PostgreSQL beside the server on SQLite, in
// the same run, on a throwaway cluster (bench/pg-cluster.js: fsync on, as a real server runs).
//
//   - create-session, a two-line journal entry and confirm-payment (bench/run.js's workloads), on each engine:
//       at a fixed rate (`rate` requests a second, open loop): CPU per request of the server process and of
//       PostgreSQL's processes (all of the cluster's), and p99 from each request's scheduled send;
//       at saturation (50 connections, closed loop): req/s and the same CPU per request.
//     The engines' loads alternate (SQLite first in even rounds, PostgreSQL first in odd ones), so that a burst of
//     other work on the machine hits both; each figure is the median of its rounds.
//   - create-session at saturation on one server process against two on the same database (the load split between
//     them), alternated the same way: req/s and CPU per request (both processes' together, and PostgreSQL's).
//   - a clock advance that meets many sessions (bench/advance.js, issue 44): 2 days after 5,000 sessions on each
//     engine, alternated; and the worst 1-day advance while 20 clients create and confirm.
//
// The servers, PostgreSQL and the load generator share the machine's cores: a req/s figure is this machine's, a CPU
// per request is what the bench carries to other machines.
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { confirmTargets, cpuMs, journalBody, loadPosts, median, startChild } from './children.js';
import { measure } from './per-request.js';
import { startCluster } from './pg-cluster.js';
import { advanceBench } from './advance.js';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The load `run` on the servers of `engine` ({servers: [{pid}], cluster}), measured: the load's figures, and in µs
 * of CPU per request `server` (every server process, all threads), `main` (the first server's HTTP thread) and
 * `postgres` (the cluster's processes; 0 on SQLite).
 */
async function costs({ servers, cluster }, run) {
  const pg0 = cluster ? cluster.cpuMs() : 0;
  const others0 = servers.slice(1).map((s) => cpuMs(s.pid));
  const m = await measure(servers[0].pid, run);
  const per = (ms) => (ms * 1000) / m.requests;
  const pg = cluster ? per(cluster.cpuMs() - pg0) : 0;
  const others = servers.slice(1).reduce((sum, s, i) => sum + per(cpuMs(s.pid) - others0[i]), 0);
  const { requests, errors, statuses, rps, p50_ms, p99_ms } = m;
  return {
    requests,
    errors,
    statuses,
    rps,
    p50_ms,
    p99_ms,
    server: m.server + others,
    main: m.main,
    postgres: pg,
    gen: m.gen,
    idle: m.idle,
  };
}

/** Stops a child (SIGTERM; SIGKILL if it has not exited 10 s later) and resolves once it has exited. */
function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  return new Promise((r) => child.once('exit', r)).finally(() => clearTimeout(timer));
}

/** The median of each numeric figure over `rounds` (and every round kept), statuses summed. */
function summary(rounds) {
  const out = { rounds };
  for (const k of ['rps', 'p50_ms', 'p99_ms', 'server', 'main', 'postgres', 'gen', 'idle'])
    out[k] = median(rounds.map((r) => r[k]));
  out.statuses = {};
  for (const r of rounds)
    for (const [code, n] of Object.entries(r.statuses)) out.statuses[code] = (out.statuses[code] ?? 0) + n;
  out.errors = rounds.reduce((n, r) => n + r.errors, 0);
  return out;
}

/**
 * Runs the part; resolves with its figures. `tmp`: a folder for the servers' data directories; `seconds`: each
 * load's length; `rounds`: alternated rounds per figure; `rate`: the fixed rate (requests a second); `log`: progress.
 */
export async function postgresPart({ tmp, seconds, rounds, rate, log }) {
  const cluster = await startCluster();
  const started = [];
  try {
    const admin = postgres(cluster.url('postgres'), { max: 1, onnotice: () => {} });
    await admin.unsafe('CREATE DATABASE bench');
    await admin.end();
    // A throwaway sealing key, the same for both processes of the sandbox.
    const pgEnv = { BENCH_DATABASE: cluster.url('bench'), BENCH_SEALING_KEY: randomBytes(32).toString('hex') };
    const start = async (name, env) => {
      const { child, info } = await startChild(join(here, 'serve.js'), [join(tmp, name)], [], env);
      started.push(child);
      return { pid: child.pid, info, child };
    };
    const lite = await start('pg-part-sqlite', {});
    const pgA = await start('pg-part-postgres-a', pgEnv);
    // The floor of p99 at the fixed rate on this machine: a bare node:http server (bench/bare-server.js) under the
    // same open-loop load, in the same rounds (the generator's timers and the machine's other work are in every p99).
    const { child: bareChild, info: bareInfo } = await startChild(join(here, 'bare-server.js'), ['1000']);
    started.push(bareChild);
    const bare = { servers: [{ pid: bareChild.pid }], cluster: null };
    const engines = { sqlite: { servers: [lite], cluster: null }, postgres: { servers: [pgA], cluster } };
    const names = Object.keys(engines);
    const order = (r) => (r % 2 ? [...names].reverse() : names);
    const ms = seconds * 1000;
    const createBody = JSON.stringify({ amount: 1999, currency: 'usd', metadata: { order: '1234' } });
    const confirmBody = JSON.stringify({ token_id: 'tok_visa' });
    const auth = (info) => ({ authorization: `Bearer ${info.apiKey}` });
    const results = {
      postgres_version: cluster.version(),
      rate,
      seconds,
      rounds,
      workloads: {},
    };

    // Each workload's load on an engine: () => a load (fixed rate or saturation), given its round's targets.
    const workloads = {
      create_session: async () => {
        const load = (e) => (mode) =>
          loadPosts(e.servers[0].info.baseUrl + '/create-session', createBody, auth(e.servers[0].info), ms, undefined, {
            rate: mode === 'fixed' ? rate : undefined,
          });
        return Object.fromEntries(names.map((n) => [n, load(engines[n])]));
      },
      journal_entry: async () => {
        const out = {};
        for (const n of names) {
          const { info } = engines[n].servers[0];
          const body = await journalBody(info);
          out[n] = (mode) =>
            loadPosts(info.baseUrl + '/journal-entries', body, auth(info), ms, undefined, {
              rate: mode === 'fixed' ? rate : undefined,
            });
        }
        return out;
      },
      // One new session per confirm, made before the rounds: at the fixed rate `rate × seconds` of them, at
      // saturation as many as the engine's create-session rate allows (a load whose sessions run out ends early).
      confirm_payment: async () => {
        const out = {};
        for (const n of names) {
          const { info } = engines[n].servers[0];
          const sat = results.workloads.create_session?.[n].saturated.rps ?? 500;
          const files = { fixed: [], saturated: [] };
          for (let r = 0; r < rounds; r++) {
            files.fixed.push(
              await confirmTargets(info, Math.ceil(rate * seconds) + 50, join(tmp, `pg-${n}-f${r}.json`)),
            );
            files.saturated.push(
              await confirmTargets(info, Math.ceil(sat * 0.6 * seconds) + 200, join(tmp, `pg-${n}-s${r}.json`)),
            );
          }
          const next = { fixed: 0, saturated: 0 };
          out[n] = (mode) =>
            loadPosts(info.baseUrl, confirmBody, {}, ms, files[mode][next[mode]++], {
              rate: mode === 'fixed' ? rate : undefined,
            });
        }
        return out;
      },
    };

    // Two server processes on the database against one: create-session at saturation, the load split between them.
    // Run right after the create-session rounds, on the same database as they left it (the journal entry's and
    // confirm-payment's loads, which follow, write other tables and leave their own work behind). The second
    // process is stopped after.
    const twoProcesses = async () => {
      log('postgres: create-session on one server process against two on one database…');
      const pgB = await start('pg-part-postgres-b', pgEnv);
      const path = '/create-session';
      const setups = {
        one: { engine: { servers: [pgA], cluster }, url: pgA.info.baseUrl + path },
        two: { engine: { servers: [pgA, pgB], cluster }, url: `${pgA.info.baseUrl}${path},${pgB.info.baseUrl}${path}` },
      };
      const keys = Object.keys(setups);
      loadPosts(setups.two.url, createBody, auth(pgA.info), 1000); // warm-up of the second process
      const each = Object.fromEntries(keys.map((k) => [k, []]));
      for (let r = 0; r < rounds; r++)
        for (const k of r % 2 ? [...keys].reverse() : keys)
          each[k].push(await costs(setups[k].engine, () => loadPosts(setups[k].url, createBody, auth(pgA.info), ms)));
      results.processes = Object.fromEntries(keys.map((k) => [k, summary(each[k])]));
      await stop(pgB.child);
    };

    for (const [w, prepare] of Object.entries(workloads)) {
      log(`postgres: ${w} on SQLite and PostgreSQL, ${rate} req/s and saturated…`);
      const loads = await prepare();
      if (w !== 'confirm_payment') for (const n of names) loads[n]('saturated'); // warm-up (JIT, caches)
      const each = Object.fromEntries(names.map((n) => [n, { fixed: [], saturated: [] }]));
      const floor = [];
      const bareLoad = () => loadPosts(bareInfo.url + '/x', createBody, {}, ms, undefined, { rate });
      for (let r = 0; r < rounds; r++) {
        if (r % 2) floor.push(await costs(bare, bareLoad));
        for (const n of order(r)) each[n].fixed.push(await costs(engines[n], () => loads[n]('fixed')));
        if (r % 2 === 0) floor.push(await costs(bare, bareLoad));
        for (const n of order(r)) each[n].saturated.push(await costs(engines[n], () => loads[n]('saturated')));
      }
      results.workloads[w] = Object.fromEntries(
        names.map((n) => [n, { fixed: summary(each[n].fixed), saturated: summary(each[n].saturated) }]),
      );
      results.workloads[w].bare_fixed = summary(floor);
      if (w === 'create_session') await twoProcesses();
    }

    log('postgres: a clock advance over 5,000 sessions, and advances under a mixed load, on each engine…');
    results.advance = await advanceBench({ cluster, rounds, loadSeconds: Math.max(20, seconds * 4), log });

    return results;
  } finally {
    // The servers first (their pools close), then the cluster.
    await Promise.all(started.map(stop));
    cluster.destroy();
  }
}
