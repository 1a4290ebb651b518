#!/usr/bin/env node
// Closed-loop load generator: C connections (keep-alive), each sending the next request as soon as the
// last answered, for D ms. Prints {requests, errors, statuses, rps, p50_ms, p99_ms}. Loopback only.
// With TARGETS (a JSON file of [{path, headers}]), request i goes to url + targets[i].path with its headers
// (each used once: e.g. one confirm per session); the run ends early when they run out. `cpu_ms` is this
// generator's own CPU time during the run (bench/machine.js counts it).
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
const target = new URL(url);
if (!['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) throw new Error('load.js only targets loopback');
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const latencies = [];
const statuses = {};
let errors = 0;
let seq = 0;
const end = performance.now() + duration;

function once() {
  return new Promise((resolve) => {
    const n = seq++;
    const h = { ...headers, ...(targets ? targets[n].headers : {}) };
    if (method !== 'GET') h['idempotency-key'] = `bench-${process.pid}-${n}`;
    const dest = targets ? new URL(url + targets[n].path) : target;
    const t = performance.now();
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

const started = performance.now();
const cpu0 = process.cpuUsage();
await Promise.all(Array.from({ length: concurrency }, loop));
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
