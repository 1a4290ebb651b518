// What the bundle scripts share (scripts/bundle-embedded.js, scripts/bundle-cli.js, scripts/cjs.js): `import.meta.url`
// in a bundled module of dist/, the check that no import() call is left (the compile cache leaves alone a file in which
// anything looks like one), and writing the outputs in place.
import { createRequire } from 'node:module';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout, its dist/ (with a trailing separator) and dist/vendor, where the bundles go. */
export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const dist = join(root, 'dist') + sep;
export const outDir = join(root, 'dist', 'vendor');
const require = createRequire(join(root, 'package.json'));
export const esbuild = require('esbuild');

/**
 * An esbuild plugin: `import.meta.url` in a module of `dist` becomes the URL of that module's file, found from the
 * bundle's location at run time (`__payorchFileUrl(rel)`, which the bundle's banner defines): the workers'
 * scripts and package.json stay where they are. `into`: the folder the bundle is written to (default dist/vendor).
 */
export function metaUrlPlugin(into = outDir) {
  return {
    name: 'import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, async (args) => {
        if (!args.path.startsWith(dist)) return undefined;
        const code = await readFile(args.path, 'utf8');
        if (!code.includes('import.meta.url')) return { contents: code, loader: 'js' };
        const rel = relative(into, args.path).split(sep).join('/');
        return {
          contents: code.replaceAll('import.meta.url', `__payorchFileUrl(${JSON.stringify(rel)})`),
          loader: 'js',
        };
      });
    },
  };
}

/**
 * esbuild's options for a bundle the compile cache is to take: one CommonJS file for Node 20, whitespace and
 * comments minified away (comments such as JSDoc types can look like import() calls), a source map beside it
 * (`node --enable-source-maps`, which also turns the code cache off, gives stack traces their files and lines).
 */
export const CACHEABLE_BUNDLE = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  write: false,
  minifyWhitespace: true,
  legalComments: 'none',
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
};

/** The banner line defining `__payorchFileUrl` for metaUrlPlugin. */
export const FILE_URL_BANNER = `const __payorchFileUrl = (rel) => require("node:url").pathToFileURL(require("node:path").join(__dirname, rel)).href;`;

/** Text in `code` that looks like an import() call (none may be left in a bundle the code cache is to take). */
export const importLookalikes = (code) => code.match(/\bimport\s*\((?!\s*\))[^\n]{0,60}/g) ?? [];

/** Writes each [file, text] through a temporary file renamed into place (a running test never sees half a file). */
export async function writeInPlace(outputs) {
  for (const [file, text] of outputs) {
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, text);
    await rename(tmp, file);
  }
}
