// An unknown command: say so in the words the user typed (spaces, not oclif's internal colons), suggest the
// nearest command or topic, and exit 2 (usage). Loaded only when a command is not found. A known command followed
// by words it does not take (`ledger list extra`: oclif reads them as a longer command name) is told so instead.
import type { Hook } from '@oclif/core';
import { closest, distance } from 'fastest-levenshtein';
import { printable } from '../lib/output/render.js';
import { commandsEndingWith, extraArgsMessage, listOfCommands, nearEnough, stripeHabit } from '../lib/cli/suggest.js';

const hook: Hook<'command_not_found'> = async function (opts) {
  const typed = opts.id.split(':');
  const bin = opts.config.bin;
  const shown = (id: string) => id.split(':').join(' ');
  const commands = opts.config.commands.filter((c) => !c.hidden);
  // A topic when it was typed alone (`sesions` → `sessions`, which lists its commands), never as the start of a
  // longer input: `sessions lst` means `sessions list`, not the topic its first word already names.
  const topics = opts.config.topics
    .filter((t) => !t.hidden && t.name.split(':').length === typed.length)
    .map((t) => t.name);
  const visible = [...commands.flatMap((c) => [c.id, ...c.aliases]), ...topics];
  // Compare with as many words as each candidate has: `sesions list extra` still finds `sessions list`.
  const candidates = visible
    .map((id) => ({ id, words: id.split(':') }))
    .map((c) => ({ ...c, typed: typed.slice(0, c.words.length).join(':') }));
  const best = candidates.length ? closest(opts.id, visible) : undefined;
  let suggestion: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const d = distance(c.typed, c.id);
    if (d < bestScore || (d === bestScore && c.id === best)) [bestScore, suggestion] = [d, c.id];
  }
  // The words typed start with a whole command: the rest are arguments it does not take.
  const known = commands.find((c) => c.id === suggestion && bestScore === 0 && typed.length > c.id.split(':').length);
  // A command typed without its topic (`unfreeze` → `ledger unfreeze`): the commands ending with it, named exactly
  // first; a near topic or command otherwise.
  const endings = commandsEndingWith(
    typed,
    commands.map((c) => c.id),
  );
  const near = suggestion !== undefined && nearEnough(bestScore, suggestion) ? suggestion : undefined;
  // What a Stripe CLI user types (`get /products`, `fixtures seed.json`): payorch's form of it, whole.
  const habit = stripeHabit(typed, opts.argv ?? []);
  const hint = habit
    ? ` Did you mean \`${bin} ${printable(habit.command)}\`? (${habit.why})`
    : endings.ids.length > 0 && (endings.exact || near === undefined)
      ? ` Did you mean ${listOfCommands(bin, endings.ids)}?`
      : near !== undefined
        ? ` Did you mean \`${bin} ${shown(near)}\`?`
        : '';
  const message = known
    ? extraArgsMessage(
        `${bin} ${shown(known.id)}`,
        typed.slice(known.id.split(':').length).map(printable),
        Object.keys(known.args ?? {}).map((a) => a.toUpperCase()),
      )
    : `\`${printable(shown(opts.id))}\` is not a ${bin} command.${hint} \`${bin} help\` lists the commands.`;
  const json = (opts.argv ?? []).includes('--json');
  if (json)
    process.stdout.write(
      JSON.stringify(
        { error: { type: 'invalid_request_error', code: known ? 'usage_error' : 'unknown_command', message } },
        null,
        2,
      ) + '\n',
    );
  process.stderr.write(`Error: ${message}\n`);
  process.exit(2);
};

export default hook;
