#!/usr/bin/env node
// `node bench/split.js MAIN_US STORE_US [ROUNDS]`: what a second thread could buy, measured without building it.
// Three node:http servers under the bench's load (load.js, 50 keep-alive connections), alternated: the bare
// baseline (bare-server.js); "one thread", which spends MAIN_US + STORE_US µs of CPU per request on its only
// thread; and "two threads", which spends MAIN_US on its HTTP thread and hands each event-loop turn's requests
// to a worker thread that spends STORE_US per request (as a group commit would) before they are answered.
// Both answer the same headers and a body of payorch's size. Messaging between the threads is one small
// message per turn each way, so "two threads" is an upper bound for moving the store and the domain work off
// the HTTP thread. Prints each server's req/s and its ratio to the baseline, per round.
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild, stopChildren } from './children.js';

const here = dirname(fileURLToPath(import.meta.url));
const self = fileURLToPath(import.meta.url);

/** Keeps the thread busy for `us` µs. */
function spin(us) {
  const end = process.hrtime.bigint() + BigInt(Math.round(us * 1000));
  while (process.hrtime.bigint() < end);
}

function serve(mode, mainUs, storeUs) {
  const answer = JSON.stringify({
    id: '0190a5b2-1111-7000-8000-000000000000',
    object: 'payment_session',
    pad: 'x'.repeat(850),
  });
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Request-Id': 'req_01234567890123456789',
    'X-RateLimit-Limit': '100',
    'X-RateLimit-Remaining': '99',
    'X-RateLimit-Reset': '1700000000',
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Expose-Headers':
      'Request-Id, Idempotent-Replayed, Original-Request, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
  };
  const send = (res) => {
    res.writeHead(201, headers);
    res.end(answer);
  };
  let worker;
  let pending = [];
  const inflight = [];
  if (mode === 'two') {
    worker = new Worker(self, { workerData: { storeUs } });
    worker.on('message', () => inflight.shift().forEach(send));
  }
  const flush = () => {
    const batch = pending;
    pending = [];
    inflight.push(batch);
    worker.postMessage(batch.length);
  };
  createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString() || '{}');
      spin(mainUs);
      if (mode === 'one') {
        spin(storeUs);
        send(res);
        return;
      }
      if (pending.push(res) === 1) setImmediate(flush);
    });
  }).listen(0, '127.0.0.1', function () {
    process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${this.address().port}` }) + '\n');
  });
}

function load(url) {
  const body = JSON.stringify({ amount: 1999, currency: 'usd', metadata: { order: '1234' } });
  const r = spawnSync(process.execPath, [join(here, 'load.js'), url, 'POST', body, '{}', '50', '4000'], {
    encoding: 'utf8',
  });
  return JSON.parse(r.stdout).rps;
}

if (!isMainThread) {
  parentPort.on('message', (n) => {
    spin(workerData.storeUs * n);
    parentPort.postMessage(n);
  });
} else if (process.argv[2] === 'serve') {
  serve(process.argv[3], Number(process.argv[4]), Number(process.argv[5]));
} else {
  const [mainUs, storeUs, rounds = 3] = process.argv.slice(2).map(Number);
  if (!(mainUs >= 0 && storeUs >= 0)) {
    process.stderr.write('usage: node bench/split.js MAIN_US STORE_US [ROUNDS]\n');
    process.exit(2);
  }
  const { info: bare } = await startChild(join(here, 'bare-server.js'));
  const { info: one } = await startChild(self, ['serve', 'one', String(mainUs), String(storeUs)]);
  const { info: two } = await startChild(self, ['serve', 'two', String(mainUs), String(storeUs)]);
  for (let r = 0; r < rounds; r++) {
    const b = load(bare.url);
    const o = load(one.url);
    const t = load(two.url);
    process.stdout.write(
      `${mainUs}+${storeUs} µs: bare ${b.toFixed(0)} req/s, one thread ${o.toFixed(0)} (${(o / b).toFixed(2)}), two threads ${t.toFixed(0)} (${(t / b).toFixed(2)})\n`,
    );
  }
  stopChildren();
}
