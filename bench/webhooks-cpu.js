#!/usr/bin/env node
// `node bench/webhooks-cpu.js`: the server process's CPU time (user + system, /proc/PID/stat) per create-session,
// on a server without a webhook endpoint and on one with one endpoint (every event) whose receiver
// (receiver.js) answers 200 — the difference is what a delivery costs. The CPU is counted from before the load
// until every delivery of it has succeeded (none pending), so deliveries still queued when the load ends are
// counted too. The two servers are measured in turn, WEBHOOK_CPU_RUNS times each (default 3), and the medians
// printed: CPU per request moves much less with the machine's load than req/s does, but still ±20% on a busy
// machine, so compare figures of the same minutes only. Needs a build (dist/).
// Env: WEBHOOK_CPU_MS (load duration per run, default 4000), WEBHOOK_CPU_RUNS, WEBHOOK_CPU_SERVER_FLAGS (node
// flags for the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs, median, startChild, stopChildren } from './children.js';

const here = dirname(fileURLToPath(import.meta.url));
const MS = Number(process.env.WEBHOOK_CPU_MS ?? 4000);
const RUNS = Number(process.env.WEBHOOK_CPU_RUNS ?? 3);
const FLAGS = (process.env.WEBHOOK_CPU_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
const tmp = mkdtempSync(join(tmpdir(), 'payorch-whcpu-'));

async function api(base, key, method, path, body) {
  const headers = {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    ...(method !== 'GET' ? { 'idempotency-key': randomUUID() } : {}),
  };
  const res = await fetch(base + path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  return JSON.parse(await res.text());
}

const body = JSON.stringify({ amount: 1999, currency: 'usd', metadata: { order: '1234' } });

/** One server (with an endpoint or not): warm-up, then CPU µs per create-session including its deliveries. */
async function measure(withEndpoint, rx) {
  const { child, info } = await startChild(join(here, 'serve.js'), [join(tmp, randomUUID())], FLAGS);
  const { baseUrl, apiKey } = info;
  const we = withEndpoint ? await api(baseUrl, apiKey, 'POST', '/webhook-endpoints', { url: rx.url }) : undefined;
  if (withEndpoint && !we.id) throw new Error(`webhook endpoint: ${JSON.stringify(we)}`);
  const load = (ms) => {
    const r = spawnSync(
      process.execPath,
      [
        join(here, 'load.js'),
        baseUrl + '/create-session',
        'POST',
        body,
        JSON.stringify({ authorization: `Bearer ${apiKey}` }),
        '50',
        String(ms),
      ],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`load failed: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  const count = async (status) =>
    (await api(baseUrl, apiKey, 'GET', `/webhook-endpoints/${we.id}/deliveries?status=${status}&limit=1`)).total_count;
  const drained = async () => {
    if (!we) return;
    while ((await count('pending')) > 0) await new Promise((r) => setTimeout(r, 100));
  };
  load(1000); // warm-up
  await drained();
  const before = cpuMs(child.pid);
  const r = load(MS);
  await drained();
  const used = cpuMs(child.pid) - before;
  const failed = we ? await count('failed') : 0;
  if (failed) throw new Error(`${failed} deliveries failed`);
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  return { requests: r.requests, rps: r.rps, cpu_us: (used * 1000) / r.requests };
}

try {
  const { info: rx } = await startChild(join(here, 'receiver.js'));
  const bare = [];
  const hooked = [];
  for (let i = 0; i < RUNS; i++) {
    bare.push(await measure(false, rx));
    hooked.push(await measure(true, rx));
  }
  const b = median(bare.map((x) => x.cpu_us));
  const h = median(hooked.map((x) => x.cpu_us));
  const result = {
    cpu_us_per_create_session: Math.round(b),
    cpu_us_per_create_session_with_endpoint: Math.round(h),
    cpu_us_per_delivery: Math.round(h - b),
    runs: { without: bare.map((x) => Math.round(x.cpu_us)), with: hooked.map((x) => Math.round(x.cpu_us)) },
  };
  process.stdout.write(JSON.stringify(result) + '\n');
} finally {
  stopChildren();
  rmSync(tmp, { recursive: true, force: true });
}
