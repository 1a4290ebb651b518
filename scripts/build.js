#!/usr/bin/env node
// Build: compile TypeScript to dist/, build the entry points for CommonJS into dist/cjs (scripts/cjs.js),
// bundle @oclif/core into dist/vendor (scripts/bundle-oclif.js: start-up loads 1 file instead of ~110), bundle the
// in-process server into dist/vendor/embedded.cjs (scripts/bundle-embedded.js: one file instead of ~250), write
// the oclif manifest (so startup never scans command files) and bundle the command path into dist/vendor/cli.cjs
// (scripts/bundle-cli.js, from the manifest: a command runs without oclif's start-up).
// Runs on `npm ci` / `npm install` (prepare), before `npm test` and before `npm run bench`.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { tscPath } from './toolchain.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const run = (script, args) => execFileSync(process.execPath, [script, ...args], { cwd: root, stdio: 'inherit' });

let tsc;
try {
  tsc = tscPath();
} catch {
  // Installed without devDependencies (a consumer of the published package): dist/ ships prebuilt.
  if (existsSync(join(root, 'dist'))) process.exit(0);
  console.error('build: typescript is not installed; run `npm ci` first');
  process.exit(1);
}
// dist/ is overwritten in place (not removed first) so that a build never pulls files from under a running test.
run(tsc, ['-p', 'tsconfig.build.json']);
run(join(root, 'scripts', 'cjs.js'), []);
run(join(root, 'scripts', 'bundle-oclif.js'), []);
run(join(root, 'scripts', 'bundle-embedded.js'), []);
run(require.resolve('oclif/bin/run.js'), ['manifest']);
run(join(root, 'scripts', 'bundle-cli.js'), []);
