// The command path from one file (scripts/bundle-cli.js → dist/vendor/cli.cjs, run by src/lib/cli/fast.ts from
// bin/run.js when src/lib/cli/fast-route.ts finds the command): what a command loads, and that it answers exactly as
// oclif's usual way does (PAYORCH_CLI_BUNDLE=0) — output, errors, help after a usage error, exit codes — while help,
// unknown commands, topics and the commands left out of the index still go the usual way.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { against, runCli, type CliResult } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';

const BUNDLE = fileURLToPath(new URL('../../dist/vendor/cli.cjs', import.meta.url));

let s: TestServer;
let sessionId: string;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
  const r = await runCli(['sessions', 'create', '--amount', '1999', '--currency', 'usd', '--json', ...against(s)]);
  sessionId = r.json().id;
});
afterAll(() => s?.close());

/** Runs the binary and reports which of the bundle's modules ran and which ES modules Node loaded. */
async function traced(args: string[], env: Record<string, string> = {}) {
  const dir = tempDir();
  const out = join(dir, 'modules.json');
  const preload = join(dir, 'trace.cjs');
  writeFileSync(
    preload,
    `const list = (globalThis[Symbol.for('payorch.modules')] = []);\n` +
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(list)));\n`,
  );
  const r = await runCli(args, { env: { NODE_OPTIONS: `--require ${preload}`, NODE_DEBUG: 'esm', ...env } });
  const ran = JSON.parse(readFileSync(out, 'utf8')) as string[];
  const esm = [...new Set([...r.stderr.matchAll(/Storing (file:\/\/\S+\.m?js)/g)].map((m) => m[1]!))];
  return { r, ran, esm };
}

describe('the command path bundle', { timeout: 240_000 }, () => {
  it('is code-cacheable: no import() call left in it', () => {
    expect(readFileSync(BUNDLE, 'utf8').match(/\bimport\s*\((?!\s*\))/g)).toBeNull();
  });

  it('holds neither TypeBox nor the contract schemas (every command run reads and compiles the whole file) and is ASCII only', () => {
    const code = readFileSync(BUNDLE, 'latin1');
    // esbuild's module wrappers are keyed by each module's path.
    expect(
      code.match(/"[^"]*(@sinclair\/typebox|dist\/lib\/contract\/(events|webhooks|listeners|common))[^"]*"/g),
    ).toBeNull();
    // One character outside ASCII makes V8 keep the whole source as a two-byte string.
    expect(code.match(/[^\0-\x7f]/g)).toBeNull();
  });

  it('`sessions get --json` runs from it: no ES module of ours, none of oclif’s configuration, help, TypeBox, prompts, colours, tables or server', async () => {
    const { r, ran, esm } = await traced(['sessions', 'get', sessionId, '--json', ...against(s)]);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.stdout).toContain(sessionId);
    expect(ran).toContain('dist/commands/sessions/get.js');
    expect(ran).toContain('dist/lib/client/client.js');
    expect(esm.filter((m) => !m.includes('/node_modules/'))).toEqual([]);
    expect(esm).toEqual([]); // no ES module at all: the bundle and the compile cache are CommonJS
    const unwanted = ran.filter((m) =>
      /@oclif\/core\/lib\/(config\/config|help\/index|ux\/index)|@sinclair\/typebox|@inquirer|chalk|cli-table3|tinyglobby|semver|ejs|dist\/lib\/server\/|dist\/lib\/contract\/(?!prefix|keys|simulate|limits|time)/.test(
        m,
      ),
    );
    expect(unwanted).toEqual([]);
    // Without the bundle: the ES modules, as before.
    const usual = await traced(['sessions', 'get', sessionId, '--json', ...against(s)], { PAYORCH_CLI_BUNDLE: '0' });
    expect(usual.r.stdout).toBe(r.stdout);
    expect(usual.ran).toEqual([]);
    expect(usual.esm.some((m) => m.endsWith('/dist/lib/client/client.js'))).toBe(true);
  });

  it('help, topics, unknown commands and commands left out of the index go the usual way', async () => {
    for (const args of [
      ['--help'],
      ['sessions', 'get', '--help'],
      ['help', 'sessions'],
      ['sessions'],
      ['sesions'],
      ['completion', 'bash'],
    ]) {
      const { r, ran } = await traced(args);
      expect([args, ran]).toEqual([args, []]); // the bundle is not even loaded: the router said no
      expect(r.code === 0 || r.code === 2, `${args.join(' ')}: ${r.stderr}`).toBe(true);
    }
  });

  it('answers exactly as the usual way: output, usage errors with help, API errors, exit codes', async () => {
    const norm = (r: CliResult) => ({
      code: r.code,
      stdout: r.stdout.replace(/req_[A-Za-z0-9]+/g, 'req_…'),
      stderr: r.stderr.replace(/req_[A-Za-z0-9]+/g, 'req_…'),
    });
    const cases: string[][] = [
      ['sessions', 'get', sessionId, ...against(s)],
      ['sessions', 'get', sessionId, '--json', ...against(s)],
      ['sessions', 'get', ...against(s)], // missing argument: oclif's error, then the command's help
      ['sessions', 'get', '--json', ...against(s)],
      ['sessions', 'get', '', ...against(s)],
      ['sessions', 'get', sessionId, '--nope', ...against(s)],
      ['sessions', 'get', sessionId, sessionId, ...against(s)], // unexpected argument
      ['sessions', 'get', '00000000-0000-7000-8000-000000000000', '--json', ...against(s)], // 404
      ['sessions', 'get', sessionId, '--timeout', 'soon', ...against(s)],
      ['sessions', 'list', '--limit', 'x', ...against(s)],
      ['sessions', 'create', '--amount', '5', ...against(s), '--json'], // missing required flag, no terminal
      ['sessions:get', sessionId, '--json', ...against(s)],
      ['sessions', 'get', '--', sessionId, '--json', ...against(s)],
    ];
    for (const args of cases) {
      const [fast, usual] = await Promise.all([runCli(args), runCli(args, { env: { PAYORCH_CLI_BUNDLE: '0' } })]);
      expect([args.join(' '), norm(fast)]).toEqual([args.join(' '), norm(usual)]);
    }
  });
});
