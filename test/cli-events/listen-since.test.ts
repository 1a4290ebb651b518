// `payorch listen --since` on a seeded server (a process of its own: a seeded server needs one): a duration counts
// back from the account's clock, which stands at 2025-01-01 until advanced; a time and Unix seconds work too; what
// it cannot read is exit 2 before the listener starts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { against, runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { advance, newSession } from '../payments/util.js';
import { spawnCli } from './util.js';

let seeded: TestServer;
beforeAll(async () => {
  seeded = await startTestServer({ seed: 11, memory: true });
});
afterAll(() => seeded.close());

const ready = (t: string) => t.includes('Ready: listening');

describe('payorch listen --since on a seeded server', () => {
  it('counts a duration back from the account clock (a seeded server stands at 2025-01-01), takes a time, and refuses what it cannot read', async () => {
    await newSession(seeded);
    const early = (await seeded.request('GET', '/events?limit=100')).body.data
      .map((e: { id: string }) => e.id)
      .reverse();
    await advance(seeded, 3600);
    await newSession(seeded);
    const all = (await seeded.request('GET', '/events?limit=100')).body.data.map((e: { id: string }) => e.id).reverse();
    const late = all.slice(early.length);
    expect(late.length).toBeGreaterThan(0);
    const backlog = async (since: string, n: number) => {
      const listen = spawnCli(['listen', '--json', '--since', since, ...against(seeded)]);
      try {
        await listen.waitFor('stderr', ready);
        await listen.waitFor('stdout', (t) => t.split('\n').filter(Boolean).length >= n);
      } finally {
        expect(await listen.stop('SIGINT')).toEqual({ code: 0, signal: null });
      }
      return listen
        .stdout()
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id);
    };
    expect(await backlog('10m', late.length)).toEqual(late); // the last 10 minutes of the account's clock
    expect(await backlog('2h', all.length)).toEqual(all);
    expect(await backlog('2025-01-01T00:30:00Z', late.length)).toEqual(late);
    expect(await backlog(String(Date.UTC(2025, 0, 1) / 1000), all.length)).toEqual(all);
    for (const bad of ['yesterday', '10x', 'evt_']) {
      const r = await runCli(['listen', '--since', bad, ...against(seeded)]);
      expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(/--since takes a duration/)]);
    }
    const gone = await runCli(['listen', '--since', 'evt_doesNotExist0000', ...against(seeded)]);
    expect([gone.code, gone.stderr]).toEqual([2, expect.stringMatching(/--since: no event evt_doesNotExist0000/)]);
  });
});
