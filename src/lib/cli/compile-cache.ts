// V8 code cache for the CLI's CommonJS dependencies, so that a run does not compile them again. Enabled by
// bin/run.js before @oclif/core is imported. Node ≥ 22.1 uses Node's own `module.enableCompileCache(dir)`;
// Node 20/21 a CommonJS compile hook (below), whose entries are used only when the source is byte for byte the
// same and the data matches its checksum (V8 does not verify cached data in release builds: a corrupt entry
// would crash every run). One file per Node version, architecture, Node options (V8 rejects data made under
// other flags) and installation; rewritten at exit only when something was compiled afresh.
// It lives in the per-user cache directory (compileCacheDir), never in the package. Any failure is ignored
// (the CLI compiles as usual); `NODE_DISABLE_COMPILE_CACHE=1` turns it off. This runs before everything else:
// no env-paths, no node:zlib (a small checksum instead), no reading of entries that are not used.
import Module from 'node:module';
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import * as vm from 'node:vm';

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

/** `envPaths('payorch').cache` (env-paths, the package the profiles use) + `/compile-cache`. */
export function compileCacheDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  const name = 'payorch-nodejs';
  let dir: string;
  if (platform === 'darwin') dir = join(homedir(), 'Library', 'Caches', name);
  else if (platform === 'win32') dir = join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), name, 'Cache');
  else dir = join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), name);
  return join(dir, 'compile-cache');
}

/** Turns the cache on for this process (no-op when disabled); never throws. */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  if (env.NODE_DISABLE_COMPILE_CACHE) return;
  try {
    const M = Module as unknown as ModuleStatics;
    const dir = compileCacheDir(env);
    if (typeof M.enableCompileCache === 'function') {
      M.enableCompileCache(dir);
      return;
    }
    const options = [...process.execArgv, env.NODE_OPTIONS ?? ''].join(' ').trim();
    const variant = options ? `-${checksum(Buffer.from(options)).toString(16)}` : '';
    installCommonJsHook(M, join(dir, `cjs-${process.version}-${process.arch}${variant}-${installId()}.bin`), env);
  } catch {
    // No cache: compile as usual.
  }
}

/**
 * This installation of payorch (where this file is), as a short hex name: each installation has a cache file of
 * its own, so that a run does not parse the index of every other installation's entries.
 */
function installId(): string {
  return checksum(Buffer.from(dirname(new URL(import.meta.url).pathname))).toString(16);
}

// Node options under which Node's own compile step does more than compile (policies, source maps, the
// inspector, ES module detection/require, loaders): there the hook stays out of the way.
const NODE_OPTIONS_LEFT_ALONE =
  /^--(experimental-policy|policy-integrity|enable-source-maps|inspect|debug|experimental-detect-module|experimental-require-module|experimental-loader|loader|experimental-vm-modules)/;

// File layout: `${MAGIC} ${index bytes}\n`, the index (JSON: { [filename]: [offset, data bytes, source bytes,
// checksum of the data] }), then the entries (offsets from the end of the index), each: V8's cached data, then
// the UTF-8 source.
const MAGIC = 'payorch-v8-cache-3';
const MAX_FILE_BYTES = 64 * 1024 * 1024;

type Entry = [offset: number, dataBytes: number, sourceBytes: number, checksum: number];

/** A file compiled afresh in this run: its entry is written at exit, with V8's data as of then or of a checkpoint. */
interface Compiled {
  source: Buffer;
  script: vm.Script;
  data?: Buffer;
}

/**
 * `globalThis[CHECKPOINT]()` (when the hook is installed): the entries written at exit hold what was compiled up
 * to now, not what runs after (V8's data holds every function compiled by then, and the first run decides the
 * entry for later runs). src/lib/cli/fast.ts calls it before a failure loads oclif's configuration and help, so
 * that later runs do not read and load those from the cache.
 */
export const CHECKPOINT = Symbol.for('payorch.compileCache.checkpoint');

const isEntry = (e: unknown): e is Entry =>
  Array.isArray(e) && e.length === 4 && e.every((n) => Number.isSafeInteger(n) && n >= 0) && e[1] > 0;

/**
 * A 32-bit checksum (multiplicative hashing over 32-bit little-endian words, then the bytes left) that detects
 * corrupt data. Large inputs go through the same loop in WebAssembly: the JavaScript loop runs once per process,
 * mostly in V8's interpreter. Both must compute the same value, or existing cache files stop matching.
 */
export function checksum(b: Buffer): number {
  if (b.length >= WASM_MIN_BYTES) {
    const sum = checksumWasm(b);
    if (sum !== undefined) return sum;
  }
  return checksumJs(b);
}

const WASM_MIN_BYTES = 64 * 1024;

/**
 * checksumJs's loop as a WebAssembly module: `c(length)` over the bytes at the start of its memory `m`. Its text:
 *
 *   (func (export "c") (param $len i32) (result i32) (local $h i32) (local $i i32) (local $words i32)
 *     (local.set $h (i32.xor (local.get $len) (i32.const 0x2545f491)))
 *     (local.set $words (i32.and (local.get $len) (i32.const -4)))
 *     (block (loop (br_if 1 (i32.ge_u (local.get $i) (local.get $words)))
 *       (local.set $h (i32.mul (i32.xor (local.get $h) (i32.load (local.get $i))) (i32.const 0x9e3779b1)))
 *       (local.set $h (i32.xor (local.get $h) (i32.shr_u (local.get $h) (i32.const 15))))
 *       (local.set $i (i32.add (local.get $i) (i32.const 4))) (br 0)))
 *     (block (loop (br_if 1 (i32.ge_u (local.get $i) (local.get $len)))
 *       (local.set $h (i32.mul (i32.xor (local.get $h) (i32.load8_u (local.get $i))) (i32.const 0x9e3779b1)))
 *       (local.set $h (i32.xor (local.get $h) (i32.shr_u (local.get $h) (i32.const 15))))
 *       (local.set $i (i32.add (local.get $i) (i32.const 1))) (br 0)))
 *     (local.get $h))
 *   (memory (export "m") 1)
 */
const CHECKSUM_WASM =
  'AGFzbQEAAAABBgFgAX8BfwMCAQAFAwEAAQcJAgFjAAABbQIACngBdgEDfyAAQZHpl6oCcyEBIABBfHEhAwJAA0AgAiADTw0BIAEgAigCAHNBsfPd8XlsIgEgAUEPdnMhASACQQRqIQIMAAsLAkADQCACIABPDQEgASACLQAAc0Gx893xeWwiASABQQ92cyEBIAJBAWohAgwACwsgAQs=';

/** What is used here of the WebAssembly global (in Node's globals, not in the types this project compiles with). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}
let wasm: { c(length: number): number; m: { buffer: ArrayBuffer; grow(pages: number): number } } | null | undefined;

/** checksumJs(b) computed in WebAssembly; undefined where WebAssembly is not available (then JavaScript does it). */
export function checksumWasm(b: Buffer): number | undefined {
  if (wasm === null) return undefined;
  try {
    const W = (globalThis as { WebAssembly?: WasmApi }).WebAssembly!;
    wasm ??= new W.Instance(new W.Module(Buffer.from(CHECKSUM_WASM, 'base64'))).exports as typeof wasm;
    const m = wasm!.m;
    const pages = Math.ceil(b.length / 65536) - m.buffer.byteLength / 65536;
    if (pages > 0) m.grow(pages);
    new Uint8Array(m.buffer).set(b);
    return wasm!.c(b.length) >>> 0;
  } catch {
    wasm = null; // e.g. --jitless: no WebAssembly
    return undefined;
  }
}

/** The checksum in JavaScript (the definition; checksumWasm computes the same). */
export function checksumJs(b: Buffer): number {
  if (b.byteOffset % 4 !== 0) b = Buffer.from(b); // a copy with aligned memory
  const n = b.length >>> 2;
  const words = new Int32Array(b.buffer, b.byteOffset, n);
  let h = 0x2545f491 ^ b.length;
  for (let i = 0; i < n; i++) {
    h = Math.imul(h ^ words[i]!, 0x9e3779b1);
    h ^= h >>> 15;
  }
  for (let i = n << 2; i < b.length; i++) {
    h = Math.imul(h ^ b[i]!, 0x9e3779b1);
    h ^= h >>> 15;
  }
  return h >>> 0;
}

function installCommonJsHook(M: ModuleStatics, file: string, env: NodeJS.ProcessEnv): void {
  const options = [...process.execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)];
  // (`o &&`: no options, the usual case, compiles no regular expression.)
  if (options.some((o) => o && NODE_OPTIONS_LEFT_ALONE.test(o))) return;

  let fd = -1;
  let index: Record<string, unknown> = {};
  let base = 0;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(64);
    const n = readSync(fd, head, 0, head.length, 0);
    const nl = head.subarray(0, n).indexOf(10);
    const [magic, size] = head.toString('latin1', 0, Math.max(nl, 0)).split(' ');
    const indexBytes = Number(size);
    if (magic === MAGIC && Number.isSafeInteger(indexBytes) && indexBytes > 0 && indexBytes < MAX_FILE_BYTES) {
      const raw = Buffer.alloc(indexBytes);
      if (readSync(fd, raw, 0, indexBytes, nl + 1) === indexBytes) {
        const parsed: unknown = JSON.parse(raw.toString('utf8'));
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
          index = parsed as Record<string, unknown>;
          base = nl + 1 + indexBytes;
        }
      }
    }
  } catch {
    index = {};
  }
  /** An entry's bytes (data + source), or undefined when the file does not hold them. */
  const readEntry = (e: Entry): Buffer | undefined => {
    if (fd < 0) return undefined;
    try {
      const b = Buffer.allocUnsafeSlow(e[1] + e[2]); // its own memory: 4-byte aligned for the checksum
      return readSync(fd, b, 0, b.length, base + e[0]) === b.length ? b : undefined;
    } catch {
      return undefined;
    }
  };

  const compiled = new Map<string, Compiled>();
  // What runs after a checkpoint is not kept: V8's data is taken at the checkpoint (see CHECKPOINT).
  (globalThis as Record<symbol, unknown>)[CHECKPOINT] = () => {
    for (const c of compiled.values()) c.data ??= c.script.createCachedData();
  };
  // oxlint-disable-next-line typescript/unbound-method -- called with its module as `this` (original.call)
  const original = M.prototype._compile;
  const wrapperColumns = M.wrapper[0].length;

  M.prototype._compile = function (this: ModuleInternals, content: string, filename: string, format?: string) {
    if ((format !== undefined && format !== 'commonjs') || process.sourceMapsEnabled)
      return original.call(this, content, filename, format);
    const source = Buffer.from(content, 'utf8');
    const e = index[filename];
    let cachedData: Buffer | undefined;
    if (isEntry(e) && e[2] === source.length) {
      const bytes = readEntry(e);
      if (bytes && bytes.subarray(e[1]).equals(source) && checksum(bytes.subarray(0, e[1])) === e[3])
        cachedData = bytes.subarray(0, e[1]);
    }
    // A hashbang, or a dynamic import() (which needs Node's own loader callback): Node does it. (Checked only
    // without an entry: entries are made only for sources without them. `import()` with nothing inside is not
    // code: it can only be text, as in an error message.)
    if (!cachedData && (content.startsWith('#!') || /\bimport\s*\((?!\s*\))/.test(content)))
      return original.call(this, content, filename, format);
    let script: vm.Script;
    try {
      // Module.wrap puts the wrapper on line 1: the negative column offset keeps line-1 columns in stack traces right.
      script = new vm.Script(M.wrap(content), { filename, columnOffset: -wrapperColumns, cachedData });
    } catch {
      return original.call(this, content, filename, format); // a syntax error is reported by Node, as usual
    }
    if (!cachedData || script.cachedDataRejected) compiled.set(filename, { source, script });
    const fn = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return fn.call(this.exports, this.exports, makeRequire(M, this), this, filename, dirname(filename));
  };

  process.once('exit', () => {
    try {
      if (compiled.size > 0) write(file, index, readEntry, compiled);
    } catch {
      // An unwritable cache directory: next time compiles again.
    }
    try {
      if (fd >= 0) closeSync(fd);
    } catch {
      // already closed
    }
  });
}

function write(
  file: string,
  index: Record<string, unknown>,
  readEntry: (e: Entry) => Buffer | undefined,
  compiled: Map<string, Compiled>,
): void {
  const parts: Buffer[] = [];
  const next: Record<string, Entry> = {};
  let offset = 0;
  const add = (name: string, data: Buffer, source: Buffer, sum: number) => {
    const pad = (4 - (offset % 4)) % 4; // data starts 4-byte aligned in the file too
    if (pad) parts.push(Buffer.alloc(pad));
    offset += pad;
    next[name] = [offset, data.length, source.length, sum];
    parts.push(data, source);
    offset += data.length + source.length;
  };
  // Entries of files this run did not load are kept (other commands load other files), within a size bound.
  for (const [name, e] of Object.entries(index)) {
    if (compiled.has(name) || !isEntry(e) || offset > MAX_FILE_BYTES) continue;
    const bytes = readEntry(e);
    if (bytes) add(name, bytes.subarray(0, e[1]), bytes.subarray(e[1]), e[3]);
  }
  for (const [name, c] of compiled) {
    const data = c.data ?? c.script.createCachedData();
    add(name, data, c.source, checksum(data));
  }
  const rawIndex = Buffer.from(JSON.stringify(next));
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, Buffer.concat([Buffer.from(`${MAGIC} ${rawIndex.length}\n`), rawIndex, ...parts]), {
      mode: 0o600,
    });
    renameSync(tmp, file);
    removeUnused(dirname(file));
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // nothing was written
    }
    throw err;
  }
}

/** A cache file per installation (and Node version): those no run has written for 30 days go (an installation removed, a Node upgraded). */
const UNUSED_MS = 30 * 24 * 3600_000;
function removeUnused(dir: string): void {
  for (const name of readdirSync(dir)) {
    if (!/^cjs-.*\.bin$/.test(name)) continue;
    try {
      if (Date.now() - statSync(join(dir, name)).mtimeMs > UNUSED_MS) unlinkSync(join(dir, name));
    } catch {
      // gone already, or not ours to remove
    }
  }
}

/** Node's `require` for a module (what its loader hands each CommonJS module). */
function makeRequire(M: ModuleStatics, mod: ModuleInternals) {
  const require = function require(id: string) {
    return mod.require(id);
  } as NodeJS.Require;
  const check = (request: unknown) => {
    if (typeof request !== 'string')
      throw Object.assign(new TypeError(`The "request" argument must be of type string. Received ${typeof request}`), {
        code: 'ERR_INVALID_ARG_TYPE',
      });
  };
  const resolve = (request: string, options?: { paths?: string[] }) => {
    check(request);
    return M._resolveFilename(request, mod, false, options);
  };
  resolve.paths = (request: string) => {
    check(request);
    return M._resolveLookupPaths(request, mod);
  };
  require.resolve = resolve as NodeJS.RequireResolve;
  Object.defineProperty(require, 'main', {
    value: process.mainModule,
    writable: true,
    enumerable: true,
    configurable: true,
  });
  require.extensions = M._extensions as NodeJS.Require['extensions'];
  require.cache = M._cache as NodeJS.Require['cache'];
  return require;
}
