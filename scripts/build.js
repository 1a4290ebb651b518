#!/usr/bin/env node
// Build: compile TypeScript to dist/, build the entry points for CommonJS into dist/cjs (scripts/cjs.js),
// bundle @oclif/core into dist/vendor (scripts/bundle-oclif.js), bundle the in-process server into
// dist/vendor/embedded.cjs (scripts/bundle-embedded.js), write the oclif manifest (so startup never scans
// command files) and bundle the command path into dist/vendor/cli.cjs (scripts/bundle-cli.js, from the
// manifest: a command runs without oclif's start-up).
// Runs on `npm ci` / `npm install` (prepare), before `npm test` and before `npm run bench`.
//
// `--if-stale` (prepare) skips the build when dist/ was built from the sources as they are: the hash of what it
// is built from (src/, scripts/, package.json, the lockfile, the tsconfigs) is kept in dist/.build-inputs. `npx
// payorch` inside this repository installs the repository into npx's cache, which runs prepare again right after
// `npm install` ran it: without the check, the Quick start's first command waited for a second full build.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
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
/** The hash of every file the build reads from the repository (node_modules: through the lockfile). */
function inputsHash() {
  const files = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
  const walk = (dir) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else files.push(join(dir, e.name));
    }
  };
  walk('src');
  walk('scripts');
  const h = createHash('sha256');
  for (const f of files.sort()) {
    h.update(`${f}\0`);
    h.update(existsSync(join(root, f)) ? readFileSync(join(root, f)) : '(none)');
    h.update('\0');
  }
  return h.digest('hex');
}
const stamp = join(root, 'dist', '.build-inputs');
const OUTPUTS = [
  'dist/index.js',
  'dist/cjs/index.js',
  'dist/vendor/embedded.cjs',
  'oclif.manifest.json',
  'dist/vendor/cli.cjs',
];
const inputs = inputsHash();
if (process.argv.includes('--if-stale')) {
  const built = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
  if (built === inputs && OUTPUTS.every((f) => existsSync(join(root, f)))) {
    console.log('build: dist/ is up to date with its sources (`npm run build` builds anyway)');
    process.exit(0);
  }
}

// dist/ is overwritten in place (not removed first) so that a build never pulls files from under a running test.
run(tsc, ['-p', 'tsconfig.build.json']);
run(join(root, 'scripts', 'cjs.js'), []);
run(join(root, 'scripts', 'bundle-oclif.js'), []);
run(join(root, 'scripts', 'bundle-embedded.js'), []);
run(require.resolve('oclif/bin/run.js'), ['manifest']);
run(join(root, 'scripts', 'bundle-cli.js'), []);
// The hash of the sources as they were when this build started (an edit made meanwhile leaves dist/ stale).
writeFileSync(`${stamp}.${process.pid}.tmp`, `${inputs}\n`);
renameSync(`${stamp}.${process.pid}.tmp`, stamp);
