#!/usr/bin/env node
// Build step (scripts/build.js, after tsc): the in-process server and transport (dist/lib/server/embedded.js,
// what a command with no key configured runs) and every package it loads except better-sqlite3 (a native addon),
// in one CommonJS file, dist/vendor/embedded.cjs, which src/lib/cli/embedded.ts loads in place of the ES modules:
// on Node 20 ES modules get no code cache, the bundle does. bench/README.md, "Faster without a server".
//
// - Whitespace and comments are minified away (identifiers are kept): the code cache leaves alone a file in
//   which anything looks like an import() call, as comments (JSDoc types) can. A source map beside it
//   (`node --enable-source-maps`, which also turns the code cache off) gives stack traces their files and lines.
// - `import.meta.url` (a worker's script, a createRequire base) becomes the URL of the module's own file in
//   dist/, found from the bundle's location at run time: the workers' scripts and package.json stay where they are.
// - No import() call may be left (it would keep the file out of the code cache): the build fails if one is.
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import {
  CACHEABLE_BUNDLE,
  FILE_URL_BANNER,
  esbuild,
  importLookalikes,
  metaUrlPlugin,
  outDir,
  root,
  writeInPlace,
} from './bundle-util.js';
import { dynamicImports } from './toolchain.js';

const outFile = join(outDir, 'embedded.cjs');

const metaUrl = metaUrlPlugin();

// fastify's server module loads node:https, node:http2 and node:dns at the top, for servers with TLS or HTTP/2
// and for listening on a host name; the in-process server does neither. In the bundle they (and node:tls) load
// on first use instead. The build fails if the lines are not found.
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
  ...CACHEABLE_BUNDLE,
  entryPoints: [join(root, 'dist', 'lib', 'server', 'embedded.js')],
  external: ['better-sqlite3'],
  outfile: outFile,
  banner: {
    js:
      `// The in-process server and transport of payorch and the packages they load (licenses: each package's own, in node_modules), bundled by scripts/bundle-embedded.js.\n` +
      `${FILE_URL_BANNER}\n` +
      `const __payorchLazy = (id) => { let m; return new Proxy({}, { get: (_, key) => (m ??= require(id))[key] }); };`,
  },
  plugins: [metaUrl, lazyBuiltins],
});
const map = result.outputFiles.find((f) => f.path.endsWith('.map'));
const code = result.outputFiles.find((f) => f.path === outFile).text;

// Every import() call, found by parsing: none may be left.
const calls = dynamicImports(code).map((c) => c.text.slice(0, 80));
const lookalikes = importLookalikes(code);
if (calls.length || lookalikes.length)
  throw new Error(
    `bundle-embedded: import() left in the bundle (the code cache would not take it): ${[...calls, ...lookalikes].join(' | ')}`,
  );

await writeInPlace([
  [outFile, code],
  [map.path, map.text],
]);
console.log(`bundle-embedded: ${relative(root, outFile)} (${(Buffer.byteLength(code) / 1024).toFixed(0)} KiB)`);
