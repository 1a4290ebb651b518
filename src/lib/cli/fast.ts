// The command path without oclif's start-up (built into dist/vendor/cli.cjs by scripts/bundle-cli.js;
// ARCHITECTURE.md, "One request"). For a command of the index it does what oclif's `execute` does — the same
// command class, parser, lifecycle (`_run`: init, run, catch, finally) and error handler — without loading oclif's
// configuration (package.json, the manifest, plugins, hooks): the command gets an object holding what a command
// uses of it (bin, version, user agent, the command ids). A failure loads oclif's full configuration before
// oclif's handler runs, so that a usage error shows its help as oclif would. What goes the usual way is decided
// before this file loads, by src/lib/cli/fast-route.ts.
import { Errors, Config, flush, type Command } from '@oclif/core';
import type { RouteCommand, RouteIndex } from './fast-route.js';

/** One command of the index: how to load its module, and what oclif's argv normalisation asks of it. */
export interface FastCommand extends RouteCommand {
  load(): Promise<Record<string, unknown>>;
  aliases: string[];
  relativePath: string[];
}

export interface FastIndex extends RouteIndex {
  /** By id; an alias maps to its command's entry. */
  commands: Record<string, FastCommand & { id: string }>;
  /** Puts a configuration in oclif's cache, where its error handler looks for it. */
  cacheConfig(config: unknown): void;
}

type CommandClass = (new (argv: string[], config: never) => Command) & {
  id?: string;
  run: unknown;
  isESM?: boolean;
  relativePath?: string[];
};

/** oclif's search for the command class in a module (config/plugin.js). */
function commandClass(module: Record<string, unknown>): CommandClass | undefined {
  const isCommand = (c: unknown): c is CommandClass =>
    typeof c === 'function' && typeof (c as { run?: unknown }).run === 'function';
  if (isCommand(module)) return module;
  const d = module.default as CommandClass | undefined;
  if (d && typeof d.run === 'function') return d;
  return Object.values(module).find(isCommand);
}

/** What a command uses of oclif's Config (src/lib/cli and the commands in the index use bin and version). */
function fastConfig(root: string, index: FastIndex) {
  const { pjson } = index;
  const bin = pjson.oclif.bin ?? pjson.name;
  const envKeys = (k: string) => [[bin.replaceAll('@', '').replaceAll(/[/-]/g, '_'), k].join('_').toUpperCase()];
  return {
    root,
    name: pjson.name,
    version: pjson.version,
    bin,
    dirname: pjson.oclif.dirname ?? pjson.name,
    pjson,
    topicSeparator: ' ',
    platform: process.platform,
    arch: process.arch,
    windows: process.platform === 'win32',
    userAgent: `${pjson.name}/${pjson.version} ${process.platform}-${process.arch} node-${process.version}`,
    flexibleTaxonomy: false,
    isSingleCommandCLI: false,
    commandIDs: Object.keys(index.commands),
    findCommand: (id: string) => index.commands[id],
    scopedEnvVarKeys: envKeys,
    scopedEnvVarKey: (k: string) => envKeys(k)[0]!,
    scopedEnvVar: (k: string) => process.env[envKeys(k).find((key) => process.env[key])!],
    scopedEnvVarTrue(k: string) {
      const v = this.scopedEnvVar(k);
      return v === '1' || v === 'true';
    },
    // No hook but command_not_found (the index is empty otherwise), and that one never runs here.
    runHook: async () => ({ successes: [], failures: [] }),
  };
}

/**
 * Runs the command that route() (src/lib/cli/fast-route.ts) found; false (having done nothing) when its module
 * has no command class after all. `root` is the package's directory (where package.json is).
 */
export async function run(
  [id, rest]: [string, string[]],
  root: string,
  index: FastIndex,
  /** Called once the command's module (and @oclif/core) has loaded. */
  loaded: () => void = () => undefined,
): Promise<boolean> {
  const entry = index.commands[id]!;
  const config = fastConfig(root, index);
  try {
    const C = commandClass(await entry.load());
    loaded();
    if (!C) return false;
    C.id = entry.id;
    C.isESM = true;
    C.relativePath = entry.relativePath;
    const cmd = new C(rest, config as never) as Command & { _run(): Promise<unknown> };
    await cmd._run();
    await flush();
  } catch (err) {
    // As oclif's execute(): its handler, with the full configuration in its cache (a usage error shows help).
    // What that loads is not kept in the code cache (src/lib/cli/compile-cache.ts, CHECKPOINT).
    (globalThis as Record<symbol, (() => void) | undefined>)[Symbol.for('payorch.compileCache.checkpoint')]?.();
    try {
      index.cacheConfig(await Config.load(root));
    } catch {
      // the handler prints the error without help
    }
    await Errors.handle(err as Error);
  }
  return true;
}
