#!/usr/bin/env node
// `node bench/messages.js`: what passing a request and its answer between two threads would cost the HTTP thread
// (the price of moving the store and the domain to a thread of their own, which bench/split.js takes as free).
// The main thread posts a create-session-sized request (route, account, key, parsed body) to a worker, which
// answers with a status and an 870-byte JSON text; 50 round trips in flight. Prints the main thread's CPU µs per
// round trip, three rounds of 100k.
import { Worker } from 'node:worker_threads';
import { cpuMs } from './children.js';

const worker = new Worker(
  `const { parentPort } = require('node:worker_threads');
   const reply = JSON.stringify({ id: '0'.repeat(36), object: 'x', pad: 'x'.repeat(810) });
   parentPort.on('message', (m) => parentPort.postMessage({ id: m.id, status: 201, body: reply }));`,
  { eval: true },
);
const body = { amount: 1999, currency: 'usd', metadata: { order: '1234' } };
const waiting = new Map();
let next = 0;
worker.on('message', (m) => {
  waiting.get(m.id)(m);
  waiting.delete(m.id);
});
const roundTrip = () =>
  new Promise((resolve) => {
    const id = next++;
    waiting.set(id, resolve);
    worker.postMessage({ id, route: 'create-session', accountId: 'acct_0123456789', key: `bench-${id}`, body });
  });
async function run(n) {
  let sent = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (sent++ < n) await roundTrip();
    }),
  );
}

await run(20_000); // warm-up
for (let r = 0; r < 3; r++) {
  const before = cpuMs(process.pid, true);
  await run(100_000);
  process.stdout.write(
    `main thread: ${(((cpuMs(process.pid, true) - before) * 1000) / 100_000).toFixed(1)} µs per round trip\n`,
  );
}
await worker.terminate();
