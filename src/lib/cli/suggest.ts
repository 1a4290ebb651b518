// "Did you mean …?" for what the CLI does not know: a command or topic (src/hooks/not-found.ts), a flag
// (BaseCommand.parse). Loaded only once something was mistyped.
import { distance } from 'fastest-levenshtein';

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
