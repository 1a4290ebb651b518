// An unknown command: say so in the words the user typed (spaces, not oclif's internal colons), suggest the
// nearest command or topic, and exit 2 (usage). Loaded only when a command is not found.
import type { Hook } from '@oclif/core';
import { closest, distance } from 'fastest-levenshtein';
import { printable } from '../lib/output/render.js';
import { nearEnough } from '../lib/cli/suggest.js';

const hook: Hook<'command_not_found'> = async function (opts) {
  const typed = opts.id.split(':');
  // A topic when it was typed alone (`sesions` → `sessions`, which lists its commands), never as the start of a
  // longer input: `sessions lst` means `sessions list`, not the topic its first word already names.
  const topics = opts.config.topics
    .filter((t) => !t.hidden && t.name.split(':').length === typed.length)
    .map((t) => t.name);
  const visible = [...opts.config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases]), ...topics];
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
  const shown = (id: string) => id.split(':').join(' ');
  const hint =
    suggestion && nearEnough(bestScore, suggestion) ? ` Did you mean \`${opts.config.bin} ${shown(suggestion)}\`?` : '';
  const json = (opts.argv ?? []).includes('--json');
  const message = `\`${printable(shown(opts.id))}\` is not a ${opts.config.bin} command.${hint} \`${opts.config.bin} help\` lists the commands.`;
  if (json)
    process.stdout.write(
      JSON.stringify({ error: { type: 'invalid_request_error', code: 'unknown_command', message } }, null, 2) + '\n',
    );
  process.stderr.write(`Error: ${message}\n`);
  process.exit(2);
};

export default hook;
