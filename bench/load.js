#!/usr/bin/env node
// Closed-loop load generator: C connections (keep-alive), each sending the next request as soon as the
// last answered, for D ms. Prints {requests, errors, statuses, rps, p50_ms, p99_ms}. Loopback only.
// With TARGETS (a JSON file of [{path, headers}]), request i goes to url + targets[i].path with its headers
// (each used once: e.g. one confirm per session); the run ends early when they run out. `cpu_ms` is this
// generator's own CPU time during the run (bench/machine.js counts it).
// URL may list several servers, comma-separated: request i goes to the (i mod n)th (one load over n processes).
// With LOAD_RATE (requests a second) in the environment the load is open-loop instead: request i is sent at
// start + i / LOAD_RATE whether or not the earlier ones were answered (up to C connections; beyond, they queue),
// and its latency counts from that scheduled time, so a stall shows in p99 rather than slowing the load down.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

const [url, method, body, headersJson, concurrencyArg, durationArg, targetsFile] = process.argv.slice(2);
const targets = targetsFile ? JSON.parse(readFileSync(targetsFile, 'utf8')) : null;
const concurrency = Number(concurrencyArg ?? 50);
const duration = Number(durationArg ?? 5000);
const headers = { ...JSON.parse(headersJson || '{}') };
if (body) {
  headers['content-type'] = 'application/json';
  headers['content-length'] = String(Buffer.byteLength(body));
}
const bases = url.split(',');
for (const base of bases)
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(new URL(base).hostname))
    throw new Error('load.js only targets loopback');
const urls = bases.map((base) => new URL(base));
const rate = Number(process.env.LOAD_RATE ?? 0);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const latencies = [];
const statuses = {};
let errors = 0;
let seq = 0;
const end = performance.now() + duration;

/** Sends request `seq`; its latency counts from `t` (now, or when it was due). */
function once(t = performance.now()) {
  return new Promise((resolve) => {
    const n = seq++;
    const h = { ...headers, ...(targets ? targets[n].headers : {}) };
    if (method !== 'GET') h['idempotency-key'] = `bench-${process.pid}-${n}`;
    const dest = targets ? new URL(bases[n % bases.length] + targets[n].path) : urls[n % urls.length];
    const req = request(dest, { method, headers: h, agent }, (res) => {
      res.resume();
      res.on('end', () => {
        latencies.push(performance.now() - t);
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        resolve();
      });
    });
    req.on('error', () => {
      errors++;
      resolve();
    });
    req.end(body || undefined);
  });
}

async function loop() {
  while (performance.now() < end && (!targets || seq < targets.length)) await once();
}

/** Open loop: request i at started + i / rate, for the duration (or until the targets run out). */
async function paced() {
  const inFlight = [];
  for (let i = 0; ; i++) {
    const due = started + (i * 1000) / rate;
    if (due >= end || (targets && seq >= targets.length)) break;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(once(due));
  }
  await Promise.all(inFlight);
}

const started = performance.now();
const cpu0 = process.cpuUsage();
await (rate > 0 ? paced() : Promise.all(Array.from({ length: concurrency }, loop)));
const elapsed = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpu0);
latencies.sort((a, b) => a - b);
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
process.stdout.write(
  JSON.stringify({
    requests: latencies.length,
    errors,
    statuses,
    rps: latencies.length / elapsed,
    p50_ms: pct(0.5),
    p99_ms: pct(0.99),
    cpu_ms: (cpu.user + cpu.system) / 1000,
  }) + '\n',
);
agent.destroy();
