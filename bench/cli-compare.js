#!/usr/bin/env node
// `node bench/cli-compare.js ROOT_A [ROOT_B…]`: the CLI's start-up of several builds (each ROOT a built checkout,
// e.g. a worktree of another commit: `git worktree add --detach ../base COMMIT`, node_modules linked or
// installed, `node scripts/build.js`), measured in alternation with `node -e 0`: in each round every build runs
// each case once, in turn, with `node -e 0` between builds, the builds' order reversed every other round, so
// that a slow phase of the shared machine hits them alike. Prints per build and case the median wall time and
// its ratio to the median of `node -e 0`.
//
// Cases: `inprocess` — `sessions list --json` with no key, no terminal, CI=1 and no server running (the server
// in the CLI's process, issue 38's ≤ 3×); `http` — `sessions get ID --json` against a running server (issue 38's
// ≤ 1.5×); `version` — `--version` (≤ 1.2×); `help` — `sessions get --help` (no slower than before). Env:
// CLI_ROUNDS (default 20), CLI_CASES (comma-separated, default all four).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { call, median, startChild, stopChildren } from './children.js';

const roots = process.argv.slice(2).map((r) => resolve(r));
if (roots.length === 0) {
  process.stderr.write('usage: node bench/cli-compare.js ROOT_A [ROOT_B…]\n');
  process.exit(2);
}
const ROUNDS = Number(process.env.CLI_ROUNDS ?? 20);
const CASES = (process.env.CLI_CASES ?? 'inprocess,http,version,help').split(',').map((c) => c.trim());
const tmp = mkdtempSync(join(tmpdir(), 'payorch-cli-compare-'));
const base = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PAYORCH_'))),
  NO_COLOR: '1',
};

function run(args, env = {}) {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return ms;
}

try {
  const { info } = await startChild(join(roots[0], 'bench', 'serve.js'), [join(tmp, 'server')]);
  const id = JSON.parse((await call(info, 'POST', '/create-session', { amount: 1999, currency: 'usd' })).text).id;
  const builds = roots.map((root, i) => {
    const bin = join(root, 'bin', 'run.js');
    // Each build its own home (its own data directory: the in-process server's), with one session in it.
    const home = join(tmp, `home${i}`);
    const env = { PAYORCH_HOME: home, CI: '1', PAYORCH_DAEMON: '0' };
    run([bin, 'sessions', 'create', '--amount', '100', '--currency', 'usd', '--json'], env);
    const cases = {
      inprocess: { args: [bin, 'sessions', 'list', '--json'], env },
      http: { args: [bin, 'sessions', 'get', id, '--json', '--base-url', info.baseUrl, '--api-key', info.apiKey] },
      version: { args: [bin, '--version'] },
      help: { args: [bin, 'sessions', 'get', '--help'] },
    };
    return {
      root,
      cases: Object.fromEntries(CASES.map((c) => [c, cases[c]])),
      times: Object.fromEntries(CASES.map((c) => [c, []])),
    };
  });
  const node = [];
  for (let round = 0; round < ROUNDS + 2; round++) {
    const order = round % 2 ? [...builds].reverse() : builds;
    for (const b of order) {
      const t = run(['-e', '0']);
      if (round >= 2) node.push(t); // two warm-up rounds (page cache, code cache)
      for (const [name, c] of Object.entries(b.cases)) {
        const ms = run(c.args, c.env);
        if (round >= 2) b.times[name].push(ms);
      }
    }
  }
  const n = median(node);
  process.stdout.write(`node -e 0: median ${n.toFixed(1)} ms over ${node.length} runs\n`);
  for (const b of builds) {
    for (const [name, xs] of Object.entries(b.times)) {
      process.stdout.write(
        `${b.root}  ${name.padEnd(9)}  median ${median(xs).toFixed(1).padStart(6)} ms  ${(median(xs) / n).toFixed(2)}×\n`,
      );
    }
  }
} finally {
  stopChildren();
  rmSync(tmp, { recursive: true, force: true });
}
