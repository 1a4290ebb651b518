#!/usr/bin/env node
// Fast path: `payorch --version` answers without loading oclif (startup budget: ≤ 2× `node -e 0`).
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  const { readFileSync } = await import('node:fs');
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.name}/${pkg.version} ${process.platform}-${process.arch} node-${process.version}\n`);
} else {
  // @oclif/core checks on import that Node satisfies ITS engines (>=18) with `semver` (~50 files, ~5–8 ms).
  // Our own engines (>=20.18) are stricter, so that check cannot fail here: skip it, without leaking the
  // setting into the environment of processes we start.
  const env = process.env;
  const skipSet = env.OCLIF_DISABLE_ENGINE_WARNING === undefined;
  if (skipSet) env.OCLIF_DISABLE_ENGINE_WARNING = '1';
  // Start-up: the V8 code cache (src/lib/cli/compile-cache.ts), then @oclif/core from its one-file bundle
  // (src/lib/cli/oclif-bundle.ts). Neither can fail the run: without them oclif loads as usual.
  const [cache, bundle] = await Promise.allSettled([
    import('../dist/lib/cli/compile-cache.js'),
    import('../dist/lib/cli/oclif-bundle.js'),
  ]);
  if (cache.status === 'fulfilled') cache.value.enableCompileCache();
  if (bundle.status === 'fulfilled') bundle.value.useOclifBundle();
  const { execute } = await import('@oclif/core');
  if (skipSet) delete env.OCLIF_DISABLE_ENGINE_WARNING;
  await execute({ dir: import.meta.url });
}
