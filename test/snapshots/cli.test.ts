// `payorch server snapshot …` through the real binary: on a stopped data directory (the files, under its lock) and
// on the server running on it (over HTTP with the directory's default key); names validated; exit codes.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';
import { newSession } from '../payments/util.js';
import { onSqlite } from '../helpers/engine.js';

describe('payorch server snapshot', () => {
  it.runIf(onSqlite)(
    'saves and restores a stopped data directory; lists, deletes; a missing name is exit 1, a bad one exit 2',
    async () => {
      const dataDir = tempDir();
      let s = await startTestServer({ dataDir, dueWorkIntervalMs: 0 });
      const kept = await newSession(s);
      await s.close();
      const cli = (...args: string[]) => runCli(['server', 'snapshot', ...args, '--data-dir', dataDir, '--json']);

      const saved = await cli('save', 'seeded');
      expect(saved.code, saved.stderr).toBe(0);
      expect(saved.json()).toMatchObject({ object: 'snapshot', name: 'seeded' });

      s = await startTestServer({ dataDir, dueWorkIntervalMs: 0 });
      const gone = await newSession(s);
      await s.close();
      const restored = await cli('restore', 'seeded');
      expect(restored.code, restored.stderr).toBe(0);
      s = await startTestServer({ dataDir, dueWorkIntervalMs: 0 });
      expect((await s.request('GET', `/sessions/${kept.id}`)).status).toBe(200);
      expect((await s.request('GET', `/sessions/${gone.id}`)).status).toBe(404);

      // The same commands against the server now running on the directory.
      const again = await newSession(s);
      expect((await cli('save', 'two')).code).toBe(0);
      await newSession(s);
      const viaServer = await cli('restore', 'two');
      expect(viaServer.code, viaServer.stderr).toBe(0);
      expect(viaServer.json()).toMatchObject({ object: 'snapshot_restore', name: 'two' });
      expect((await s.request('GET', '/sessions?limit=1')).body.total_count).toBe(2);
      expect((await s.request('GET', `/sessions/${again.id}`)).status).toBe(200);
      const listed = await cli('list');
      expect(listed.json().data.map((x: { name: string }) => x.name)).toEqual(['seeded', 'two']);
      const table = await runCli(['server', 'snapshot', 'list', '--data-dir', dataDir]);
      expect(table.stdout).toMatch(/^NAME\s+SIZE/);
      await s.close();

      expect((await cli('delete', 'two')).code).toBe(0);
      const missing = await cli('delete', 'two');
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/No snapshot named "two" \(snapshots: seeded\)/);
      for (const bad of ['../x', '', '.hidden', 'a/b']) {
        const r = await cli('save', bad);
        expect(r.code, bad).toBe(2);
      }
      expect(readdirSync(join(dataDir, 'snapshots')).filter((f) => !f.startsWith('.'))).toEqual(['seeded.sqlite']);
    },
  );
});

describe('payorch server snapshot without --data-dir follows PAYORCH_BASE_URL, as `server stop` does', () => {
  const pids = new Set<number>();
  afterAll(() => {
    for (const pid of pids)
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
  });

  it('acts on the data directory of the server the environment names, never the default one; refuses a server that is gone or in memory', async () => {
    const home = tempDir();
    // Someone else's server on the default data directory, and the job's, on a directory of its own.
    const other = await runCli(['server', 'start', '--detach', '--port', '0', '--json'], { home });
    expect(other.code, other.stderr).toBe(0);
    pids.add(other.json<{ pid: number }>().pid);
    const jobDir = join(tempDir(), 'job-data');
    const job = await runCli(['server', 'start', '--detach', '--port', '0', '--data-dir', jobDir, '--env'], { home });
    expect(job.code, job.stderr).toBe(0);
    const pid = Number(/pid (\d+)/.exec(job.stderr)?.[1]);
    pids.add(pid);
    const env = Object.fromEntries(
      job.stdout
        .trim()
        .split('\n')
        .map((l) => /^(\w+)='([^']*)'/.exec(l)!.slice(1, 3)),
    );
    const snap = (...args: string[]) => runCli(['server', 'snapshot', ...args], { home, env });

    const saved = await snap('save', 'seeded');
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toContain(`of ${jobDir} (server at ${env.PAYORCH_BASE_URL})`);
    expect(existsSync(join(jobDir, 'snapshots', 'seeded.sqlite'))).toBe(true);
    expect(existsSync(join(home, 'server', 'snapshots'))).toBe(false);
    const listed = await snap('list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.json().data.map((x: { name: string }) => x.name)).toEqual(['seeded']);
    const restored = await snap('restore', 'seeded');
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain(`on the server at ${env.PAYORCH_BASE_URL}`);

    // Gone (stopped through the same variable): an error, not the default directory's server instead.
    expect((await runCli(['server', 'stop'], { home, env })).code).toBe(0);
    const gone = await snap('list');
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain(`No server payorch started is running at ${env.PAYORCH_BASE_URL} (PAYORCH_BASE_URL)`);
    // --data-dir still names a directory outright.
    expect((await runCli(['server', 'snapshot', 'list', '--data-dir', jobDir, '--json'], { home, env })).code).toBe(0);

    // An in-memory server has no directory to keep them in.
    const memory = await runCli(['server', 'start', '--detach', '--port', '0', '--memory', '--json'], { home });
    expect(memory.code, memory.stderr).toBe(0);
    const m = memory.json<{ pid: number; base_url: string }>();
    pids.add(m.pid);
    const refused = await runCli(['server', 'snapshot', 'save', 'x'], { home, env: { PAYORCH_BASE_URL: m.base_url } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('runs in memory');
    expect(existsSync(join(home, 'server', 'snapshots'))).toBe(false);
  });
});
