#!/usr/bin/env node
// Build step (scripts/build.js, after the oclif manifest): the command path in one CommonJS file,
// dist/vendor/cli.cjs — src/lib/cli/fast.ts, every command in the index and what they load, @oclif/core with its
// top-level requires made lazy (scripts/lazy-requires.js) — kept compiled by the V8 code cache. A command's
// module runs only when that command runs. ARCHITECTURE.md, "One request"; bench/README.md, "The command path
// in one file".
// - The index comes from oclif.manifest.json (what oclif's argv collation asks). A command that uses oclif's
//   configuration beyond `bin` and `version` (help, completion) is left out; so is every command while
//   package.json declares plugins or a hook other than command_not_found (the fast path runs none).
// - The in-process server stays out (dist/vendor/embedded.cjs, loaded by path; its ES module form, for
//   PAYORCH_EMBEDDED_BUNDLE=0, through bin/run.js's import()).
// - `import.meta.url` becomes the URL of the module's own file in dist/ (as in scripts/bundle-embedded.js).
// - Minified whitespace and comments, and no import() call left (the build fails on one): the code cache leaves
//   alone a file in which anything looks like one.
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import {
  CACHEABLE_BUNDLE,
  FILE_URL_BANNER,
  dist,
  esbuild,
  importLookalikes,
  metaUrlPlugin,
  outDir,
  root,
  writeInPlace,
} from './bundle-util.js';
import { importExpressions, literalRanges } from './toolchain.js';
import { lazyRequires } from './lazy-requires.js';

const outFile = join(outDir, 'cli.cjs');
const pjson = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
const manifest = JSON.parse(await readFile(join(root, 'oclif.manifest.json'), 'utf8'));

// What of oclif's configuration a command may use on the fast path (src/lib/cli/fast.ts provides these).
const CONFIG_USES = new Set(['bin', 'version', 'name', 'root', 'userAgent', 'pjson']);
const SERVER = join(dist, 'lib', 'server') + sep;

/** A compiled module's relative imports: [absolute path, dynamic?]. */
async function importsOf(file) {
  const code = await readFile(file, 'utf8');
  const out = [];
  for (const m of code.matchAll(/(?:\bfrom\s*|^\s*import\s*|\bimport\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/gm))
    out.push([join(dirname(file), m[1]), m[0].includes('(')]);
  return { code, imports: out };
}

/** What keeps a command off the fast path: uses of oclif's configuration beyond CONFIG_USES in what it loads. */
async function configUses(file, seen = new Set()) {
  if (seen.has(file) || !file.startsWith(dist) || file.startsWith(SERVER)) return [];
  seen.add(file);
  const { code, imports } = await importsOf(file);
  const bad = [];
  for (const m of code.matchAll(/\bthis\.config\b(\s*\.\s*(\w+))?/g)) if (!CONFIG_USES.has(m[2])) bad.push(m[0]);
  for (const [f] of imports) bad.push(...(await configUses(f, seen)));
  return bad;
}

const hooks = Object.keys(pjson.oclif.hooks ?? {}).filter((h) => h !== 'command_not_found');
const plugins = pjson.oclif.plugins ?? [];
const entries = [];
const routes = [];
const left = [];
if (hooks.length === 0 && plugins.length === 0) {
  for (const [id, c] of Object.entries(manifest.commands)) {
    const file = join(root, ...c.relativePath);
    // A command that loads the server's own modules itself (server start, keys, snapshots, …) runs the usual
    // way: the bundle holds none of them but what the shared CLI modules import (the lock file's reader), and a
    // server module loaded as an ES module beside a bundled copy of the same would make two of its classes.
    const own = (await importsOf(file)).imports.filter(([f]) => f.startsWith(SERVER));
    const bad = [...(own.length ? ['the server'] : []), ...(await configUses(file))];
    if (bad.length) {
      left.push(`${id} (${[...new Set(bad)].join(', ')})`);
      continue;
    }
    const spec = './' + relative(root, file).split(sep).join('/');
    const meta = {
      id,
      strict: c.strict !== false,
      args: Object.keys(c.args ?? {}),
      aliases: c.aliases ?? [],
      relativePath: c.relativePath,
    };
    for (const name of [id, ...(c.aliases ?? []), ...(c.hiddenAliases ?? [])]) {
      routes.push([name, { strict: meta.strict, args: meta.args }]);
      entries.push(
        `  ${JSON.stringify(name)}: { ...${JSON.stringify(meta)}, load: () => import(${JSON.stringify(spec)}) },`,
      );
    }
  }
}

const pjsonSeen = {
  name: pjson.name,
  version: pjson.version,
  oclif: { bin: pjson.oclif.bin, dirname: pjson.oclif.dirname, additionalHelpFlags: pjson.oclif.additionalHelpFlags },
};
const entry = `
import { run as runFast } from './dist/lib/cli/fast.js';
import Cache from './node_modules/@oclif/core/lib/cache.js';
const index = {
  commands: {
${entries.join('\n')}
  },
  pjson: ${JSON.stringify(pjsonSeen)},
  cacheConfig: (config) => Cache.getInstance().set('config', config),
};
export const run = (found, root, loaded) => runFast(found, root, index, loaded);
`;

// The router (src/lib/cli/fast-route.ts) and the index's ids alone, in a file of their own: bin/run.js asks it
// before loading the command path, so that what goes oclif's usual way (help above all) loads nothing more.
const routeIndex = { commands: Object.fromEntries(routes), pjson: pjsonSeen };
const routeResult = await esbuild.build({
  stdin: {
    contents: `import { route } from './dist/lib/cli/fast-route.js';\nconst index = ${JSON.stringify(routeIndex)};\nexport const resolve = (argv) => route(argv, index);\n`,
    resolveDir: root,
    sourcefile: 'cli-route-entry.js',
    loader: 'js',
  },
  ...CACHEABLE_BUNDLE,
  sourcemap: false,
  banner: { js: `// payorch's command router and index, bundled by scripts/bundle-cli.js.` },
});
if (routeResult.outputFiles[0].text.includes('require('))
  throw new Error('bundle-cli: the router must not load anything');

const metaUrl = metaUrlPlugin();

// Left outside, imported at run time as they are today (through bin/run.js's import(), see below): the
// server's modules that the CLI's modules import dynamically (the server itself for `server start`, its ES
// module entry for PAYORCH_EMBEDDED_BUNDLE=0, …), and packages imported only dynamically (@inquirer/prompts,
// chalk: loaded when a prompt is asked or a stream is coloured).
const external = {
  name: 'external-dynamic',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== 'dynamic-import' || args.importer.endsWith('cli-entry.js')) return undefined;
      if (/^\.{1,2}\//.test(args.path)) {
        const file = join(args.resolveDir, args.path);
        if (!file.startsWith(SERVER)) return undefined;
        return { path: `__PAYORCH_DIST__/${relative(dist, file).split(sep).join('/')}`, external: true };
      }
      if (args.path.startsWith('node:')) return undefined;
      return { path: `__PAYORCH_PKG__/${args.path}`, external: true };
    });
  },
};

// `debug` (oclif's logger; it loads supports-color, tty, …) is off on this path: src/lib/cli/fast.ts
// leaves runs with DEBUG (or PAYORCH_DEBUG) set to oclif, and nothing else turns a namespace on. Every logger is
// a no-op, as debug's own are when no namespace is enabled.
const debugOff = {
  name: 'debug-off',
  setup(build) {
    build.onResolve({ filter: /^debug$/ }, () => ({ path: 'debug', namespace: 'debug-off' }));
    build.onLoad({ filter: /.*/, namespace: 'debug-off' }, () => ({
      contents: `function debug(namespace) {
  const d = () => undefined;
  d.namespace = namespace; d.enabled = false; d.log = () => undefined; d.destroy = () => false;
  d.extend = (ns, delimiter = ':') => debug(namespace + delimiter + ns);
  return d;
}
debug.enable = () => undefined; debug.disable = () => ''; debug.enabled = () => false;
debug.names = []; debug.skips = []; debug.formatters = {};
module.exports = debug;`,
      loader: 'js',
    }));
  },
};

// Packages @oclif/core loads only for its full configuration, help and spinners — on this path, only after a
// failure (src/lib/cli/fast.ts loads the configuration then) — stay outside the bundle (less to read on every
// run): each is required on first use from where @oclif/core finds it.
const OCLIF_ONLY = ['semver', 'tinyglobby', 'minimatch', 'cli-spinners', 'ejs', 'lilconfig', 'get-package-type'];
const oclifOnly = {
  name: 'oclif-only-packages',
  setup(build) {
    const filter = new RegExp(`^(${OCLIF_ONLY.join('|')})(/.*)?$`);
    build.onResolve({ filter }, (args) => {
      if (!/[\\/]node_modules[\\/]@oclif[\\/]core[\\/]/.test(args.importer)) return undefined;
      return { path: args.path, namespace: 'oclif-only' };
    });
    build.onLoad({ filter: /.*/, namespace: 'oclif-only' }, (args) => ({
      contents: `module.exports = require('node:module').createRequire(require.resolve('@oclif/core/package.json'))(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

const result = await esbuild.build({
  ...CACHEABLE_BUNDLE,
  stdin: { contents: entry, resolveDir: root, sourcefile: 'cli-entry.js', loader: 'js' },
  external: ['better-sqlite3', 'typescript', 'ts-node', 'tsx', 'tsx/*'],
  // oclif-only packages: require.resolve('@oclif/core/package.json') is meant for run time (the package.json
  // itself stays bundled, as @oclif/core reads its version on every run).
  logOverride: { 'require-resolve-not-external': 'silent' },
  outfile: outFile,
  banner: {
    js:
      `// payorch's command path and the packages it loads (licenses: each package's own, in node_modules), bundled by scripts/bundle-cli.js.\n` +
      `${FILE_URL_BANNER}\n` +
      `const __payorchImport = (specifier) => globalThis[Symbol.for("payorch.import")](specifier);\n` +
      `const __payorchRan = (m) => globalThis[Symbol.for("payorch.modules")]?.push(Object.getOwnPropertyNames(m)[0]);`,
  },
  plugins: [metaUrl, external, debugOff, oclifOnly, lazyRequires],
  metafile: true,
});
if (process.env.BUNDLE_CLI_META) await writeFile(process.env.BUNDLE_CLI_META, JSON.stringify(result.metafile));
const map = result.outputFiles.find((f) => f.path.endsWith('.map'));
let code = result.outputFiles.find((f) => f.path === outFile).text;

// import() calls, found by parsing: the external server entry's becomes a call through bin/run.js's import();
// oclif's own (ES module plugins and hooks, never used on this path) too; nothing else may be left.
const sites = importExpressions(code);
for (const s of sites.sort((a, b) => b.start - a.start)) {
  const spec = s.specifier ?? '';
  const text = spec.startsWith('__PAYORCH_DIST__/')
    ? `__payorchImport(__payorchFileUrl(${JSON.stringify('../' + spec.slice('__PAYORCH_DIST__/'.length))}))`
    : spec.startsWith('__PAYORCH_PKG__/')
      ? `__payorchImport(${JSON.stringify(spec.slice('__PAYORCH_PKG__/'.length))})`
      : `__payorchImport(${s.args})`;
  code = code.slice(0, s.start) + text + code.slice(s.end);
}
// Which of the bundle's modules ran (test/cli/bundle.test.ts): esbuild's module wrappers report their
// module's path to an array at globalThis[Symbol.for('payorch.modules')] when there is one (a test puts it
// there with --require); otherwise one lookup per module.
const WRAPPERS = [
  ['(0,fn[__getOwnPropNames(fn)[0]])(fn=0)', '(__payorchRan(fn),(0,fn[__getOwnPropNames(fn)[0]])(fn=0))'],
  [
    '(0,cb[__getOwnPropNames(cb)[0]])((mod={exports:{}}).exports,mod)',
    '(__payorchRan(cb),(0,cb[__getOwnPropNames(cb)[0]])((mod={exports:{}}).exports,mod))',
  ],
];
for (const [from, to] of WRAPPERS) {
  if (code.split(from).length !== 2)
    throw new Error(`bundle-cli: esbuild's module wrapper changed: ${from} is not in the bundle once`);
  code = code.replace(from, to);
}

// ASCII only: one character outside it (a regular expression of ansi-regex keeps its U+009B as is) makes V8 hold
// the whole source as a two-byte string (twice the size), which every run decodes, encodes and compares.
// In a string or a regular expression literal an escape means the same character; anywhere else (a template
// literal's raw text, a name) it might not, so there the build fails.
code = asciiOnly(code);

const lookalikes = importLookalikes(code);
if (lookalikes.length)
  throw new Error(
    `bundle-cli: import() left in the bundle (the code cache would not take it): ${lookalikes.join(' | ')}`,
  );

await writeInPlace([
  [outFile, code],
  [map.path, map.text],
  [join(outDir, 'cli-route.cjs'), routeResult.outputFiles[0].text],
]);
// The compile cache as one CommonJS file too, for bin/run.js (which loads it before anything else). Its cache
// file is named after dist/lib/cli, where its ES module is: one per installation either way.
const cc = await esbuild.build({
  entryPoints: [join(dist, 'lib', 'cli', 'compile-cache.js')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  write: false,
  legalComments: 'none',
  logLevel: 'warning',
  define: { 'import.meta.url': '__payorchModuleUrl' },
  banner: {
    js:
      `// src/lib/cli/compile-cache.ts as CommonJS, built by scripts/bundle-cli.js.\n` +
      `const __payorchModuleUrl = require("node:url").pathToFileURL(require("node:path").join(__dirname, "../lib/cli/compile-cache.js")).href;`,
  },
});
const ccFile = join(outDir, 'compile-cache.cjs');
await writeInPlace([[ccFile, cc.outputFiles[0].text]]);

for (const f of await readdir(outDir)) if (f.endsWith('.tmp')) await rm(join(outDir, f), { force: true });
console.log(
  `bundle-cli: ${relative(root, outFile)} (${(Buffer.byteLength(code) / 1024).toFixed(0)} KiB, ${entries.length} command ids; left to oclif: ${left.map((l) => l.split(' ')[0]).join(', ') || 'none'})`,
);

/** `code` with each character outside ASCII in a string or regular expression literal written as a \\u escape. */
function asciiOnly(code) {
  const at = [...code.matchAll(/[^\0-\x7f]/g)].map((m) => m.index);
  if (at.length === 0) return code;
  const literals = literalRanges(code);
  let out = '';
  let from = 0;
  for (const i of at) {
    if (!literals.some(([start, end]) => start <= i && i < end))
      throw new Error(
        `bundle-cli: a character outside ASCII outside a string or regular expression: ${code.slice(i - 60, i + 1)}`,
      );
    out += code.slice(from, i) + `\\u${code.charCodeAt(i).toString(16).padStart(4, '0')}`;
    from = i + 1;
  }
  return out + code.slice(from);
}
