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
  // V8 code cache for the CommonJS that oclif loads (see src/lib/cli/compile-cache.ts); never fails the run.
  try {
    (await import('../dist/lib/cli/compile-cache.js')).enableCompileCache();
  } catch {
    // run without it
  }
  const { execute } = await import('@oclif/core');
  if (skipSet) delete env.OCLIF_DISABLE_ENGINE_WARNING;
  await execute({ dir: import.meta.url });
}
