// The CLI's V8 code cache (src/lib/cli/compile-cache.ts, enabled by bin/run.js): it lives in the per-user
// cache directory, changes nothing in what the CLI prints, follows a cached file that changes, and is
// harmless when its directory cannot be written or its file is corrupt.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import envPaths from 'env-paths';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { against, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const COMPILE_CACHE = fileURLToPath(new URL('../../dist/lib/cli/compile-cache.js', import.meta.url));
const { compileCacheDir, checksum, checksumJs, checksumWasm } = (await import(
  COMPILE_CACHE
)) as typeof import('../../src/lib/cli/compile-cache.js');
/** Node < 22.1 uses the project's own CommonJS hook (one file); later versions Node's own cache. */
const ownHook = typeof (Module as { enableCompileCache?: unknown }).enableCompileCache !== 'function';

let s: TestServer;
let sessionId: string;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
  sessionId = (await s.request('POST', '/create-session', { body: { amount: 1999, currency: 'usd' } })).body.id;
  expect(sessionId).toBeTypeOf('string');
});
afterAll(() => s?.close());

/** Environment that puts the per-user cache directory under `cacheHome` (Linux: XDG; elsewhere: HOME). */
const cacheEnv = (cacheHome: string, extra: Record<string, string> = {}) => ({
  XDG_CACHE_HOME: cacheHome,
  HOME: cacheHome,
  LOCALAPPDATA: cacheHome,
  NODE_DISABLE_COMPILE_CACHE: undefined,
  ...extra,
});
const cacheDirOf = (cacheHome: string) => join(cacheHome, 'payorch-nodejs', 'compile-cache');

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath ?? (d as unknown as { path: string }).path, d.name));
}

/** The project's cache file with bytes flipped in V8's data of every entry (its sources left intact). */
function flipCachedData(file: Buffer): Buffer {
  const b = Buffer.from(file);
  const nl = b.indexOf(10);
  const base = nl + 1 + Number(b.toString('latin1', 0, nl).split(' ')[1]);
  const index = JSON.parse(b.toString('utf8', nl + 1, base)) as Record<string, [number, number, number, number]>;
  for (const [offset, dataBytes] of Object.values(index))
    for (let i = 16; i < dataBytes; i += 61) b[base + offset + i]! ^= 0x5a;
  return b;
}

describe('compile cache', { timeout: 60_000 }, () => {
  it('checks large entries in WebAssembly with the same checksum as the JavaScript loop, which any flipped byte changes', () => {
    const seen = new Set<number>();
    // Lengths around the word size and the 64 KiB pages (the tail loop, the memory's growth), odd offsets.
    for (const n of [0, 1, 3, 4, 5, 7, 8, 65_535, 65_536, 65_537, 200_003, 600_000]) {
      const data = Buffer.alloc(n + 1);
      for (let i = 0; i < data.length; i++) data[i] = (i * 2654435761) >>> 24;
      const b = data.subarray(1); // not 4-byte aligned
      const sum = checksumJs(b);
      expect(checksumWasm(b)).toBe(sum);
      expect(checksum(b)).toBe(sum);
      seen.add(sum);
      if (n > 0) {
        b[n >> 1]! ^= 1;
        expect(checksumWasm(b)).not.toBe(sum);
        expect(checksumWasm(b)).toBe(checksumJs(b));
      }
    }
    expect(seen.size).toBe(12);
  });

  it("lives in env-paths' per-user cache directory (the convention of the profiles' config directory)", () => {
    expect(compileCacheDir()).toBe(join(envPaths('payorch').cache, 'compile-cache'));
    expect(compileCacheDir({ XDG_CACHE_HOME: '/xdg' }, 'linux')).toBe(join('/xdg', 'payorch-nodejs', 'compile-cache'));
  });

  it('is written to the per-user cache directory and changes nothing in the output', async () => {
    const plain = await runCli(['sessions', 'get', sessionId, '--json', ...against(s)], {
      env: { NODE_DISABLE_COMPILE_CACHE: '1' },
    });
    expect(plain.code).toBe(0);
    const home = tempDir();
    const first = await runCli(['sessions', 'get', sessionId, '--json', ...against(s)], { env: cacheEnv(home) });
    expect(filesUnder(cacheDirOf(home)).length).toBeGreaterThan(0);
    const second = await runCli(['sessions', 'get', sessionId, '--json', ...against(s)], { env: cacheEnv(home) });
    for (const r of [first, second]) {
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(plain.stdout);
    }
    // Turned off: nothing is written.
    const off = tempDir();
    const r = await runCli(['sessions', 'get', sessionId, '--json', ...against(s)], {
      env: cacheEnv(off, { NODE_DISABLE_COMPILE_CACHE: '1' }),
    });
    expect(r.stdout).toBe(plain.stdout);
    expect(existsSync(cacheDirOf(off))).toBe(false);
  });

  it.runIf(ownHook)(
    "one file per installation; another installation's, unused for 30 days, is removed when one is written",
    async () => {
      const home = tempDir();
      const dir = cacheDirOf(home);
      mkdirSync(dir, { recursive: true });
      const old = join(dir, `cjs-${process.version}-${process.arch}-0badc0de.bin`);
      const recent = join(dir, `cjs-${process.version}-${process.arch}-0000beef.bin`);
      for (const f of [old, recent]) writeFileSync(f, 'x');
      const monthAgo = new Date(Date.now() - 31 * 24 * 3600_000);
      utimesSync(old, monthAgo, monthAgo);
      const r = await runCli(['sessions', 'get', sessionId, '--json', ...against(s)], { env: cacheEnv(home) });
      expect(r.code).toBe(0);
      // This installation's file is named after where it is installed (dist/lib/cli of this checkout).
      const own = `cjs-${process.version}-${process.arch}-${checksum(Buffer.from(dirname(new URL('../../dist/lib/cli/compile-cache.js', import.meta.url).pathname))).toString(16)}.bin`;
      expect(readdirSync(dir).sort()).toEqual([recent.slice(dir.length + 1), own].sort());
    },
  );

  it('an unwritable cache location or a corrupt cache file changes nothing', async () => {
    const expected = (
      await runCli(['sessions', 'get', sessionId, '--json', ...against(s)], {
        env: { NODE_DISABLE_COMPILE_CACHE: '1' },
      })
    ).stdout;
    // A regular file where the cache directory would be created (unwritable for root too; Linux: XDG_CACHE_HOME).
    const blocked = join(tempDir(), 'not-a-dir');
    writeFileSync(blocked, 'x');
    const r1 = await runCli(['sessions', 'get', sessionId, '--json', ...against(s)], {
      env: cacheEnv(blocked, { HOME: tempDir() }),
    });
    expect([r1.code, r1.stderr, r1.stdout]).toEqual([0, '', expected]);
    // Damaged cache files: bytes flipped past the header and index (V8 itself does not verify code cache data
    // and would crash on it), cut short, or garbage. Each time: the same answer, twice (the cache is rebuilt).
    const home = tempDir();
    const damages: [string, (b: Buffer) => Buffer][] = [
      [
        'flipped',
        (b) =>
          ownHook ? flipCachedData(b) : (b.map((x, i) => (i > b.length / 5 && i % 97 === 0 ? x ^ 0x5a : x)) as Buffer),
      ],
      ['cut short', (b) => b.subarray(0, Math.floor(b.length * 0.6))],
      ['garbage', (b) => Buffer.alloc(b.length, 7)],
    ];
    for (const [, damage] of damages) {
      await runCli(['sessions', 'get', sessionId, '--json', ...against(s)], { env: cacheEnv(home) });
      const files = filesUnder(cacheDirOf(home));
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) writeFileSync(f, damage(readFileSync(f)));
      for (let i = 0; i < 2; i++) {
        const r = await runCli(['sessions', 'get', sessionId, '--json', ...against(s)], { env: cacheEnv(home) });
        expect([r.code, r.stderr, r.stdout]).toEqual([0, '', expected]);
      }
    }
    // Errors still come out as before (exit code and JSON body).
    const bad = await runCli(
      ['sessions', 'get', sessionId, '--json', '--base-url', s.baseUrl, '--api-key', 'sk_test_wrong'],
      { env: cacheEnv(home) },
    );
    expect(bad.code).toBe(3);
    expect(bad.json().error.code).toBe('invalid_api_key');
  });

  it('a cached CommonJS file that changes (same length) runs its new content; module semantics are kept', () => {
    const dir = tempDir();
    const home = tempDir();
    mkdirSync(join(dir, 'lib'));
    writeFileSync(join(dir, 'package.json'), '{"type":"commonjs"}');
    writeFileSync(join(dir, 'lib', 'other.js'), 'module.exports = 42;\n');
    // Line 1 holds the Error: its column in the stack must be the same with and without the cache.
    const fixture = (v: string) =>
      `const e = new Error('x'); module.exports = { v: '${v}', at: e.stack.split('\\n')[1].trim(), other: require('./lib/other.js'),\n` +
      `  resolved: require.resolve('./lib/other.js'), paths: Array.isArray(require.resolve.paths('x')), self: this === module.exports,\n` +
      `  file: __filename, dir: __dirname, cache: require.cache[__filename] === module, main: require.main === process.mainModule };\n`;
    writeFileSync(join(dir, 'fixture.js'), fixture('aaaa'));
    // A CommonJS file with a dynamic import() (as oclif's module loader has): left to Node, import() works.
    writeFileSync(join(dir, 'dynamic.js'), `exports.load = () => import('./esm.mjs');\n`);
    writeFileSync(join(dir, 'esm.mjs'), `export const x = 'esm';\n`);
    const script = join(dir, 'load.mjs');
    writeFileSync(
      script,
      `import { createRequire } from 'node:module';\n` +
        `(await import(${JSON.stringify(COMPILE_CACHE)})).enableCompileCache();\n` +
        `const require = createRequire(import.meta.url);\n` +
        `const { x } = await require('./dynamic.js').load();\n` +
        `process.stdout.write(JSON.stringify({ ...require('./fixture.js'), x }));\n`,
    );
    const load = (extra: Record<string, string> = {}) => {
      const r = spawnSync(process.execPath, [script], {
        env: {
          ...process.env,
          XDG_CACHE_HOME: home,
          HOME: home,
          LOCALAPPDATA: home,
          NODE_DISABLE_COMPILE_CACHE: '',
          ...extra,
        },
        encoding: 'utf8',
      });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      return JSON.parse(r.stdout);
    };
    const reference = load({ NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(reference).toMatchObject({
      x: 'esm',
      v: 'aaaa',
      other: 42,
      resolved: join(dir, 'lib', 'other.js'),
      paths: true,
      self: true,
      file: join(dir, 'fixture.js'),
      dir,
      cache: true,
    });
    expect(load()).toEqual(reference); // compiles, writes the cache
    const cacheFile = ownHook ? filesUnder(cacheDirOf(home)).find((f) => f.endsWith('.bin')) : undefined;
    const written = cacheFile ? statSync(cacheFile).mtimeMs : 0;
    expect(load()).toEqual(reference); // from the cache
    if (cacheFile) expect(statSync(cacheFile).mtimeMs).toBe(written); // all hits: not rewritten
    writeFileSync(join(dir, 'fixture.js'), fixture('bbbb'));
    expect(load()).toEqual({ ...reference, v: 'bbbb' });
    expect(load()).toEqual({ ...reference, v: 'bbbb' });
  });
});
