#!/usr/bin/env node
// Build step (scripts/build.js, after tsc): the in-process way in — dist/lib/server/embedded.js, the server and
// the transport a command with no key configured runs in its own process — and every package it loads except
// better-sqlite3 (a native addon), bundled into one CommonJS file, dist/vendor/embedded.cjs, which
// src/lib/cli/embedded.ts loads in place of the ES modules. On Node 20 ES modules are compiled afresh on every
// run (no code cache) and ~250 files are looked up and loaded; the bundle is one file that the CLI's code cache
// (src/lib/cli/compile-cache.ts) keeps compiled. Measured: bench/README.md, "Faster without a server".
//
// - Whitespace and comments are minified away (identifiers are kept): the code cache leaves alone a file in
//   which anything looks like an import() call, and comments (JSDoc types) did. A source map beside it
//   (`node --enable-source-maps`, which also turns the code cache off) gives stack traces their files and lines.
// - `import.meta.url` (a worker's script, a createRequire base) becomes the URL of the module's own file in
//   dist/ (scripts/meta-url.js): the workers' scripts and package.json stay where they are.
// - No import() call may be left (it would keep the file out of the code cache): the build fails if one is.
import { createRequire } from 'node:module';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FILE_URL_BANNER, metaUrlPlugin } from './meta-url.js';
import { dynamicImports } from './toolchain.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const esbuild = require('esbuild');

const outDir = join(root, 'dist', 'vendor');
const outFile = join(outDir, 'embedded.cjs');

// fastify's server module loads node:https, node:http2 and node:dns at the top, for servers with TLS or HTTP/2
// and for listening on a host name; the in-process server does neither (~5–10 ms of Node's own modules, with
// node:tls). In the bundle they load on first use instead. The build fails if the lines are not found.
const LAZY_BUILTINS = { 'fastify/lib/server.js': ['https', 'http2', 'dns'] };
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(build) {
    build.onLoad({ filter: /node_modules[\\/]fastify[\\/]lib[\\/]server\.js$/ }, async (args) => {
      let code = await readFile(args.path, 'utf8');
      for (const id of LAZY_BUILTINS['fastify/lib/server.js']) {
        const line = `const ${id} = require('node:${id}')`;
        if (!code.includes(line))
          throw new Error(`bundle-embedded: "${line}" is not in ${args.path} any more: see LAZY_BUILTINS`);
        code = code.replace(line, `const ${id} = __payorchLazy('node:${id}')`);
      }
      return { contents: code, loader: 'js' };
    });
  },
};

const result = await esbuild.build({
  entryPoints: [join(root, 'dist', 'lib', 'server', 'embedded.js')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['better-sqlite3'],
  outfile: outFile,
  write: false,
  minifyWhitespace: true,
  legalComments: 'none',
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
  banner: {
    js:
      `// The in-process server and transport of payorch and the packages they load (licenses: each package's own, in node_modules), bundled by scripts/bundle-embedded.js.\n` +
      `${FILE_URL_BANNER}\n` +
      `const __payorchLazy = (id) => { let m; return new Proxy({}, { get: (_, key) => (m ??= require(id))[key] }); };`,
  },
  plugins: [metaUrlPlugin(root, outDir), lazyBuiltins],
});
const map = result.outputFiles.find((f) => f.path.endsWith('.map'));
const code = result.outputFiles.find((f) => f.path === outFile).text;

// Every import() call, found by parsing: none may be left.
const calls = dynamicImports(code).map((c) => c.text.slice(0, 80));
const lookalikes = code.match(/\bimport\s*\((?!\s*\))[^\n]{0,60}/g);
if (calls.length || lookalikes)
  throw new Error(
    `bundle-embedded: import() left in the bundle (the code cache would not take it): ${[...calls, ...(lookalikes ?? [])].join(' | ')}`,
  );

for (const [file, text] of [
  [outFile, code],
  [map.path, map.text],
]) {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}
console.log(`bundle-embedded: ${relative(root, outFile)} (${(Buffer.byteLength(code) / 1024).toFixed(0)} KiB)`);
