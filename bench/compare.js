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
// (sessions confirmed per confirm round, default 4000), COMPARE_POSTGRES=1 (each server on a database of its own in
// one throwaway PostgreSQL cluster, bench/pg-cluster.js; PostgreSQL's CPU per request is printed too).
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { confirmTargets, cpuMs, journalBody, loadPosts, median, startChild, stopChildren } from './children.js';
const [mode, ...scripts] = process.argv.slice(2);
if (!['create', 'confirm', 'journal'].includes(mode) || scripts.length === 0) {
  process.stderr.write('usage: node bench/compare.js create|confirm|journal SERVE_A [SERVE_B…]\n');
  process.exit(2);
}
const ROUNDS = Number(process.env.COMPARE_ROUNDS ?? 5);
const MS = Number(process.env.COMPARE_MS ?? 4000);
const CONFIRMS = Number(process.env.COMPARE_CONFIRMS ?? 4000);
const tmp = mkdtempSync(join(tmpdir(), 'payorch-compare-'));

/** The load of one round for `server` (prepared first: confirm's sessions, journal's accounts). */
async function prepare(server, confirms) {
  const auth = { authorization: `Bearer ${server.info.apiKey}` };
  if (mode === 'create')
    return () =>
      loadPosts(
        server.info.baseUrl + '/create-session',
        JSON.stringify({ amount: 1999, currency: 'usd', metadata: { order: '1234' } }),
        auth,
        MS,
      );
  if (mode === 'journal') {
    server.journal ??= await journalBody(server.info);
    return () => loadPosts(server.info.baseUrl + '/journal-entries', server.journal, auth, MS);
  }
  const file = await confirmTargets(server.info, confirms, join(tmp, `confirm-${randomUUID()}.json`));
  return () => loadPosts(server.info.baseUrl, JSON.stringify({ token_id: 'tok_visa' }), {}, 600_000, file);
}

const cluster =
  process.env.COMPARE_POSTGRES === '1' ? await (await import('./pg-cluster.js')).startCluster() : undefined;
try {
  const servers = [];
  for (const [i, script] of scripts.entries()) {
    let env = {};
    if (cluster) {
      const { default: postgres } = await import('postgres');
      const admin = postgres(cluster.url('postgres'), { max: 1, onnotice: () => {} });
      await admin.unsafe(`CREATE DATABASE compare_${i}`);
      await admin.end();
      env = { BENCH_DATABASE: cluster.url(`compare_${i}`), BENCH_SEALING_KEY: randomBytes(32).toString('hex') };
    }
    const { child, info } = await startChild(script, [join(tmp, `server-${i}`)], [], env);
    servers.push({ script, pid: child.pid, info, rounds: [] });
  }
  for (const s of servers) (await prepare(s, 1500))(); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    for (const s of r % 2 ? [...servers].reverse() : servers) {
      const run = await prepare(s, CONFIRMS);
      const main0 = cpuMs(s.pid, true);
      const all0 = cpuMs(s.pid);
      const pg0 = cluster?.cpuMs() ?? 0;
      const out = run();
      s.rounds.push({
        rps: out.rps,
        main: ((cpuMs(s.pid, true) - main0) * 1000) / out.requests,
        all: ((cpuMs(s.pid) - all0) * 1000) / out.requests,
        pg: cluster ? ((cluster.cpuMs() - pg0) * 1000) / out.requests : 0,
      });
    }
  }
  for (const s of servers) {
    const m = (k) => median(s.rounds.map((x) => x[k]));
    process.stdout.write(
      `${mode} ${s.script}: main thread ${m('main').toFixed(0)} µs/request (rounds ${s.rounds.map((x) => x.main.toFixed(0)).join(', ')}), process ${m('all').toFixed(0)} µs,${cluster ? ` PostgreSQL ${m('pg').toFixed(0)} µs,` : ''} ${m('rps').toFixed(0)} req/s\n`,
    );
  }
} finally {
  stopChildren();
  await new Promise((r) => setTimeout(r, 300));
  cluster?.destroy();
  rmSync(tmp, { recursive: true, force: true });
}
