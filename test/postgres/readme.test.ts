// README "A shared sandbox" runs as written, on a throwaway PostgreSQL: the database URL and the two ports are the only
// words replaced (the README's host does not exist here, and fixed ports may be taken on a shared machine). The key is
// made once and given to both processes, the migrations are applied, two processes start on the one database, and a
// session created through one is read through the other with the same key; the key is never printed. Then the
// section's second block, in the same shell: commands reach the sandbox with its key and address, what one process
// wrote is listed through the other, the clock and snapshots are the sandbox's, and a teammate's key made with
// --default-account sees the data while a plain `server keys create` key sees none of it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLock } from '../../dist/lib/server/lock.js';
import { BIN, runCliSlow } from '../helpers/cli.js';
import { freePort, postgresServer } from '../helpers/postgres.js';
import { stoppedAfterAll } from '../helpers/processes.js';
import { tempDir } from '../helpers/tmp.js';
import { readmeSnippet } from '../helpers/readme.js';

const pg = postgresServer();
const pids = stoppedAfterAll();

/** `text` with `from` replaced by `to`, which must be there exactly once. */
function replaceOnce(text: string, from: string, to: string): string {
  expect(text.split(from), `the snippet names ${from} once`).toHaveLength(2);
  return text.replace(from, to);
}

describe.skipIf(pg.missing !== '')(`README "A shared sandbox"${pg.missing ? ` (skipped: ${pg.missing})` : ''}`, () => {
  it(
    'two processes on one database, one key: a write through one is read through the other',
    { timeout: 180_000 },
    async () => {
      const url = await pg.database();
      const [portA, portB] = [await freePort(), await freePort()];
      let script = readmeSnippet('shared-sandbox', 'bash');
      script = replaceOnce(script, 'postgres://payorch@db.internal:5432/sandbox', url);
      script = replaceOnce(script, '--port 4242', `--port ${portA}`);
      script = replaceOnce(script, '--port 4243', `--port ${portB}`);
      let use = readmeSnippet('shared-sandbox-use', 'bash');
      use = replaceOnce(use, '127.0.0.1:4242', `127.0.0.1:${portA}`);
      use = replaceOnce(use, '127.0.0.1:4243', `127.0.0.1:${portB}`);
      script += use;

      // A user's shell: `payorch` on PATH, a home of its own, no terminal.
      const cwd = tempDir();
      const bin = join(cwd, 'bin');
      mkdirSync(bin);
      symlinkSync(BIN, join(bin, 'payorch'));
      writeFileSync(join(cwd, 'sandbox.sh'), script);
      const env: NodeJS.ProcessEnv = {
        PATH: `${bin}:${process.env.PATH}`,
        HOME: cwd,
        PAYORCH_HOME: join(cwd, 'home'),
        NO_COLOR: '1',
      };
      const dirs = [join(cwd, 'sandbox-a'), join(cwd, 'sandbox-b')];
      try {
        const run = spawnSync('bash', ['-euo', 'pipefail', 'sandbox.sh'], {
          cwd,
          env,
          encoding: 'utf8',
          timeout: 150_000,
        });
        for (const d of dirs) {
          const pid = readLock(d)?.pid;
          if (pid) pids.add(pid);
        }
        expect(run.status, run.stderr).toBe(0);

        // the key: made once, private, never printed
        const key = readFileSync(join(cwd, 'sealing.key'), 'utf8').trim();
        expect(key).toMatch(/^[0-9a-f]{64}$/);
        expect(statSync(join(cwd, 'sealing.key')).mode & 0o777).toBe(0o600);
        expect(run.stdout + run.stderr).not.toContain(key);
        // migrate applied the schema; both processes say which database they serve
        expect(run.stdout).toMatch(/Applied \d+ migrations to postgres:\/\/postgres@127\.0\.0\.1:\d+\//);
        expect(run.stdout.match(new RegExp(`database ${url.replace(/[.]/g, '\\.')}`, 'g'))).toHaveLength(2);
        // the sandbox's key is new to the first process only
        expect(run.stdout.match(/\(new; /g)).toHaveLength(1);

        // one sandbox: the first process's key works on the second, and what one wrote the other reads
        const reveal = await runCliSlow(['server', 'keys', 'reveal', '--show', '--json', '--data-dir', dirs[0]!], {
          home: env.PAYORCH_HOME,
        });
        expect(reveal.code, reveal.stderr).toBe(0);
        const auth = { authorization: `Bearer ${reveal.json().api_key as string}` };
        const base = (port: number) => `http://127.0.0.1:${port}/functions/v1`;
        const made = await fetch(`${base(portA)}/create-session`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ amount: 1999, currency: 'usd' }),
        });
        expect(made.status).toBe(201);
        const session = (await made.json()) as { id: string };
        const read = await fetch(`${base(portB)}/sessions/${session.id}`, { headers: auth });
        expect(read.status).toBe(200);
        expect(await read.json()).toMatchObject({ id: session.id, amount: 1999 });

        // the second block: the customer written through A is listed through B (the block's own output)
        expect(run.stdout).toMatch(/qa@example\.com[\s\S]*qa@example\.com/);
        const asKey = (key: string, port: number) => ['--api-key', key, '--base-url', base(port)];
        const home = { home: env.PAYORCH_HOME };
        // the block's `clock advance 1d` (through A) moved the account's clock on every process; the snapshot saved
        // through A is listed through B
        for (const port of [portA, portB]) {
          const clock = await runCliSlow(['clock', 'get', '--json', ...asKey(reveal.json().api_key, port)], home);
          expect(clock.json<{ now: number }>().now).toBeGreaterThan(Date.now() / 1000 + 86_400 - 3_600);
        }
        const snapshots = await runCliSlow(['server', 'snapshot', 'list', '--json', '--data-dir', dirs[1]!], home);
        expect(snapshots.json().data.map((x: { name: string }) => x.name)).toContain('seeded');
        // a teammate's --default-account key sees the data; a plain `server keys create` key sees none of it
        const teammate = JSON.parse(readFileSync(join(cwd, 'teammate.json'), 'utf8'));
        expect(teammate.default_account).toBe(true);
        const plain = await runCliSlow(['server', 'keys', 'create', '--json', '--data-dir', dirs[0]!], {
          ...home,
          env: { PAYORCH_SEALING_KEY_FILE: join(cwd, 'sealing.key') },
        });
        expect(plain.code, plain.stderr).toBe(0);
        const emails = async (key: string) =>
          (await runCliSlow(['customers', 'list', '--json', ...asKey(key, portB)], home))
            .json()
            .data.map((c: { email: string }) => c.email);
        expect(await emails(teammate.api_key)).toEqual(['qa@example.com']);
        expect(await emails(plain.json().api_key)).toEqual([]);
      } finally {
        for (const d of dirs) await runCliSlow(['server', 'stop', '--data-dir', d], { home: env.PAYORCH_HOME });
      }
    },
  );
});
