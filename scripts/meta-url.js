// Shared by the build steps that bundle payorch's own ES modules from dist/ into a CommonJS file (scripts/cjs.js,
// scripts/bundle-embedded.js): `import.meta.url` (a worker's script, a createRequire base) becomes the URL of the
// module's own file in dist/, found from the bundle's location at run time, so that the workers' scripts and
// package.json stay where they are and load as they do for the ES modules.
import { readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/** The banner line that defines the function the plugin's replacement calls. */
export const FILE_URL_BANNER =
  'const __payorchFileUrl = (rel) => require("node:url").pathToFileURL(require("node:path").join(__dirname, rel)).href;';

/** An esbuild plugin for a bundle written into outDir, from the modules under root/dist. */
export function metaUrlPlugin(root, outDir) {
  const dist = join(root, 'dist') + sep;
  return {
    name: 'import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, async (args) => {
        if (!args.path.startsWith(dist)) return undefined;
        const code = await readFile(args.path, 'utf8');
        if (!code.includes('import.meta.url')) return { contents: code, loader: 'js' };
        const rel = relative(outDir, args.path).split(sep).join('/');
        return {
          contents: code.replaceAll('import.meta.url', `__payorchFileUrl(${JSON.stringify(rel)})`),
          loader: 'js',
        };
      });
    },
  };
}
