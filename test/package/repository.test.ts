// The working tree after the commands the README and the tests run: `npm pack` (its tarball is how the library
// is tried as installed) leaves nothing `git status` shows.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const inGit =
  spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() === 'true';

describe.skipIf(!inGit)('.gitignore', () => {
  it("covers npm pack's tarball (payorch-<version>.tgz, named as npm names it)", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      name: string;
      version: string;
    };
    const tarball = `${pkg.name.replace(/^@/, '').replace('/', '-')}-${pkg.version}.tgz`;
    const check = spawnSync('git', ['check-ignore', '--no-index', '-q', tarball], { cwd: ROOT });
    expect(check.status, `${tarball} is not ignored`).toBe(0);
  });
});
