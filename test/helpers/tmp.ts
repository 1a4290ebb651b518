import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A fresh temporary directory, removed at process exit. */
export function tempDir(prefix = 'payorch-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

process.on('exit', () => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
