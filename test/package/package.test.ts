// The package as an application gets it: the tarball `npm pack` makes, installed into a fresh `npm init -y` project
// (CommonJS) and into an ES module one ("type": "module"), type-checked by a TypeScript consumer without
// skipLibCheck, and both entry points run from each: `payorch/webhooks` and `payorch` (a server started in memory,
// a request through the client) as an ES module and through require().
//
// Offline (every run): the tarball is unpacked into the project and its production dependencies are linked from this
// repository's node_modules, as package-lock.json resolved them (never a dev dependency: what a consumer does not
// install must not make the check pass). What the registry would resolve for a consumer is checked from package.json
// and the lockfile: `overrides` do not reach a consumer, so nothing they pin may be a production dependency.
// From the registry (PAYORCH_REGISTRY_TESTS=1, which .ci/run sets): a real `npm install` of the tarball, then the same.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, existsSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(v: string, range: string): boolean;
  minVersion(range: string): { version: string };
};
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

interface LockEntry {
  version?: string;
  dev?: boolean;
  devOptional?: boolean;
  engines?: { node?: string };
}

/** The Node versions the package supports: the oldest its engines allow, and the later majors. */
const NODES = [semver.minVersion(pkg.engines.node).version, '22.12.0', '24.0.0'];

const production = Object.entries(lock.packages).filter(([path, e]) => path !== '' && !e.dev && !e.devOptional);

// A consumer's code: the README's import of each entry point, a signature made and checked, a forged one refused.
const CHECK = `
const body = JSON.stringify({ id: 'evt_1', object: 'event', type: 'payment_session.created', data: { object: { id: 'ps_1' } } });
const header = signatureHeader(body, 'whsec_right', Math.floor(Date.now() / 1000));
const event: Event = verifyWebhook(body, header, 'whsec_right');
let code = '';
try {
  verifyWebhook(body, header, 'whsec_wrong');
} catch (err) {
  if (err instanceof WebhookSignatureError) code = err.code;
}
console.log(JSON.stringify({ id: event.id, code }));
`;
// The README's "As a library": a server in memory, one request through the client (a function: CommonJS has no
// top-level await).
const LIBRARY = `
async function main(): Promise<void> {
  const server: RunningServer = await startServer({ port: 0, memory: true });
  try {
    const client = new Client({ apiKey: server.apiKey, baseUrl: server.baseUrl });
    const session: PaymentSession = await client.sessions.create({ amount: 1999, currency: 'usd' });
    console.log(JSON.stringify({ amount: session.amount, status: session.status }));
  } finally {
    await server.close();
  }
}
main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
`;
const LIBRARY_IMPORT = `import { Client, startServer, type PaymentSession, type RunningServer } from 'payorch';`;
const LIBRARY_OUT = `${JSON.stringify({ amount: 1999, status: 'requires_payment_method' })}\n`;

const FILES: Record<string, string> = {
  // An ES module that uses the whole library's types (the server's reach better-sqlite3's) and the webhooks entry.
  'esm.mts': `import type { Client, RunningServer } from 'payorch';
import { signatureHeader, verifyWebhook, WebhookSignatureError, type Event } from 'payorch/webhooks';
export type Used = [Client, RunningServer];
${CHECK}`,
  // CommonJS (node16 resolution: the require condition of package.json's exports).
  'cjs.cts': `import { signatureHeader, verifyWebhook, WebhookSignatureError, type Event } from 'payorch/webhooks';
${CHECK}`,
  // The whole library from each: an ES module, CommonJS, and a .ts file that is whichever the application is.
  'lib.mts': `${LIBRARY_IMPORT}\n${LIBRARY}`,
  'lib.cts': `${LIBRARY_IMPORT}\n${LIBRARY}`,
  'lib.ts': `${LIBRARY_IMPORT}\n${LIBRARY}`,
  // CommonJS with "module": "commonjs" and no moduleResolution: TypeScript 7 resolves it as "bundler" (through
  // exports). TypeScript 5 and 6 resolved it as node10 (no exports: typesVersions and "types"), which TypeScript 7
  // removed, so that older consumers' path is no longer type-checked here; typesVersions stays for them.
  'node10.ts': `import { signatureHeader, verifyWebhook, WebhookSignatureError, type Event } from 'payorch/webhooks';
${LIBRARY_IMPORT}
${CHECK}
${LIBRARY}`,
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      module: 'node16',
      target: 'es2022',
      strict: true,
      skipLibCheck: false,
      types: ['node'],
      outDir: 'out',
    },
    files: ['esm.mts', 'cjs.cts', 'lib.mts', 'lib.cts', 'lib.ts'],
  }),
  'tsconfig.node10.json': JSON.stringify({
    compilerOptions: {
      module: 'commonjs',
      target: 'es2022',
      strict: true,
      skipLibCheck: false,
      types: ['node'],
      noEmit: true,
    },
    files: ['node10.ts'],
  }),
};

/** Runs a command to its end (asynchronously: a test that waits minutes must not block the worker's event loop). */
function run(
  cmd: string,
  args: string[],
  cwd: string,
  timeout = 120_000,
): Promise<{ code: number | null; out: string; stdout: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, npm_config_update_notifier: 'false' };
    execFile(cmd, args, { cwd, encoding: 'utf8', timeout, env, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : null;
      resolve({ code, out: `${stdout}${stderr}`, stdout });
    });
  });
}

async function pack(): Promise<string> {
  const dir = tempDir();
  const r = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], root);
  expect(r.code, r.out).toBe(0);
  return join(dir, JSON.parse(r.stdout)[0].filename);
}

/** A fresh project as `npm init -y` writes it (CommonJS), or with "type": "module". */
function freshProject(type: 'commonjs' | 'module' = 'commonjs'): string {
  const app = tempDir();
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'app', version: '1.0.0', main: 'index.js', type }, null, 2),
  );
  return app;
}

/** The tarball unpacked into the project, its production dependencies linked from this repository's. */
async function installOffline(app: string, tarball: string): Promise<void> {
  const into = join(app, 'node_modules', 'payorch');
  mkdirSync(into, { recursive: true });
  const untar = await run('tar', ['-xzf', tarball, '-C', into, '--strip-components=1'], app);
  expect(untar.code, untar.out).toBe(0);
  for (const [path] of production) {
    const name = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(path)?.[1];
    if (!name) continue; // nested: inside the linked package that holds it
    mkdirSync(dirname(join(app, 'node_modules', name)), { recursive: true });
    symlinkSync(join(root, path), join(app, 'node_modules', name), 'dir');
  }
}

/** The application's own development dependency: @types/node (fastify's types need it too), when not installed yet. */
function linkTypesNode(app: string): void {
  const to = join(app, 'node_modules', '@types', 'node');
  if (existsSync(to)) return;
  mkdirSync(dirname(to), { recursive: true });
  symlinkSync(join(root, 'node_modules', '@types', 'node'), to, 'dir');
}

/**
 * Type-checks the consumer's files (no skipLibCheck), then runs them compiled: the ES module and the CommonJS one.
 * With `server`, the library's files too (they start the server: better-sqlite3's native build must be there).
 */
async function consumerChecks(app: string, { server }: { server: boolean }): Promise<void> {
  for (const [name, text] of Object.entries(FILES)) writeFileSync(join(app, name), text);
  linkTypesNode(app);
  const [node16, node10] = await Promise.all([
    run(process.execPath, [tsc, '-p', 'tsconfig.json'], app),
    run(process.execPath, [tsc, '-p', 'tsconfig.node10.json'], app),
  ]);
  expect(node16.out).toBe('');
  expect(node16.code).toBe(0);
  expect(node10.out).toBe('');
  expect(node10.code).toBe(0);
  for (const file of ['out/esm.mjs', 'out/cjs.cjs']) {
    const r = await run(process.execPath, [file], app, 20_000);
    expect(r.out, file).toBe(`${JSON.stringify({ id: 'evt_1', code: 'signature_mismatch' })}\n`);
  }
  // The README's receiver is CommonJS: require() itself, from a plain .js file of the project.
  const plain = await run(
    process.execPath,
    [
      '-e',
      "const w = require('payorch/webhooks'); console.log(typeof w.verifyWebhook, Object.keys(require.cache).length)",
    ],
    app,
    20_000,
  );
  expect(plain.out).toBe('function 1\n'); // one file: the CommonJS build loads nothing but node:crypto
  if (!server) return;
  // lib.js is CommonJS or an ES module as the application's package.json says.
  for (const file of ['out/lib.mjs', 'out/lib.cjs', 'out/lib.js']) {
    const r = await run(process.execPath, [file], app, 30_000);
    expect(r.out, file).toBe(LIBRARY_OUT);
  }
  // Plain JavaScript, each way (what a compiled file does not show: a name the types have that the code lacks).
  const names = "['Client', 'startServer', 'runFixtures', 'ApiError', 'verifyWebhook', 'Snapshot']";
  const required = await run(
    process.execPath,
    ['-e', `const p = require('payorch'); console.log(${names}.map((n) => typeof p[n]).join())`],
    app,
    30_000,
  );
  const imported = await run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const p = await import('payorch'); console.log(${names}.map((n) => typeof p[n]).join())`,
    ],
    app,
    30_000,
  );
  expect({ required: required.out, imported: imported.out }).toEqual({
    required: 'function,function,function,function,function,function\n',
    imported: 'function,function,function,function,function,function\n',
  });
}

describe('the packed package, installed as an application installs it', () => {
  let tarball: string;
  beforeAll(async () => {
    tarball = await pack();
  }, 60_000);

  it.each(['commonjs', 'module'] as const)(
    'in a "type": "%s" application: type-checks without skipLibCheck, runs payorch and payorch/webhooks from an ES module and from require()',
    async (type) => {
      const app = freshProject(type);
      await installOffline(app, tarball);
      await consumerChecks(app, { server: true });
    },
    240_000, // two type-checks of the whole library's declarations (fastify's included), four servers
  );

  it('pins no production dependency by `overrides` alone: they do not reach an application', () => {
    for (const [name, spec] of Object.entries((pkg.overrides ?? {}) as Record<string, string>)) {
      const shipped = production.filter(([path]) => path.endsWith(`node_modules/${name}`));
      // A consumer resolves it from the ranges of what depends on it, not from this pin; a direct dependency of
      // the same version is what reaches them.
      if (shipped.length > 0) expect({ name, dependency: pkg.dependencies[name] }).toEqual({ name, dependency: spec });
    }
  });

  it('every production dependency supports the Node versions the package does (no EBADENGINE on install)', () => {
    const unsupported = production
      .filter(([, e]) => e.engines?.node !== undefined && NODES.some((v) => !semver.satisfies(v, e.engines!.node!)))
      .map(([path, e]) => `${path}@${e.version} (node ${e.engines!.node})`);
    expect(unsupported).toEqual([]);
  });
});

/** name@version (engines.node) of every package installed under `dir`, nested ones included. */
function installed(dir: string, out: { id: string; node?: string }[] = []): { id: string; node?: string }[] {
  const modules = join(dir, 'node_modules');
  if (!existsSync(modules)) return out;
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue;
    const dirs = entry.startsWith('@')
      ? readdirSync(join(modules, entry)).map((n) => join(modules, entry, n))
      : [join(modules, entry)];
    for (const d of dirs) {
      const p = JSON.parse(readFileSync(join(d, 'package.json'), 'utf8'));
      out.push({ id: `${p.name}@${p.version}`, node: p.engines?.node });
      installed(d, out);
    }
  }
  return out;
}

// Uses the npm registry (what a consumer resolves today, not what the lockfile says): CI runs it (.ci/run).
describe.runIf(process.env.PAYORCH_REGISTRY_TESTS === '1')('the packed package, installed from the registry', () => {
  it('installs without an engine warning for Node 20, 22 or 24, type-checks and runs payorch/webhooks both ways', async () => {
    const tarball = await pack();
    const app = freshProject();
    // --ignore-scripts: no native build of better-sqlite3 (what is checked here never loads it).
    const install = await run(
      'npm',
      ['install', tarball, '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'],
      app,
      280_000,
    );
    expect(install.code, install.out).toBe(0);
    expect(install.out).not.toContain('EBADENGINE');
    const unsupported = installed(app).filter(
      (p) => p.node !== undefined && NODES.some((v) => !semver.satisfies(v, p.node!)),
    );
    expect(unsupported).toEqual([]);
    await consumerChecks(app, { server: false });
  }, 300_000);
});
