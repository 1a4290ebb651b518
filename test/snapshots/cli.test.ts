// `payorch server snapshot …` through the real binary: on a stopped data directory (the files, under its lock) and
// on the server running on it (over HTTP with the directory's default key); names validated; exit codes.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';
import { newSession } from '../payments/util.js';

describe('payorch server snapshot', () => {
  it('saves and restores a stopped data directory; lists, deletes; a missing name is exit 1, a bad one exit 2', async () => {
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
  });
});
