#!/usr/bin/env node
// CommonJS (bin/package.json): an ES module entry starts slower, and so does loading the compile cache as one.
'use strict';
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  // `payorch --version` answers without loading anything else (startup budget: ≤ 1.2× `node -e 0`).
  const pkg = JSON.parse(
    require('node:fs').readFileSync(require('node:path').join(__dirname, '..', 'package.json'), 'utf8'),
  );
  process.stdout.write(`${pkg.name}/${pkg.version} ${process.platform}-${process.arch} node-${process.version}\n`);
} else {
  main().catch((err) =>
    process.nextTick(() => {
      throw err;
    }),
  );
}

async function main() {
  const path = require('node:path');
  const join = (...parts) => path.join(...parts);
  const { pathToFileURL } = require('node:url');
  const root = join(__dirname, '..');
  // @oclif/core checks on import, with `semver`, that Node satisfies ITS engines (>=18). Ours (>=20.18) are
  // stricter, so that check cannot fail: skip it, without leaking the setting into processes we start.
  const env = process.env;
  const skipSet = env.OCLIF_DISABLE_ENGINE_WARNING === undefined;
  if (skipSet) env.OCLIF_DISABLE_ENGINE_WARNING = '1';
  const restore = () => {
    if (skipSet) delete env.OCLIF_DISABLE_ENGINE_WARNING;
  };
  // import() for the bundles (dist/vendor/*.cjs: without import() of their own, so that the code cache takes
  // them): ES module commands and hooks, the server's ES modules, packages loaded on demand.
  globalThis[Symbol.for('payorch.import')] ??= (specifier) => import(specifier);
  // Start-up, none of which can fail the run (without each, what follows loads as usual): the V8 code cache
  // (src/lib/cli/compile-cache.ts, as one CommonJS file); the router (src/lib/cli/fast-route.ts), then for a
  // command it finds, the one-file command path (src/lib/cli/fast.ts); for the rest — help, an unknown command,
  // … — @oclif/core from its one-file bundle (src/lib/cli/oclif-bundle.ts) and oclif's execute.
  const cache = await load(
    join(root, 'dist', 'vendor', 'compile-cache.cjs'),
    join(root, 'dist', 'lib', 'cli', 'compile-cache.js'),
  );
  cache?.enableCompileCache();
  // Help goes oclif's way: not even the router is loaded for it (the router would say the same).
  const help = argv.length === 0 || argv[0] === 'help' || argv.includes('--help') || argv.includes('-h');
  const router =
    help || env.PAYORCH_CLI_BUNDLE === '0' ? undefined : await load(join(root, 'dist', 'vendor', 'cli-route.cjs'));
  const found = router?.resolve(argv);
  if (found) {
    const fast = await load(join(root, 'dist', 'vendor', 'cli.cjs'));
    if (fast && (await fast.run(found, root, restore))) return;
  }
  const bundle = await load(undefined, join(root, 'dist', 'lib', 'cli', 'oclif-bundle.js'));
  bundle?.useOclifBundle();
  const { execute } = await import('@oclif/core');
  restore();
  await execute({ loadOptions: { root } });

  /** A CommonJS file, else an ES module; undefined when neither is there. */
  async function load(cjs, esm) {
    try {
      if (cjs) return require(cjs);
    } catch {
      // not built, or unusable: the ES module, or nothing
    }
    return esm ? import(pathToFileURL(esm).href).catch(() => undefined) : undefined;
  }
}
