// An unknown command: say so in the words the user typed (spaces, not oclif's internal colons), suggest the
// nearest command, and exit 2 (usage). Loaded only when a command is not found.
import type { Hook } from '@oclif/core';
import { closest, distance } from 'fastest-levenshtein';
import { printable } from '../lib/output/render.js';

const hook: Hook<'command_not_found'> = async function (opts) {
  const visible = opts.config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases]);
  const typed = opts.id.split(':');
  // Compare with as many words as each candidate has: `sesions list extra` still finds `sessions list`.
  const candidates = visible.map((id) => ({ id, words: id.split(':') })).map((c) => ({ ...c, typed: typed.slice(0, c.words.length).join(':') }));
  const best = candidates.length ? closest(opts.id, visible) : undefined;
  let suggestion: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const d = distance(c.typed, c.id);
    if (d < bestScore || (d === bestScore && c.id === best)) [bestScore, suggestion] = [d, c.id];
  }
  const shown = (id: string) => id.split(':').join(' ');
  const limit = suggestion ? Math.max(2, Math.floor(suggestion.length / 3)) : 0;
  const hint = suggestion && bestScore <= limit ? ` Did you mean \`${opts.config.bin} ${shown(suggestion)}\`?` : '';
  const json = (opts.argv ?? []).includes('--json');
  const message = `\`${printable(shown(opts.id))}\` is not a ${opts.config.bin} command.${hint} \`${opts.config.bin} help\` lists the commands.`;
  if (json) process.stdout.write(JSON.stringify({ error: { type: 'invalid_request_error', code: 'unknown_command', message } }, null, 2) + '\n');
  process.stderr.write(`Error: ${message}\n`);
  process.exit(2);
};

export default hook;
