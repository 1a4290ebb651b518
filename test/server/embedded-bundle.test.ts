// The in-process way in from its one-file bundle (scripts/bundle-embedded.js → dist/vendor/embedded.cjs, loaded by
// src/lib/cli/embedded.ts): a command with no key and no server running loads the server from it (not from ~250
// ES modules, which Node 20 compiles afresh on every run), the compile cache keeps it, and what the bundle moved —
// `import.meta.url` of the modules inside it (package.json for the version, a package loaded on first use) —
// still resolves. Every in-process CLI test runs the binary with it; here, what makes that true.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const BUNDLE = fileURLToPath(new URL('../../dist/vendor/embedded.cjs', import.meta.url));
const { version } = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as {
  version: string;
};

/** The ES modules of dist/lib/server a run loaded (Node's own debug lines for the ES module loader). */
const serverModules = (stderr: string) => [
  ...new Set(
    [...stderr.matchAll(/Storing (file:\/\/\S+\/dist\/lib\/server\/\S+\.js)/g)].map((m) =>
      m[1].replace(/.*\/dist\//, ''),
    ),
  ),
];

describe('the in-process server from its bundle', { timeout: 120_000 }, () => {
  it('is one CommonJS file with no import() left in it', () => {
    const code = readFileSync(BUNDLE, 'utf8');
    expect(code.match(/\bimport\s*\((?!\s*\))/g)).toBeNull();
    expect(code).toContain('__payorchFileUrl("../lib/server/version.js")');
    expect(code).not.toContain('import.meta');
  });

  it('a command with no key and no terminal loads the server from the bundle; the ES modules give the same answer', async () => {
    const home = tempDir();
    const created = await runCli(['sessions', 'create', '--amount', '700', '--currency', 'usd', '--json'], { home });
    expect(created.code, created.stderr).toBe(0);
    const [bundled, modules] = await Promise.all([
      runCli(['sessions', 'list', '--json'], { home, env: { NODE_DEBUG: 'esm' } }),
      runCli(['sessions', 'list', '--json'], { home, env: { NODE_DEBUG: 'esm', PAYORCH_EMBEDDED_BUNDLE: '0' } }),
    ]);
    for (const r of [bundled, modules]) {
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
      expect(r.json().data.map((s: { id: string }) => s.id)).toEqual([created.json().id]);
    }
    // The probe sees the server's modules when they are loaded as ES modules …
    expect(serverModules(modules.stderr)).toContain('lib/server/server.js');
    // … and with the bundle, none of the server proper: only the light modules the CLI imports itself (the lock
    // file, which finds a running server without the database; seed.js for its error class).
    expect(
      serverModules(bundled.stderr).filter((m) => !['lib/server/lock.js', 'lib/server/seed.js'].includes(m)),
    ).toEqual([]);
  });

  it("fastify's node:https, node:http2 and node:dns load on first use: an in-process command loads none of them", async () => {
    const code = readFileSync(BUNDLE, 'utf8');
    for (const id of ['https', 'http2', 'dns']) expect(code).toContain(`__payorchLazy("node:${id}")`);
    const dir = tempDir();
    const probe = join(dir, 'builtins.cjs');
    writeFileSync(
      probe,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(join(dir, 'loaded.txt'))}, process.moduleLoadList.join('\\n')));`,
    );
    const r = await runCli(['sessions', 'list', '--json'], {
      home: tempDir(),
      env: { NODE_OPTIONS: `--require ${probe}` },
    });
    expect(r.code, r.stderr).toBe(0);
    const loaded = readFileSync(join(dir, 'loaded.txt'), 'utf8').split('\n');
    expect(loaded).toContain('NativeModule http'); // the probe sees Node's modules
    for (const id of ['https', 'http2', 'dns', 'tls']) expect(loaded).not.toContain(`NativeModule ${id}`);
  });

  it('the compile cache keeps the bundle, and what import.meta.url located resolves from it', async () => {
    const home = tempDir();
    const cache = tempDir();
    const env = { XDG_CACHE_HOME: cache };
    const health = await runCli(['api', 'GET', '/health', '--json'], { home, env });
    expect(health.code, health.stderr).toBe(0);
    expect(health.json().version).toBe(version); // package.json, found from version.js's own place in dist/
    const dir = join(cache, 'payorch-nodejs', 'compile-cache');
    const [file] = readdirSync(dir);
    const head = readFileSync(join(dir, file), 'latin1');
    const size = Number(head.slice(0, head.indexOf('\n')).split(' ')[1]);
    const index = JSON.parse(head.slice(head.indexOf('\n') + 1, head.indexOf('\n') + 1 + size)) as Record<
      string,
      unknown
    >;
    expect(Object.keys(index)).toContain(BUNDLE);

    // fastest-levenshtein, loaded on the first unknown field through createRequire(import.meta.url)
    const typo = await runCli(
      ['api', 'POST', '/create-session', '--data', '{"amount": 100, "currency": "usd", "descripton": "x"}', '--json'],
      { home, env },
    );
    expect(typo.code).toBe(1);
    expect(typo.json().error.message).toMatch(/Did you mean description\?/);
  });
});
