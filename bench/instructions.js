#!/usr/bin/env node
// `node bench/instructions.js [create|confirm|journal] [DIST]`: machine instructions per request of the server
// (DIST, default ./dist), counted by valgrind (callgrind, no cache simulation) — a figure that does not move with
// the machine's load, unlike CPU time (bench/cpu.js moves ±20% on the shared 2-core machine; an in-process
// A/B of CPU time still moved ±10% there). Two runs of the same workload, with LOW and HIGH
// requests after the same warm-up: (instructions(HIGH) − instructions(LOW)) ÷ (HIGH − LOW) is what a request
// costs, start-up and warm-up cancelling out. Requests go in bursts of 25 concurrent ones through the server's
// own pipeline (fastify inject; a burst shares one group commit, as under load). `node --single-threaded`
// keeps V8's compiler and GC on the main thread, and only the main thread is counted (the WAL checkpointer's
// worker runs on a timer, so its share follows the run's wall time).
// Slow: valgrind runs node ~50–100× slower (a figure takes a few minutes). Needs valgrind and a build.
//
// Env: INSTR_LOW (default 100), INSTR_HIGH (default 400) requests, multiples of 25.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const BURST = 25;
const what = process.argv[2] ?? 'confirm';
const dist = resolve(process.argv[3] ?? join(fileURLToPath(new URL('.', import.meta.url)), '..', 'dist'));

if (process.env.INSTR_CHILD) {
  // The workload, run under valgrind: warm-up, then INSTR_CHILD requests.
  const n = Number(process.env.INSTR_CHILD);
  const tmp = mkdtempSync(join(tmpdir(), 'payorch-instr-'));
  const { startServer } = await import(pathToFileURL(join(dist, 'index.js')).href);
  const s = await startServer({
    port: 0,
    dataDir: join(tmp, 'd'),
    dueWorkIntervalMs: 0,
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
      if (r.statusCode >= 300) throw new Error(`${url}: ${r.statusCode} ${r.body}`);
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
    const total = 200 + n; // 200 warm-up requests
    // Sessions to confirm are made before any measured request, so that both runs make them alike.
    const sessions = [];
    if (what === 'confirm') {
      for (let i = 0; i < Number(process.env.INSTR_HIGH_ALL); i += BURST) {
        sessions.push(
          ...(await Promise.all(
            Array.from({ length: BURST }, () => call('/create-session', { amount: 1999, currency: 'usd' }, s.apiKey)),
          )),
        );
      }
    }
    for (let i = 0; i < total; i += BURST) {
      await Promise.all(
        Array.from({ length: BURST }, (_, j) =>
          what === 'confirm'
            ? call(`/confirm-payment/${sessions[i + j].id}`, { token_id: 'tok_visa' }, sessions[i + j].client_secret)
            : what === 'journal'
              ? call('/journal-entries', je, s.apiKey)
              : call('/create-session', { amount: 1999, currency: 'usd', metadata: { order: '1234' } }, s.apiKey),
        ),
      );
    }
    globalThis.gc?.(); // both runs end with the same full collection: what a request left behind is paid for
  } finally {
    await s.close();
    rmSync(tmp, { recursive: true, force: true });
  }
} else {
  const low = Number(process.env.INSTR_LOW ?? 100);
  const high = Number(process.env.INSTR_HIGH ?? 400);
  const tmp = mkdtempSync(join(tmpdir(), 'payorch-instr-out-'));
  const count = (n) => {
    const out = join(tmp, `cg.${n}`);
    const r = spawnSync(
      'valgrind',
      [
        '--tool=callgrind',
        '--separate-threads=yes',
        `--callgrind-out-file=${out}`,
        process.execPath,
        '--single-threaded',
        '--expose-gc',
        fileURLToPath(import.meta.url),
        what,
        dist,
      ],
      {
        env: { ...process.env, INSTR_CHILD: String(n), INSTR_HIGH_ALL: String(200 + high) },
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      },
    );
    // The main thread's count only: the checkpointer's worker thread works on a timer (every 100 ms), so what
    // it does depends on how long the run takes — on the machine's load (seen: ±30% per request with it).
    const m = /(?:summary|totals): (\d+)/.exec(readFileSync(`${out}-01`, 'utf8'));
    if (r.status !== 0 || !m) throw new Error(`valgrind run failed (${r.status}): ${r.stderr.slice(-2000)}`);
    return Number(m[1]);
  };
  try {
    const a = count(low);
    const b = count(high);
    process.stdout.write(
      `${what} (${dist}): ${((b - a) / (high - low) / 1000).toFixed(0)} k instructions/request  (runs: ${a}, ${b})\n`,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
