// What the bench scripts share: child processes that print one JSON line once they listen (serve.js,
// bare-server.js, receiver.js), their CPU time from /proc, a median, a load of POSTs (load.js), and the API calls
// that prepare a server for the journal-entry and confirm-payment loads.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Every child started here, to stop at the end (stopChildren). */
export const children = [];

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** ms per clock tick of /proc's CPU counters (USER_HZ). */
export const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);

/** CPU ms used so far by process `pid` (utime + stime), or by its main thread alone (`mainThread`). */
export function cpuMs(pid, mainThread = false) {
  const stat = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}

/**
 * Starts `node [flags] script [args]` (with `env` added to the environment) and resolves with the child and the JSON
 * line it prints first.
 */
export function startChild(script, args = [], flags = [], env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, script, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...env },
    });
    children.push(child);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ child, info: JSON.parse(out.split('\n')[0]) });
    });
    child.on('exit', (code) => reject(new Error(`${script} exited ${code}`)));
  });
}

export function stopChildren() {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
}

/**
 * `load.js`: 50 connections POSTing `body` to `url` (or to several servers, comma-separated) for `ms` (or once each to
 * the targets in `targetsFile`); with `rate`, open-loop at that many requests a second instead of each connection's
 * next request as soon as its last was answered.
 */
export function loadPosts(url, body, headers, ms, targetsFile, { rate } = {}) {
  const args = [
    join(here, 'load.js'),
    url,
    'POST',
    body,
    JSON.stringify(headers),
    '50',
    String(ms),
    ...(targetsFile ? [targetsFile] : []),
  ];
  const r = spawnSync(process.execPath, args, {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
    env: rate ? { ...process.env, LOAD_RATE: String(rate) } : process.env,
  });
  if (r.status !== 0) throw new Error(`load failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/**
 * One API call to the server `info` ({baseUrl, apiKey}) with its key (a POST with its own Idempotency-Key):
 * its status and text. A keep-alive connection left idle past the server's keepAliveTimeout (72 s; a long bench
 * leaves them so) can be closed just as it is reused ("other side closed"): retried, under the same
 * Idempotency-Key, so that a write the server did take is not made twice.
 */
export async function call(info, method, path, body) {
  const headers = { authorization: `Bearer ${info.apiKey}` };
  if (method !== 'GET') Object.assign(headers, { 'content-type': 'application/json', 'idempotency-key': randomUUID() });
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await fetch(info.baseUrl + path, {
        method,
        headers,
        body: method === 'GET' ? undefined : JSON.stringify(body),
      });
      return { status: res.status, text: await res.text() };
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
}

/** `call`'s answer, parsed. */
export const api = async (info, method, path, body) => JSON.parse((await call(info, method, path, body)).text);

/** The body of the journal-entry load: a two-line entry between two new system accounts (no balance limits). */
export async function journalBody(info) {
  const a1 = await api(info, 'POST', '/ledger-accounts', {
    name: 'Bench cash',
    account_type: 'asset',
    currency: 'usd',
    is_system_account: true,
  });
  const a2 = await api(info, 'POST', '/ledger-accounts', {
    name: 'Bench wallet',
    account_type: 'liability',
    currency: 'usd',
    is_system_account: true,
  });
  return JSON.stringify({
    description: 'bench',
    entries: [
      { account_id: a1.id, direction: 'debit', amount: 100 },
      { account_id: a2.id, direction: 'credit', amount: 100 },
    ],
  });
}

/** `n` new sessions as load.js targets for confirm-payment (each with its client secret), written to `file`. */
export async function confirmTargets(info, n, file) {
  const targets = [];
  for (let i = 0; i < n; i += 200) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(200, n - i) }, () =>
        api(info, 'POST', '/create-session', { amount: 1999, currency: 'usd' }),
      ),
    );
    for (const s of batch)
      targets.push({ path: `/confirm-payment/${s.id}`, headers: { authorization: `Bearer ${s.client_secret}` } });
  }
  writeFileSync(file, JSON.stringify(targets));
  return file;
}
