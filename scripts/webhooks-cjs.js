#!/usr/bin/env node
// Build step (scripts/build.js): `payorch/webhooks` for CommonJS, beside the ES module, from the same source.
// A receiver in a default `npm init -y` project (CommonJS) calls require('payorch/webhooks'); package.json's
// exports send that to dist/cjs/webhooks.js:
// - the code: src/webhooks.ts bundled by esbuild into one CommonJS file (it needs node:crypto only);
// - its types: declarations compiled by tsc for a CommonJS target (tsconfig.cjs.json), so that a CommonJS
//   TypeScript project type-checks them as CommonJS;
// - dist/cjs/package.json {"type": "commonjs"}: the package itself is "type": "module".
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tscPath } from './toolchain.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const esbuild = require('esbuild');
const outDir = join(root, 'dist', 'cjs');

execFileSync(process.execPath, [tscPath(), '-p', 'tsconfig.cjs.json'], {
  cwd: root,
  stdio: 'inherit',
});
const result = await esbuild.build({
  entryPoints: [join(root, 'src', 'webhooks.ts')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  write: false,
  logLevel: 'warning',
});
const bundled = result.outputFiles[0].text;
if (/\brequire\((?!"node:crypto"\))/.test(bundled))
  throw new Error('webhooks-cjs: the bundle requires more than node:crypto');
const code = `// payorch/webhooks for CommonJS: src/webhooks.ts bundled by scripts/webhooks-cjs.js.\n${bundled}`;

// Written by rename, as every build step: a build never leaves a half-written file under a running test.
const write = (file, text) => {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
};
mkdirSync(outDir, { recursive: true });
write(join(outDir, 'package.json'), '{ "type": "commonjs" }\n');
write(join(outDir, 'webhooks.js'), code);
