// V8 code cache for the CLI's CommonJS dependencies (oclif and what it loads; fastify & co. on the embedded
// path), so that a run does not compile the same ~100 files again. Enabled by bin/run.js before @oclif/core
// is imported.
//
//   Node ≥ 22.1: Node's own `module.enableCompileCache(dir)` (CommonJS and ES modules, keyed by content).
//   Node 20/21:  a CommonJS compile hook (below): cached data per file, keyed by path + length + CRC-32 of
//                the source, kept in one file per Node version and architecture, written at exit when
//                something was compiled afresh. V8 checks the data too (its version, flags, source length)
//                and rejects what does not fit; a rejected or stale entry is compiled and replaced.
//
// The cache lives in the per-user cache directory (`$XDG_CACHE_HOME/payorch-nodejs/compile-cache`, or
// `~/.cache/…`; macOS `~/Library/Caches/payorch-nodejs/…`; Windows `%LOCALAPPDATA%\payorch-nodejs\Cache\…`),
// never in the installed package. Any failure (unwritable or corrupt cache) is ignored: the CLI then
// compiles as usual. `NODE_DISABLE_COMPILE_CACHE=1` turns it off.
import Module from 'node:module';
import { join, dirname } from 'node:path';
import * as vm from 'node:vm';
import * as zlib from 'node:zlib';
import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import envPaths from 'env-paths';

interface ModuleInternals {
  exports: unknown;
  require(id: string): unknown;
}
interface ModuleStatics {
  prototype: { _compile(this: ModuleInternals, content: string, filename: string, format?: string): unknown };
  wrap(content: string): string;
  wrapper: [string, string];
  _resolveFilename(request: string, parent: ModuleInternals, isMain: boolean, options?: unknown): string;
  _resolveLookupPaths(request: string, parent: ModuleInternals): string[] | null;
  _extensions: unknown;
  _cache: unknown;
  enableCompileCache?: (dir: string) => unknown;
}

export function compileCacheDir(): string {
  return join(envPaths('payorch', { suffix: 'nodejs' }).cache, 'compile-cache');
}

/** Turns the cache on for this process (no-op when disabled); never throws. */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  if (env.NODE_DISABLE_COMPILE_CACHE) return;
  try {
    const M = Module as unknown as ModuleStatics;
    const dir = compileCacheDir();
    if (typeof M.enableCompileCache === 'function') {
      M.enableCompileCache(dir);
      return;
    }
    installCommonJsHook(M, join(dir, `cjs-${process.version}-${process.arch}.bin`));
  } catch {
    // No cache: compile as usual.
  }
}

// Node options under which Node's own compile step does more than compile (policies, source maps, the
// inspector, ES module detection/require, loaders): there the hook stays out of the way.
const NODE_OPTIONS_LEFT_ALONE = /^--(experimental-policy|policy-integrity|enable-source-maps|inspect|debug|experimental-detect-module|experimental-require-module|experimental-loader|loader|experimental-vm-modules)/;

const MAGIC = 'payorch-v8-cache-1';
const MAX_FILE_BYTES = 64 * 1024 * 1024;

type Entry = [length: number, crc: number, offset: number, size: number];

function installCommonJsHook(M: ModuleStatics, file: string): void {
  const options = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  if (options.some((o) => NODE_OPTIONS_LEFT_ALONE.test(o))) return;
  const crc32 = (zlib as { crc32?: (data: string) => number }).crc32; // Node ≥ 20.15 (not 21)
  if (typeof crc32 !== 'function') return;

  // The file: MAGIC \n JSON index \n data. Index: { [filename]: [source length, crc, offset, size] }.
  let index: Record<string, Entry> = {};
  let data = Buffer.alloc(0);
  try {
    const buf = readFileSync(file);
    const a = buf.indexOf(10);
    const b = a < 0 ? -1 : buf.indexOf(10, a + 1);
    if (b > 0 && buf.toString('latin1', 0, a) === MAGIC) {
      const parsed = JSON.parse(buf.toString('utf8', a + 1, b)) as Record<string, Entry>;
      data = buf.subarray(b + 1);
      for (const [name, e] of Object.entries(parsed)) {
        if (Array.isArray(e) && e.length === 4 && e.every(Number.isInteger) && e[2] >= 0 && e[3] > 0 && e[2] + e[3] <= data.length) index[name] = e;
      }
    }
  } catch {
    index = {};
  }

  const compiled = new Map<string, { length: number; crc: number; script: vm.Script }>();
  const original = M.prototype._compile;
  const wrapperColumns = M.wrapper[0].length;

  M.prototype._compile = function (this: ModuleInternals, content: string, filename: string, format?: string) {
    // ES module syntax, a hashbang, or a dynamic import() (which needs Node's own loader callback): Node does it.
    if ((format !== undefined && format !== 'commonjs') || content.startsWith('#!') || /\bimport\s*\(/.test(content) || process.sourceMapsEnabled) {
      return original.call(this, content, filename, format);
    }
    const crc = crc32(content);
    const e = index[filename];
    const cachedData = e && e[0] === content.length && e[1] === crc ? data.subarray(e[2], e[2] + e[3]) : undefined;
    let script: vm.Script;
    try {
      // Module.wrap puts the wrapper on line 1: the negative column offset keeps line-1 columns in stack traces right.
      script = new vm.Script(M.wrap(content), { filename, columnOffset: -wrapperColumns, cachedData });
    } catch {
      return original.call(this, content, filename, format); // a syntax error is reported by Node, as usual
    }
    if (!cachedData || script.cachedDataRejected) compiled.set(filename, { length: content.length, crc, script });
    const fn = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return fn.call(this.exports, this.exports, makeRequire(M, this), this, filename, dirname(filename));
  };

  process.once('exit', () => {
    if (compiled.size === 0) return;
    try {
      // Entries of files not loaded by this run are kept (other commands load other files) unless the file grew too big.
      const parts: Buffer[] = [];
      const next: Record<string, Entry> = {};
      let offset = 0;
      const add = (name: string, length: number, crc: number, bytes: Buffer) => {
        next[name] = [length, crc, offset, bytes.length];
        parts.push(bytes);
        offset += bytes.length;
      };
      if (data.length < MAX_FILE_BYTES) {
        for (const [name, e] of Object.entries(index)) if (!compiled.has(name)) add(name, e[0], e[1], data.subarray(e[2], e[2] + e[3]));
      }
      for (const [name, c] of compiled) add(name, c.length, c.crc, c.script.createCachedData());
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      const tmp = `${file}.${process.pid}.tmp`;
      try {
        writeFileSync(tmp, Buffer.concat([Buffer.from(`${MAGIC}\n${JSON.stringify(next)}\n`), ...parts]), { mode: 0o600 });
        renameSync(tmp, file);
      } catch {
        try {
          unlinkSync(tmp);
        } catch {
          // nothing was written
        }
      }
    } catch {
      // An unwritable cache directory: next time compiles again.
    }
  });
}

/** Node's `require` for a module (what its loader hands each CommonJS module). */
function makeRequire(M: ModuleStatics, mod: ModuleInternals) {
  const require = function require(id: string) {
    return mod.require(id);
  } as NodeJS.Require;
  const resolve = (request: string, options?: { paths?: string[] }) => {
    if (typeof request !== 'string') throw Object.assign(new TypeError(`The "request" argument must be of type string. Received ${typeof request}`), { code: 'ERR_INVALID_ARG_TYPE' });
    return M._resolveFilename(request, mod, false, options);
  };
  resolve.paths = (request: string) => {
    if (typeof request !== 'string') throw Object.assign(new TypeError(`The "request" argument must be of type string. Received ${typeof request}`), { code: 'ERR_INVALID_ARG_TYPE' });
    return M._resolveLookupPaths(request, mod);
  };
  require.resolve = resolve as NodeJS.RequireResolve;
  Object.defineProperty(require, 'main', { value: process.mainModule, writable: true, enumerable: true, configurable: true });
  require.extensions = M._extensions as NodeJS.Require['extensions'];
  require.cache = M._cache as NodeJS.Require['cache'];
  return require;
}
