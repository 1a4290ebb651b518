#!/usr/bin/env node
// `node bench/machine.js`: where the whole machine's CPU goes per request, and the ratio to the bare baseline
// that no arrangement of the server's threads could exceed with that much CPU per request.
//
// The bench's ratios are throughput on one machine whose cores the load generator (load.js), the server (its
// HTTP thread and its workers) and, for webhooks, the receiver share. Per workload and round this measures,
// over the load (for the webhook workload: until its deliveries are done):
//   machine   busy CPU of all cores (/proc/stat), µs per request
//   server    the server process's CPU (all its threads); main: its HTTP thread alone
//   gen       the load generator's own CPU (load.js `cpu_ms`); rx: the webhook receiver's
//   on-cpu / runnable   the share of wall time the HTTP thread ran, and waited for a core (/proc schedstat)
//   idle      the share of the machine's CPU time no one used
//   ceiling   cores × 1e6 ÷ (machine µs, with the generator costing what it costs against the bare server) ÷
//             the bare baseline's req/s: the ratio if every core were busy with this work. A server that moves
//             work between threads without doing less of it stays under this line. The generator is charged at
//             the bare server's cost because a closed-loop client spends more per request the slower its server
//             answers (fewer answers per wake-up).
//
// Env: MACHINE_ROUNDS (default 3; the median of each figure is printed), MACHINE_MS (per load, default 4000).
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, confirmTargets, journalBody, loadPosts, median, startChild, stopChildren } from './children.js';
import { measure } from './per-request.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.env.MACHINE_ROUNDS ?? 3);
const MS = Number(process.env.MACHINE_MS ?? 4000);
const CORES = availableParallelism();
const tmp = mkdtempSync(join(tmpdir(), 'payorch-machine-'));

const body = JSON.stringify({ amount: 1999, currency: 'usd', metadata: { order: '1234' } });
try {
  const bare = await startChild(join(here, 'bare-server.js'));
  const srv = await startChild(join(here, 'serve.js'), [join(tmp, 'server')]);
  const rx = await startChild(join(here, 'receiver.js'));
  const hooked = await startChild(join(here, 'serve.js'), [join(tmp, 'server-webhooks')]);
  const info = srv.info;
  const auth = { authorization: `Bearer ${info.apiKey}` };
  const endpoint = await api(hooked.info, 'POST', '/webhook-endpoints', { url: rx.info.url });
  if (!endpoint.id) throw new Error(`webhook endpoint: ${JSON.stringify(endpoint)}`);
  const drained = async () => {
    const until = Date.now() + 120_000;
    const count = async () =>
      (await api(hooked.info, 'GET', `/webhook-endpoints/${endpoint.id}/deliveries?status=pending&limit=1`))
        .total_count;
    while ((await count()) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  };
  const journal = await journalBody(info);
  loadPosts(bare.info.url, body, {}, 1000); // warm-up
  loadPosts(info.baseUrl + '/create-session', body, auth, 1000);
  loadPosts(hooked.info.baseUrl + '/create-session', body, { authorization: `Bearer ${hooked.info.apiKey}` }, 1000);
  await drained();

  const rows = {
    bare: [],
    'create-session': [],
    'journal entry': [],
    'confirm-payment': [],
    'create-session + webhook': [],
  };
  for (let r = 0; r < ROUNDS; r++) {
    rows.bare.push(await measure(bare.child.pid, () => loadPosts(bare.info.url, body, {}, MS)));
    rows['create-session'].push(
      await measure(srv.child.pid, () => loadPosts(info.baseUrl + '/create-session', body, auth, MS)),
    );
    rows['journal entry'].push(
      await measure(srv.child.pid, () => loadPosts(info.baseUrl + '/journal-entries', journal, auth, MS)),
    );
    const file = await confirmTargets(
      info,
      Math.ceil((rows['create-session'][r].rps / 2) * (MS / 1000)) + 500,
      join(tmp, `confirm-${r}.json`),
    );
    rows['confirm-payment'].push(
      await measure(srv.child.pid, () =>
        loadPosts(info.baseUrl, JSON.stringify({ token_id: 'tok_visa' }), {}, 600_000, file),
      ),
    );
    const hookedAuth = { authorization: `Bearer ${hooked.info.apiKey}` };
    rows['create-session + webhook'].push(
      await measure(hooked.child.pid, () => loadPosts(hooked.info.baseUrl + '/create-session', body, hookedAuth, MS), {
        after: drained,
        receiverPid: rx.child.pid,
      }),
    );
  }

  const m = (list, k) => median(list.map((x) => x[k]));
  const bareRps = m(rows.bare, 'rps');
  const bareGen = m(rows.bare, 'gen');
  process.stdout.write(`${CORES} cores; medians of ${ROUNDS} rounds of ${MS} ms; µs of CPU per request\n\n`);
  process.stdout.write(
    '| workload | req/s | ratio | machine | server (main) | gen | rx | on-cpu / runnable | idle | ceiling |\n|---|---|---|---|---|---|---|---|---|---|\n',
  );
  for (const [name, list] of Object.entries(rows)) {
    const machine = m(list, 'machine');
    const ceiling = (CORES * 1e6) / (machine - m(list, 'gen') + bareGen) / bareRps;
    const cells = [
      name,
      m(list, 'rps').toFixed(0),
      (m(list, 'rps') / bareRps).toFixed(2),
      machine.toFixed(0),
      `${m(list, 'server').toFixed(0)} (${m(list, 'main').toFixed(0)})`,
      m(list, 'gen').toFixed(0),
      name.includes('webhook') ? m(list, 'rx').toFixed(0) : '—',
      `${m(list, 'onCpu').toFixed(0)}% / ${m(list, 'runnable').toFixed(0)}%`,
      `${m(list, 'idle').toFixed(0)}%`,
      name === 'bare' ? '—' : ceiling.toFixed(2),
    ];
    process.stdout.write(`| ${cells.join(' | ')} |\n`);
  }
} finally {
  stopChildren();
  await new Promise((r) => setTimeout(r, 300));
  rmSync(tmp, { recursive: true, force: true });
}
