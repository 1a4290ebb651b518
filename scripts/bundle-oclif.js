#!/usr/bin/env node
// Build step (scripts/build.js): @oclif/core and the packages it loads, bundled into one CommonJS file,
// dist/vendor/oclif-core-<version>.cjs. bin/run.js loads it in place of node_modules/@oclif/core when the
// installed version is the same; it is the same code, loaded from one file.
//
// Two adjustments, both checked here:
// - Development-time TypeScript support (typescript, ts-node, tsx) stays outside the bundle: oclif loads it
//   only for uncompiled plugins, from node_modules.
// - oclif's dynamic import() calls (ES module commands, hooks, tsx) become calls to a function bin/run.js
//   provides (`import(url)` from an ES module): they all take absolute file URLs, so they resolve the same.
//   That leaves the bundle without import(), so that the V8 code cache (src/lib/cli/compile-cache.ts) can
//   cache it on Node 20 (a script compiled through node:vm cannot use import() there).
import { createRequire } from 'node:module';
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dynamicImports } from './toolchain.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const esbuild = require('esbuild');

export const IMPORT_HOOK = 'payorch.import';

const { version } = require('@oclif/core/package.json');
const outDir = join(root, 'dist', 'vendor');
const outFile = join(outDir, `oclif-core-${version}.cjs`);

const result = await esbuild.build({
  entryPoints: [require.resolve('@oclif/core')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['typescript', 'ts-node', 'tsx', 'tsx/*'],
  write: false,
  logLevel: 'warning',
  legalComments: 'inline',
});
let code = result.outputFiles[0].text;

// Every dynamic import() expression, found by parsing (not by matching text), becomes __payorchImport(…).
const sites = dynamicImports(code);
if (sites.length === 0)
  throw new Error('bundle-oclif: no dynamic import() found in @oclif/core: ES module commands could not load');
for (const s of sites.sort((a, b) => b.start - a.start)) {
  code = code.slice(0, s.start) + '__payorchImport' + code.slice(s.end);
}
// What is left may only be text in strings or comments, and must not look like a call, or the compile cache
// would (rightly) leave the file to Node and not cache it.
const leftover = code.match(/\bimport\s*\((?!\s*\))[^\n]{0,60}/g);
if (leftover)
  throw new Error(`bundle-oclif: text that looks like import(…) is left in the bundle: ${leftover.join(' | ')}`);

// After esbuild's "use strict" directive (which must stay first): where the version and origin are stated, and
// the function the import() calls now use.
const directive = code.match(/^"use strict";\n/)?.[0] ?? '';
code =
  directive +
  `// @oclif/core ${version} and the packages it loads, bundled by scripts/bundle-oclif.js (licenses: each package's own, in node_modules).\n` +
  `const __payorchImport = (specifier) => globalThis[Symbol.for(${JSON.stringify(IMPORT_HOOK)})](specifier);\n` +
  code.slice(directive.length);
mkdirSync(outDir, { recursive: true });
const tmp = `${outFile}.${process.pid}.tmp`;
writeFileSync(tmp, code);
renameSync(tmp, outFile);
for (const f of readdirSync(outDir))
  if (/^oclif-core-.*\.cjs$/.test(f) && join(outDir, f) !== outFile) rmSync(join(outDir, f), { force: true });
console.log(
  `bundle-oclif: ${outFile.slice(root.length + 1)} (${(Buffer.byteLength(code) / 1024).toFixed(0)} KiB, ${sites.length} import() → __payorchImport)`,
);
