// A stand-in for the user's editor (`--edit` runs $VISUAL/$EDITOR with the file to edit): a script that replaces
// `from` with `to` in the file it is given and exits 0.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './tmp.js';

export function fakeEditor(from: string, to: string): string {
  const path = join(tempDir(), 'editor.mjs');
  writeFileSync(
    path,
    `#!${process.execPath}
import { readFileSync, writeFileSync } from 'node:fs';
const p = process.argv[2];
writeFileSync(p, readFileSync(p, 'utf8').replace(${JSON.stringify(from)}, ${JSON.stringify(to)}));
`,
  );
  chmodSync(path, 0o755);
  return path;
}
