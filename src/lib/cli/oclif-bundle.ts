// @oclif/core from one file: dist/vendor/oclif-core-<version>.cjs, which scripts/bundle-oclif.js builds from
// node_modules/@oclif/core and the packages it loads (the same code; looking up and loading its files one by one
// costs more than running them). bin/run.js calls this before anything imports @oclif/core; the bundle
// is then what `import … from '@oclif/core'` gives, to bin/run.js and to every command alike (one copy).
// Used only when the installed @oclif/core has the bundle's version; otherwise (or on any failure) nothing
// changes and @oclif/core loads from node_modules as usual.
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ModuleStatics {
  new (id: string): { filename: string; paths: string[]; exports: unknown; loaded: boolean };
  _cache: Record<string, unknown>;
  _nodeModulePaths(dir: string): string[];
}

/** The symbol under which the bundle finds `import()` (see scripts/bundle-oclif.js). */
const IMPORT_HOOK = Symbol.for('payorch.import');

export const bundlePath = (version: string) =>
  join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'vendor', `oclif-core-${version}.cjs`);

/** Installs the bundle as @oclif/core; true when it is in use. Never throws. */
export function useOclifBundle(): boolean {
  try {
    const M = Module as unknown as ModuleStatics;
    const require = createRequire(import.meta.url);
    const indexPath = require.resolve('@oclif/core');
    if (M._cache[indexPath]) return false; // already loaded from node_modules
    const { version } = require('@oclif/core/package.json') as { version: string };
    const g = globalThis as Record<symbol, unknown>;
    // oclif's import() calls (ES module commands and hooks; absolute file URLs), made from an ES module.
    g[IMPORT_HOOK] ??= (specifier: string) => import(specifier);
    const exports: unknown = require(bundlePath(version));
    const m = new M(indexPath);
    m.filename = indexPath;
    m.paths = M._nodeModulePaths(dirname(indexPath));
    m.exports = exports;
    m.loaded = true;
    M._cache[indexPath] = m;
    return true;
  } catch {
    return false;
  }
}
