// A database outage behind a shared sandbox's server, as a CI script meets it through the real binary: the API's
// 503 `storage_unavailable` exits 75 ("try again later", README "Output and exit codes"), not 1 as a bad id does;
// `server status` says the server runs and its database is unavailable (exit 75), not "not answering".
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, runCliSlow, type CliResult } from '../helpers/cli.js';
import { postgresServer } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';

const pg = postgresServer();
const output = (r: CliResult) => r.stdout + r.stderr;

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await runCliSlow(['server', 'stop', '--data-dir', dir]);
});

describe.skipIf(pg.missing !== '')(`a database outage${pg.missing ? ` (skipped: ${pg.missing})` : ''}`, () => {
  it(
    'exits 75 on 503 storage_unavailable (a bad id: 1), and server status says what is true',
    { timeout: 120_000 },
    async () => {
      const url = await pg.database();
      const keyFile = join(tempDir(), 'sealing.key');
      expect((await runCli(['server', 'sealing-key', '--out', keyFile])).code).toBe(0);
      const dir = tempDir();
      dirs.push(dir);
      const started = await runCliSlow([
        'server',
        'start',
        '--database',
        url,
        '--sealing-key-file',
        keyFile,
        '--data-dir',
        dir,
        '--port',
        '0',
        '--detach',
        '--json',
      ]);
      expect(started.code, output(started)).toBe(0);
      const { base_url, api_key } = started.json<{ base_url: string; api_key: string }>();
      const to = ['--base-url', base_url, '--api-key', api_key];
      const made = await runCli(['customers', 'create', '--email', 'outage@example.test', '--json', ...to]);
      expect(made.code, output(made)).toBe(0);
      const id = made.json().id;
      const badId = await runCli(['customers', 'get', 'cus_doesnotexist', '--json', ...to]);
      expect(badId.code, output(badId)).toBe(1);
      expect(badId.json().error.code).toBe('resource_missing');
      const up = await runCli(['server', 'status', '--data-dir', dir, '--json']);
      expect(up.code, output(up)).toBe(0);

      pg.stop('fast');
      try {
        // --timeout 5: the client does not wait out the answer's Retry-After (5 s) twice over.
        const read = await runCli(['customers', 'get', id, '--json', '--timeout', '5', ...to]);
        expect(read.json().error.code, output(read)).toBe('storage_unavailable');
        expect(read.code).toBe(75);
        const human = await runCli(['customers', 'create', '--email', 'later@example.test', '--timeout', '5', ...to]);
        expect(human.code, output(human)).toBe(75);
        expect(human.stderr).toContain('storage_unavailable');
        expect(human.stderr).toContain('Try again later');

        const status = await runCli(['server', 'status', '--data-dir', dir]);
        expect(status.stdout, output(status)).toMatch(/^Server running; its database is unavailable\n/);
        expect(status.code).toBe(75);
        const json = await runCli(['server', 'status', '--data-dir', dir, '--json']);
        expect(json.code).toBe(75);
        expect(json.json()).toMatchObject({ running: true, healthy: false, state: 'database_unavailable' });
      } finally {
        pg.start();
      }
    },
  );
});
