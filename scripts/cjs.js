#!/usr/bin/env node
// Build step (scripts/build.js, after tsc): payorch's entry points for CommonJS, beside the ES modules, from the
// same code. An application that calls require('payorch') or require('payorch/webhooks') (a default `npm init -y`
// project is CommonJS; Node 20 has no require() of an ES module) gets, through package.json's exports:
// - dist/cjs/index.js: dist/index.js (the whole library: client, server, fixtures) bundled by esbuild into one
//   CommonJS file. The packages it depends on stay outside the bundle and load from node_modules as they do for
//   the ES module (each must be loadable by require(): checked below); `import.meta.url` points at the ES
//   module's own file in dist/ (scripts/bundle-util.js), so that the server's workers load their scripts from there.
// - dist/cjs/webhooks.js: src/webhooks.ts bundled into one CommonJS file that needs node:crypto only (a webhook
//   receiver loads nothing else).
// - their types: the declarations tsc wrote for the ES modules, copied under dist/cjs (the same text: it
//   compiles to the same declarations either way), where dist/cjs/package.json {"type": "commonjs"} makes
//   TypeScript read them as CommonJS.
import { copyFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FILE_URL_BANNER, metaUrlPlugin } from './bundle-util.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const esbuild = require('esbuild');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const dist = join(root, 'dist');
const outDir = join(dist, 'cjs');

/** The bundle's text, and every module it require()s (built-ins, packages) at the top or later. */
async function bundle(entry, options = {}) {
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    logLevel: 'warning',
    ...options,
  });
  const text = result.outputFiles[0].text;
  return { text, requires: new Set([...text.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1])) };
}

const webhooks = await bundle(join(root, 'src', 'webhooks.ts'));
if (/\brequire\((?!"node:crypto"\))/.test(webhooks.text))
  throw new Error('cjs: payorch/webhooks requires more than node:crypto');

const index = await bundle(join(dist, 'index.js'), {
  packages: 'external',
  banner: { js: FILE_URL_BANNER },
  plugins: [metaUrlPlugin(outDir)],
});
// What it loads from node_modules must be a dependency an application installs with it.
const packageOf = (id) =>
  id
    .split('/')
    .slice(0, id.startsWith('@') ? 2 : 1)
    .join('/');
const strays = [...index.requires].filter((id) => !id.startsWith('node:') && !(packageOf(id) in pkg.dependencies));
if (strays.length) throw new Error(`cjs: payorch requires what is not a dependency: ${strays.join(', ')}`);

/** The declaration files `from` reaches through relative imports, `from` included (paths relative to dist/). */
function declarations(from, seen = new Set()) {
  if (seen.has(from)) return seen;
  seen.add(from);
  const text = readFileSync(join(dist, from), 'utf8');
  for (const [, , spec] of text.matchAll(/(?:from\s+|import\()\s*(['"])(\.{1,2}\/[^'"]+)\1/g))
    declarations(relative(dist, join(dist, dirname(from), spec.replace(/\.js$/, '.d.ts'))), seen);
  return seen;
}

// Written by rename, as every build step: a build never leaves a half-written file under a running test.
const write = (file, text) => {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  if (text === undefined) copyFileSync(join(dist, relative(outDir, file)), tmp);
  else writeFileSync(tmp, text);
  renameSync(tmp, file);
};
write(join(outDir, 'package.json'), '{ "type": "commonjs" }\n');
write(
  join(outDir, 'webhooks.js'),
  `// payorch/webhooks for CommonJS: src/webhooks.ts bundled by scripts/cjs.js.\n${webhooks.text}`,
);
write(join(outDir, 'index.js'), `// payorch for CommonJS: dist/index.js bundled by scripts/cjs.js.\n${index.text}`);
const types = declarations('index.d.ts', declarations('webhooks.d.ts'));
for (const file of types) write(join(outDir, file));
console.log(
  `cjs: dist/cjs/index.js (${(Buffer.byteLength(index.text) / 1024).toFixed(0)} KiB), dist/cjs/webhooks.js, ${types.size} declaration files`,
);
