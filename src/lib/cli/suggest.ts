// "Did you mean …?" for what the CLI does not know: a command or topic (src/hooks/not-found.ts), a flag
// (BaseCommand.parse). Loaded only once something was mistyped.
import { existsSync } from 'node:fs';
import { distance } from 'fastest-levenshtein';
import { shellWord } from '../output/shell.js';

/** A typo of `name` rather than another word: up to one edit in three characters, and at least two. */
export const nearEnough = (edits: number, name: string) => edits <= Math.max(2, Math.floor(name.length / 3));

/** The candidate nearest to `typed` (the first of equals), when it is near enough to be what was meant. */
export function didYouMean(typed: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let score = Infinity;
  for (const c of candidates) {
    const d = distance(typed, c);
    if (d < score) [best, score] = [c, d];
  }
  return best !== undefined && nearEnough(score, best) ? best : undefined;
}

/**
 * The message of the usage error (exit 2) for flags `command` does not have, each with the nearest it has:
 * "`--jsno` is not a flag of `payorch sessions list`. Did you mean `--json`? …". `tokens` as oclif gives them
 * (`--jsno`, `--jsno=1`, `-x`); `flags` the command's flag names.
 */
export function unknownFlagsMessage(tokens: readonly string[], flags: readonly string[], command: string): string {
  const meant = tokens.map((token) => {
    const name = /^--([^=]+)/.exec(token)?.[1];
    return name === undefined ? undefined : didYouMean(name, flags);
  });
  const help = `\`${command} --help\` lists its flags.`;
  if (tokens.length === 1)
    return `\`${tokens[0]}\` is not a flag of \`${command}\`.${meant[0] ? ` Did you mean \`--${meant[0]}\`?` : ''} ${help}`;
  const named = tokens.map((token, i) => `\`${token}\`${meant[i] ? ` (did you mean \`--${meant[i]}\`?)` : ''}`);
  return `${named.join(', ')} are not flags of \`${command}\`. ${help}`;
}

/** `a`, `a or b`, `a, b or c`. */
const either = (items: readonly string[]) =>
  items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;

/**
 * The usage error for arguments a command does not take (`payorch ledger list extra`), naming them and what it
 * does take. `command` as typed (`payorch ledger list`); `args` the names of its arguments (ID, …).
 */
export function extraArgsMessage(command: string, extras: readonly string[], args: readonly string[]): string {
  const takes =
    args.length === 0
      ? 'takes no arguments'
      : `takes ${args.length === 1 ? 'one argument' : `${args.length} arguments`}, ${args.join(' ')}`;
  const got = extras.map((a) => `\`${a}\``);
  const listed = got.length < 2 ? (got[0] ?? '') : `${got.slice(0, -1).join(', ')} and ${got.at(-1)}`;
  return `\`${command}\` ${takes}; ${args.length ? 'also got' : 'got'} ${listed}. \`${command} --help\` shows its usage.`;
}

/**
 * Commands whose last words are what was typed, for a command name typed without its topic (`payorch unfreeze
 * la_1` → `ledger unfreeze`): those ending exactly with the first words typed (the rest being arguments), else
 * those within a typo of all of it; none when more than `most` would be named. Ids and `typed` use oclif's colons.
 */
export function commandsEndingWith(
  typed: readonly string[],
  ids: readonly string[],
  most = 3,
): { ids: string[]; exact: boolean } {
  const split = ids.map((id) => ({ id, words: id.split(':') }));
  const ending = (n: number) =>
    split
      .filter((c) => c.words.length > n)
      .map((c) => ({ id: c.id, d: distance(typed.slice(0, n).join(':'), c.words.slice(-n).join(':')) }));
  for (let n = typed.length; n >= 1; n--) {
    const exact = ending(n).filter((t) => t.d === 0);
    if (exact.length > 0) return { ids: exact.length <= most ? exact.map((t) => t.id) : [], exact: true };
  }
  const tails = ending(typed.length);
  const best = Math.min(...tails.map((t) => t.d));
  const near = tails.filter((t) => t.d === best && nearEnough(best, typed.join(':'))).map((t) => t.id);
  return { ids: near.length <= most ? near : [], exact: false };
}

export const listOfCommands = (bin: string, ids: readonly string[]) =>
  either(ids.map((id) => `\`${bin} ${id.split(':').join(' ')}\``));

/**
 * oclif's parse errors (`Parsing --amount \n\tExpected an integer…\nSee more help with --help`, "Unexpected
 * argument: x", "Missing 1 required arg:…", "The following error occurred:…") in the CLI's own words: one line
 * naming the flag or argument and what it takes, and where the usage is. `command` as typed (`payorch sessions
 * get`); `args` its arguments' names (ID, …) and descriptions.
 */
export function parseErrorMessage(
  message: string,
  command: string,
  args: readonly { name: string; description?: string }[],
): string {
  const lines = message
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('See more help with'));
  const usage = `\`${command} --help\` shows its usage.`;
  const first = lines[0] ?? '';
  const parsing = /^Parsing (--[\w-]+)$/.exec(first);
  if (parsing) {
    const flag = parsing[1]!;
    const inner = lines.slice(1).join(' ');
    if (inner.startsWith(flag)) return inner; // the flag's own message (amountFlag's, say), already whole
    const int = /^Expected an integer(?: (greater|less) than or equal to (-?\d+))? but received: (.*)$/.exec(inner);
    if (int) {
      const bound = int[1] ? `, ${int[1] === 'greater' ? 'at least' : 'at most'} ${int[2]}` : '';
      return `${flag} takes a whole number${bound}; got "${int[3]}". ${usage}`;
    }
    return `${flag}: ${inner} ${usage}`;
  }
  const unexpected = /^Unexpected arguments?: (.*)$/.exec(first);
  if (unexpected)
    return extraArgsMessage(
      command,
      unexpected[1]!.split(', '),
      args.map((a) => a.name),
    );
  if (/^Missing \d+ required args?/.test(first)) {
    const missing = lines.slice(1).map((l) => /^(\S+)/.exec(l)?.[1]?.toUpperCase() ?? l);
    const named = missing.length ? missing : args.map((a) => a.name);
    return `Missing the ${either(named)} argument${named.length === 1 ? '' : 's'}: \`${command} ${named.join(' ')}\`. ${usage}`;
  }
  const choice = /^Expected --([\w-]+)=(.*) to be one of: (.*)$/.exec(first);
  if (choice) return `--${choice[1]} takes one of ${choice[3]}; got "${choice[2]}". ${usage}`;
  const noValue = /^Flag (--[\w-]+) expects (?:one of these values: (.*)|a value)$/.exec(lines.join(' '));
  if (noValue) return `${noValue[1]} needs a value${noValue[2] ? `: one of ${noValue[2]}` : ''}. ${usage}`;
  if (/^The following errors? occurred:$/.test(first))
    return `${lines
      .slice(1)
      .map((l) => l.replace(/^(--[\w-]+)=\S*/, '$1'))
      .join('; ')}. ${usage}`;
  return `${lines.join(' ')} ${usage}`;
}

/**
 * A Stripe CLI habit payorch takes in other words: `get|post|delete PATH` (payorch's is `api METHOD PATH`; a
 * leading `/v1` — Stripe's prefix — dropped, as the base URL ends in `/functions/v1`) and `fixtures FILE`
 * (`fixtures run FILE`). The command meant, the rest of what was typed kept (shell-quoted), and why; undefined
 * for anything else. `typed`: the command words (oclif's id split at its colons); `argv`: the words after them.
 */
export function stripeHabit(
  typed: readonly string[],
  argv: readonly string[],
): { command: string; why: string } | undefined {
  const rest = (words: readonly string[]) => [...words, ...argv].map(shellWord).join(' ');
  const [first, second] = typed;
  if (first === undefined || second === undefined || second.startsWith('-')) return undefined;
  if (/^(get|post|delete|patch)$/i.test(first)) {
    const path = second.replace(/^\/v1(?=\/|$)/, '') || '/';
    return {
      command: `api ${first.toLowerCase()} ${rest([path, ...typed.slice(2)])}`,
      why: "payorch's form of the Stripe CLI's get, post and delete",
    };
  }
  if (first === 'fixtures' && (/\.(json|ya?ml)$/i.test(second) || existsSync(second)))
    return { command: `fixtures run ${rest(typed.slice(1))}`, why: 'fixture files run with `fixtures run`' };
  return undefined;
}
