// Which runs the command path (src/lib/cli/fast.ts, dist/vendor/cli.cjs) takes, decided before that file loads:
// bin/run.js asks this module first, from its own small file (dist/vendor/cli-route.cjs, with the command index
// scripts/bundle-cli.js makes from oclif's manifest). Everything else goes oclif's usual way, loading nothing
// more than oclif alone: no arguments, a help flag, `--version`, a command or topic the index does not have
// (help, the not-found hook), a command left out of the index (it uses more of oclif's configuration, or loads
// the server's modules), and oclif's debug output (DEBUG, PAYORCH_DEBUG).

/** What oclif's argv collation asks of a command. */
export interface RouteCommand {
  strict: boolean;
  args: string[];
}

export interface RouteIndex {
  /** By id; an alias maps to its command's entry. */
  commands: Record<string, RouteCommand>;
  /** package.json as the build saw it (name, version, oclif section). */
  pjson: { name: string; version: string; oclif: { bin?: string; dirname?: string; additionalHelpFlags?: string[] } };
}

/** The command id and the rest of argv when the command path runs it; undefined when oclif's usual way does. */
export function route(
  argv: string[],
  index: RouteIndex,
  env: NodeJS.ProcessEnv = process.env,
): [string, string[]] | undefined {
  if (argv.length === 0 || argv[0] === '--version' || env.DEBUG || env.PAYORCH_DEBUG) return undefined;
  const helpFlags = new Set(['--help', ...(index.pjson.oclif.additionalHelpFlags ?? [])]);
  for (const a of argv) {
    if (a === '--') break;
    if (helpFlags.has(a)) return undefined;
  }
  return commandId([...argv], index);
}

/** oclif's command-id collation for topicSeparator ' ' (help/util.js collateSpacedCmdIDFromArgs). */
function commandId(argv: string[], index: RouteIndex): [string, string[]] | undefined {
  if (argv[0]?.includes(':')) return index.commands[argv[0]] ? [argv[0], argv.slice(1)] : undefined;
  if (argv.length === 1) return index.commands[argv[0]!] ? [argv[0]!, []] : undefined;
  const usable = usableIds(index);
  const final: string[] = [];
  const finalize = (s?: string) => (s ? [...final, s] : final).filter(Boolean).join(':');
  const hasArgs = () => {
    const id = finalize();
    const cmd = id ? index.commands[id] : undefined;
    return Boolean(cmd && (cmd.strict === false || cmd.args.length > 0));
  };
  for (const arg of argv) {
    if (usable.has(finalize(arg))) final.push(arg);
    else if (arg.includes('=') || arg.startsWith('-') || hasArgs()) break;
    else final.push(arg);
  }
  const id = finalize();
  if (!id || !index.commands[id]) return undefined;
  return [id, argv.slice(id.split(':').length)];
}

let usable: Set<string> | undefined;
/** Every command id (aliases included) and each of its topics (config/util.js collectUsableIds). */
function usableIds(index: RouteIndex): Set<string> {
  if (usable) return usable;
  usable = new Set();
  for (const id of Object.keys(index.commands)) {
    const parts = id.split(':');
    for (let i = 1; i <= parts.length; i++) usable.add(parts.slice(0, i).join(':'));
  }
  return usable;
}
