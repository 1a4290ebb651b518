// `--edit` (trigger, fixtures run): a fixture opened in the user's editor before it runs, as the Stripe CLI does.
// The editor is $VISUAL, else $EDITOR, else vi, run through the shell as git runs it (so `code --wait` works); it
// edits a copy in a private temporary directory, never the original file. Only at a terminal: without one there
// is nobody to edit, and the command stops with exit 2 before it changes anything.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CliError, EXIT } from './errors.js';
import { canAsk, type CliIO } from './io.js';

/** Opens `text` (named `name` in the editor's title) in the user's editor and answers the text it was saved with. */
export function editInEditor(io: CliIO, json: boolean, name: string, text: string): string {
  if (!canAsk(io, json))
    throw new CliError(
      `--edit opens the fixture in your editor, which needs a terminal${json ? ' (and is not for --json)' : ''}; without one, save it (\`payorch fixtures show EVENT > f.json\`), change it and run it with \`payorch fixtures run f.json\`, or pass it with --raw.`,
      EXIT.USAGE,
    );
  const editor = io.env.VISUAL?.trim() || io.env.EDITOR?.trim() || 'vi';
  const dir = mkdtempSync(join(tmpdir(), 'payorch-edit-'));
  try {
    const file = join(dir, basename(name).replace(/[^\w.-]/g, '_') || 'fixture.json');
    writeFileSync(file, text, { mode: 0o600 });
    const r =
      process.platform === 'win32'
        ? spawnSync(`${editor} "${file}"`, { stdio: 'inherit', shell: true, env: io.env })
        : spawnSync('/bin/sh', ['-c', `${editor} "$@"`, editor, file], { stdio: 'inherit', env: io.env });
    if (r.error || r.status !== 0)
      throw new CliError(
        `The editor (${editor}) ${r.error ? `could not start: ${r.error.message}` : `exited with status ${r.status ?? r.signal}`}; nothing was run.`,
        EXIT.USAGE,
      );
    return readFileSync(file, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
