#!/usr/bin/env node
// `node bench/webhooks-pace.js`: how far webhook deliveries fall behind the event log under a saturating load.
// A server (serve.js) with one endpoint (every customer.created) to a receiver in this process that answers 200
// at once; PACE_CLIENTS clients (default 12) create customers as fast as the server answers for PACE_MS (default
// 30 000). Every second it samples how many events were recorded (creates answered) and received, and prints
// the backlog in events and in seconds of the load's rate; then how long the receiver takes to have everything
// after the load. Needs a build (dist/).
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild, stopChildren } from './children.js';

const here = dirname(fileURLToPath(import.meta.url));
const MS = Number(process.env.PACE_MS ?? 30_000);
const CLIENTS = Number(process.env.PACE_CLIENTS ?? 12);
const tmp = mkdtempSync(join(tmpdir(), 'payorch-pace-'));

let received = 0;
const rx = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    res.end('ok');
  });
});
await new Promise((resolve) => rx.listen(0, '127.0.0.1', resolve));

try {
  const { info } = await startChild(join(here, 'serve.js'), [join(tmp, 'server')]);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const post = (path, body) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        info.baseUrl + path,
        {
          method: 'POST',
          agent,
          headers: { authorization: `Bearer ${info.apiKey}`, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  if (
    (await post('/webhook-endpoints', {
      url: `http://127.0.0.1:${rx.address().port}/hook`,
      enabled_events: ['customer.created'],
    })) !== 201
  )
    throw new Error('endpoint');
  let created = 0;
  const t0 = Date.now();
  const samples = [];
  const sampler = setInterval(() => samples.push({ s: Math.round((Date.now() - t0) / 1000), created, received }), 1000);
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (Date.now() - t0 < MS) if ((await post('/customers', { email: 'pace@example.com' })) === 201) created++;
    }),
  );
  clearInterval(sampler);
  const rate = created / (MS / 1000);
  const ended = Date.now();
  while (received < created && Date.now() - ended < 300_000) await new Promise((r) => setTimeout(r, 20));
  const drainS = (Date.now() - ended) / 1000;
  const behind = samples.map((x) => x.created - x.received);
  const worst = Math.max(...behind);
  console.log(`creates: ${created} in ${MS / 1000} s (${Math.round(rate)}/s), ${CLIENTS} clients`);
  console.log(`backlog each second (events): ${behind.join(' ')}`);
  console.log(
    `worst backlog: ${worst} events = ${(worst / rate).toFixed(1)} s of the load; at the end ${created - samples.at(-1).received}`,
  );
  console.log(`everything received ${drainS.toFixed(2)} s after the load (${received}/${created})`);
  agent.destroy();
} finally {
  stopChildren();
  rx.close();
  rmSync(tmp, { recursive: true, force: true });
}
