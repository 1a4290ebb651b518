#!/usr/bin/env node
// Snapshot restore times (issue 28): a server on a fresh data directory with N sessions, each with a confirmed
// payment (made through the API, in process), a snapshot saved, then restored ROUNDS times over HTTP as the CLI
// does (`POST /test-helpers/snapshots/NAME/restore`), with a write between restores (so that each restore has
// something to undo). Prints one JSON line per size: the database's bytes, the save's time, and per restore the
// wall time at the client, the time requests were held (`paused_ms`) and the whole restore on the server
// (`took_ms`); medians. Usage: node bench/snapshot.js [N…] (default 10000 100000).
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../dist/index.js';
import { seed } from './sessions.js';

const ROUNDS = Number(process.env.BENCH_SNAPSHOT_ROUNDS ?? 5);
const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

for (const n of sizes.length ? sizes : [10_000, 100_000]) {
  const dir = mkdtempSync(join(tmpdir(), 'payorch-bench-snapshot-'));
  try {
    const server = await startServer({
      port: 0,
      dataDir: join(dir, 'data'),
      dueWorkIntervalMs: 0,
      rateLimits: { perMinute: 1e9, perDay: 1e12, concurrency: 1e6 },
    });
    const t0 = performance.now();
    await seed(server, n);
    const seedMs = performance.now() - t0;
    const t1 = performance.now();
    await server.snapshot('bench');
    const saveMs = performance.now() - t1;
    const headers = { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' };
    const rounds = [];
    for (let r = 0; r < ROUNDS; r++) {
      await fetch(`${server.baseUrl}/create-session`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ amount: 1, currency: 'usd' }),
      });
      // The spare copy for the next restore, made in the background after the save and after each restore (a CI
      // suite between two restores gives it time); the first round's restore does not wait for it.
      const spare = join(dir, 'data', 'snapshots', '.bench.spare');
      for (let i = 0; r > 0 && i < 600 && !existsSync(spare); i++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      const t = performance.now();
      const res = await fetch(`${server.baseUrl}/test-helpers/snapshots/bench/restore`, {
        method: 'POST',
        headers,
        body: '{}',
      });
      const body = await res.json();
      if (res.status !== 200) throw new Error(JSON.stringify(body));
      rounds.push({ wall_ms: performance.now() - t, paused_ms: body.paused_ms, took_ms: body.took_ms });
    }
    const db = statSync(join(dir, 'data', 'snapshots', 'bench.sqlite')).size;
    const count = (await (await fetch(`${server.baseUrl}/sessions?limit=1`, { headers })).json()).total_count;
    await server.close();
    const out = {
      sessions: n,
      sessions_after_restore: count,
      db_bytes: db,
      seed_ms: Math.round(seedMs),
      save_ms: Math.round(saveMs),
      // With a spare ready (rounds after the first): the figure with a target.
      restore_ms: Number(median(rounds.slice(1).map((x) => x.wall_ms)).toFixed(1)),
      paused_ms: median(rounds.slice(1).map((x) => x.paused_ms)),
      first_restore_ms: Number(rounds[0].wall_ms.toFixed(1)),
      rounds,
    };
    process.stdout.write(JSON.stringify(out) + '\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
