// The commands that work on a data directory directly (`server keys …`, `server status`, `server snapshot …` on a
// stopped directory), on a directory whose server keeps its state in PostgreSQL: they act on that database (named in
// the directory's database.json), never on an empty SQLite file of the directory, and never show the URL's password.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../dist/index.js';
import { runCliSlow as runCli, type CliResult } from '../helpers/cli.js';
import { postgresServer } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';

const pg = postgresServer();
const output = (r: CliResult) => r.stdout + r.stderr;

/** GET /sessions with `key` on `server`: its status and error code. */
async function tryKey(server: RunningServer, key: string): Promise<{ status: number; code?: string }> {
  const res = await fetch(`${server.baseUrl}/sessions`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await res.json()) as { error?: { code?: string } };
  return { status: res.status, code: body.error?.code };
}

describe.skipIf(pg.missing !== '')(
  `data-directory commands on PostgreSQL${pg.missing ? ` (skipped: ${pg.missing})` : ''}`,
  () => {
    let server: RunningServer | undefined;
    afterAll(async () => {
      await server?.close();
    });

    it('keys create/list/revoke act on the server’s database; status names it without the password; snapshots of a stopped directory are refused', async () => {
      // A password in the URL (the throwaway server trusts local connections, so any password is accepted).
      const url = (await pg.database()).replace('postgres@', 'postgres:s3cret-pw@');
      const sealingKey = randomBytes(32).toString('hex');
      const dataDir = join(tempDir(), 'data');
      server = await startServer({ database: url, sealingKey, dataDir, port: 0 });
      const dir = ['--data-dir', dataDir];

      // The directory records the database (mode 0600, never the sealing key) and holds no SQLite file.
      const recorded = join(dataDir, 'database.json');
      expect(statSync(recorded).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(recorded, 'utf8'))).toEqual({ url });
      expect(readFileSync(recorded, 'utf8')).not.toContain(sealingKey);

      // A key of a new account, and one of the default account: both work against the running server.
      const made = await runCli(['server', 'keys', 'create', '--json', ...dir]);
      expect(made.code, output(made)).toBe(0);
      const key = made.json<{ api_key: string; id: string; account_id: string }>();
      expect(key.account_id).not.toBe(server.accountId);
      expect(await tryKey(server, key.api_key)).toEqual({ status: 200, code: undefined });
      const ofDefault = await runCli(['server', 'keys', 'create', '--default-account', '--json', ...dir]);
      expect(ofDefault.code, output(ofDefault)).toBe(0);
      expect(ofDefault.json().account_id).toBe(server.accountId);
      expect(await tryKey(server, ofDefault.json().api_key)).toEqual({ status: 200, code: undefined });
      expect(existsSync(join(dataDir, 'payorch.db'))).toBe(false);

      // Revoked: the server answers 401 api_key_revoked at once; the list shows it revoked, the others active.
      const revoked = await runCli(['server', 'keys', 'revoke', key.id, ...dir]);
      expect(revoked.code, output(revoked)).toBe(0);
      expect(await tryKey(server, key.api_key)).toEqual({ status: 401, code: 'api_key_revoked' });
      const listed = await runCli(['server', 'keys', 'list', '--json', ...dir]);
      expect(listed.code, output(listed)).toBe(0);
      const rows = listed.json<{ data: { id: string; account_id: string; revoked_at: string | null }[] }>().data;
      expect(rows.find((r) => r.id === key.id)?.revoked_at).toEqual(expect.any(String));
      expect(rows.find((r) => r.id === ofDefault.json().id)?.revoked_at).toBeNull();
      expect(rows.filter((r) => r.account_id === server!.accountId).length).toBe(2);

      // The default key is re-issued on revocation, sealed in the database: without the sealing key, nothing is revoked.
      const noKey = await runCli(['server', 'keys', 'revoke', server.apiKey, ...dir]);
      expect(noKey.code, output(noKey)).toBe(3);
      expect(output(noKey)).toMatch(/sealing key/);
      expect(await tryKey(server, server.apiKey)).toEqual({ status: 200, code: undefined });
      const withKey = await runCli(['server', 'keys', 'revoke', server.apiKey, ...dir], {
        env: { PAYORCH_SEALING_KEY: sealingKey },
      });
      expect(withKey.code, output(withKey)).toBe(0);
      expect(await tryKey(server, server.apiKey)).toEqual({ status: 401, code: 'api_key_revoked' });
      const reissued = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { api_key: string };
      expect(reissued.api_key).not.toBe(server.apiKey);
      expect(await tryKey(server, reissued.api_key)).toEqual({ status: 200, code: undefined });

      // Status names the database, never its password.
      const where = url.replace(':s3cret-pw', '');
      const status = await runCli(['server', 'status', '--json', ...dir]);
      expect(status.code, output(status)).toBe(0);
      expect(status.json().database).toBe(where);
      const human = await runCli(['server', 'status', ...dir]);
      expect(human.stdout).toContain(where);
      for (const r of [made, ofDefault, revoked, listed, noKey, withKey, status, human])
        expect(output(r)).not.toContain('s3cret-pw');

      // Stopped: the keys are still the database's; a snapshot of the directory is refused, nothing made.
      await server.close();
      server = undefined;
      const stoppedList = await runCli(['server', 'keys', 'list', '--json', ...dir]);
      expect(stoppedList.code, output(stoppedList)).toBe(0);
      expect(stoppedList.json().data.length).toBe(rows.length + 1);
      for (const args of [['save', 'x'], ['restore', 'x'], ['list']]) {
        const r = await runCli(['server', 'snapshot', ...args, ...dir]);
        expect(r.code, output(r)).toBe(1);
        expect(output(r)).toMatch(/PostgreSQL/);
        expect(output(r)).not.toContain('s3cret-pw');
      }
      expect(existsSync(join(dataDir, 'payorch.db'))).toBe(false);
      expect(existsSync(join(dataDir, 'snapshots'))).toBe(false);

      // A reset of the directory forgets the database.
      const reset = await runCli(['server', 'reset', '--yes', ...dir]);
      expect(reset.code, output(reset)).toBe(0);
      expect(existsSync(recorded)).toBe(false);
    });
  },
);
