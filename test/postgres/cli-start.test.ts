// `payorch server start --database` as a user runs it, on a throwaway PostgreSQL: --json names the database (never
// the password), a second process given another key is refused (exit 3) without printing either key, and a database
// that cannot be reached is named, exit 4, in the foreground and with --detach alike.
import { describe, expect, it } from 'vitest';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliSlow as runCli, type CliResult } from '../helpers/cli.js';
import { postgresServer } from '../helpers/postgres.js';
import { stoppedAfterAll } from '../helpers/processes.js';
import { tempDir } from '../helpers/tmp.js';

const pg = postgresServer();
const pids = stoppedAfterAll();
const UNREACHABLE = 'postgres://u:s3cret@127.0.0.1:1/db';
const output = (r: CliResult) => r.stdout + r.stderr;

function keyFile(key: string): string {
  const path = join(tempDir(), 'sealing.key');
  writeFileSync(path, `${key}\n`);
  chmodSync(path, 0o600);
  return path;
}

describe('server start --database', () => {
  it('a database that cannot be reached: exit 4 naming host, port and database, never the password', async () => {
    const key = keyFile('a'.repeat(64));
    const args = ['server', 'start', '--port', '0', '--database', UNREACHABLE, '--sealing-key-file', key];
    const [fg, fgJson, detached] = await Promise.all([
      runCli(args),
      runCli([...args, '--json']),
      runCli([...args, '--detach']),
    ]);
    for (const r of [fg, fgJson, detached]) {
      expect(r.code, output(r)).toBe(4);
      expect(output(r)).toContain('127.0.0.1:1/db');
      expect(output(r)).not.toContain('s3cret');
      expect(output(r)).not.toContain('a'.repeat(16));
    }
    expect(fgJson.json().error.code).toBe('connection_error');
  });

  describe.skipIf(pg.missing !== '')(`on PostgreSQL${pg.missing ? ` (skipped: ${pg.missing})` : ''}`, () => {
    it('--json names the database; a process given another key is refused, exit 3, no key printed', async () => {
      const url = await pg.database();
      const key = 'b'.repeat(64);
      const home = tempDir();
      const first = await runCli(
        ['server', 'start', '--port', '0', '--data-dir', join(tempDir(), 'a'), '--detach', '--json'],
        { home, env: { PAYORCH_DATABASE_URL: url, PAYORCH_SEALING_KEY: key } },
      );
      expect(first.code, first.stderr).toBe(0);
      const started = first.json();
      pids.add(started.pid);
      expect(Object.keys(started).sort()).toEqual(['api_key', 'base_url', 'data_dir', 'database', 'pid']);
      expect(started.database).toBe(url);

      const other = 'c'.repeat(64);
      const second = await runCli(
        [
          'server',
          'start',
          '--port',
          '0',
          '--data-dir',
          join(tempDir(), 'b'),
          '--database',
          url,
          '--sealing-key-file',
          keyFile(other),
        ],
        { home },
      );
      expect(second.code, output(second)).toBe(3);
      expect(second.stderr).toMatch(/sealed with another key/);
      for (const k of [key, other]) expect(output(second)).not.toContain(k.slice(0, 16));

      expect((await runCli(['server', 'stop', '--pid', String(started.pid)], { home })).code).toBe(0);
    });

    it('the sandbox\'s key is new to its first process only: the second shows it masked, not "(new; …)"', async () => {
      const url = await pg.database();
      const home = tempDir();
      const env = { PAYORCH_DATABASE_URL: url, PAYORCH_SEALING_KEY: 'd'.repeat(64) };
      const dirs = [join(tempDir(), 'sandbox-a'), join(tempDir(), 'sandbox-b')];
      const start = (dir: string) =>
        runCli(['server', 'start', '--port', '0', '--data-dir', dir, '--detach'], { home, env });
      try {
        const first = await start(dirs[0]!);
        expect(first.code, output(first)).toBe(0);
        const key = /API key\s+(sk_test_\w+)/.exec(first.stdout)![1]!;
        expect(first.stdout).toContain(`${key}  (new; \``);
        const second = await start(dirs[1]!); // a new data directory, the same sandbox and key
        expect(second.code, output(second)).toBe(0);
        expect(second.stdout).not.toContain('(new;');
        expect(second.stdout).not.toContain(key);
        expect(second.stdout).toMatch(new RegExp(`API key\\s+sk_test_…${key.slice(-4)}\\s`));
      } finally {
        for (const d of dirs) await runCli(['server', 'stop', '--data-dir', d], { home });
      }
    });
  });
});
