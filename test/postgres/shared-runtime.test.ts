// Fault rules and the request log work through any server process of one PostgreSQL database (docs/api.md "What the
// server needs of PostgreSQL"): a rule added through one process applies to the next request reaching another, a
// rule's count is used up once across them, its rate's turns are counted across them, and `GET /request-log` (and
// `payorch logs tail`) through one process shows the requests another served.
import { describe, expect, it } from 'vitest';
import { postgresServer } from '../helpers/postgres.js';
import { sandboxes } from './sandbox.js';
import type { Child } from '../reliability/child.js';
import { requester, type Requester } from '../reliability/health.js';
import { until } from '../webhooks/receiver.js';
import { against } from '../helpers/cli.js';
import { spawnCli } from '../cli-events/util.js';

const pg = postgresServer();

const { sandbox } = sandboxes(pg);

/** Two server processes on one fresh database. */
async function pair(options: object = {}): Promise<[Child, Child]> {
  const { procs } = await sandbox(2, options);
  return [procs[0]!, procs[1]!];
}

const reqOf = (c: Child): Requester => requester(c.baseUrl, c.apiKey);
const session = { body: { amount: 100, currency: 'usd' } };

describe.skipIf(pg.missing !== '')(
  `fault rules and the request log across processes${pg.missing ? ` (skipped: ${pg.missing})` : ''}`,
  () => {
    it('a rule added through one process applies to the next request another serves', { timeout: 60_000 }, async () => {
      const [a, b] = (await pair()).map(reqOf) as [Requester, Requester];
      // B has served a request (its rules read) before the rule exists.
      expect((await b('POST', '/create-session', session)).status).toBe(201);
      const added = await a('POST', '/test-helpers/faults', {
        body: { fault: 'status=503', method: 'POST', path: '/create-session' },
      });
      expect(added.status).toBe(201);
      const faulted = await b('POST', '/create-session', session);
      expect(faulted.status).toBe(503);
      expect(faulted.body.error.code).toBe('service_unavailable');
      // Listed through B with what it matched there; other routes are not touched.
      expect((await b('GET', '/sessions?limit=1')).status).toBe(200);
      const listed = await b('GET', '/test-helpers/faults');
      expect(listed.body.data).toMatchObject([{ id: added.body.id, scope: 'account', matched: 1, injected: 1 }]);
      // Deleted through B: A's next request runs.
      expect((await b('DELETE', `/test-helpers/faults/${added.body.id}`)).status).toBe(200);
      expect((await a('POST', '/create-session', session)).status).toBe(201);
      expect((await a('GET', '/test-helpers/faults')).body.data).toEqual([]);
    });

    it(
      'a count is used up once across processes, and a rate takes its turns across them',
      { timeout: 60_000 },
      async () => {
        const [a, b] = (await pair()).map(reqOf) as [Requester, Requester];
        const once = await a('POST', '/test-helpers/faults', {
          body: { fault: 'status=503', method: 'POST', path: '/create-session', count: 1 },
        });
        expect(once.status).toBe(201);
        // Twenty requests at once, half to each process: exactly one gets the fault.
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b)('POST', '/create-session', session)),
        );
        expect(answers.filter((r) => r.status === 503)).toHaveLength(1);
        expect(answers.filter((r) => r.status === 201)).toHaveLength(19);
        expect((await b('GET', '/test-helpers/faults')).body.data).toMatchObject([
          { id: once.body.id, count: 1, injected: 1, remaining: 0 },
        ]);
        expect((await b('DELETE', '/test-helpers/faults')).body).toMatchObject({ deleted: 1 });

        // rate 0.5: the 2nd, 4th, 6th… matching request, whichever process serves it.
        await b('POST', '/test-helpers/faults', { body: { fault: 'status=429', path: '/sessions/**', rate: 0.5 } });
        const statuses: number[] = [];
        for (let i = 0; i < 6; i++) statuses.push((await (i % 2 ? b : a)('GET', '/sessions/ses_missing')).status);
        expect(statuses).toEqual([404, 429, 404, 429, 404, 429]);
      },
    );

    it('the request log through one process shows the requests another served', { timeout: 60_000 }, async () => {
      const [pa, pb] = await pair();
      const [a, b] = [reqOf(pa), reqOf(pb)];
      const made = await b('POST', '/create-session', session);
      expect(made.status).toBe(201);
      expect((await b('GET', `/sessions/${made.body.id}`)).status).toBe(200);
      const fromA = await until(async () => {
        const page = await a('GET', '/request-log?path=/sessions');
        return page.body.data.length === 1 ? page.body : undefined;
      }, "B's request in the log read through A");
      expect(fromA.data[0]).toMatchObject({ method: 'GET', path: `/sessions/${made.body.id}`, status: 200 });
      // A's own request is there at once after it, numbered after B's; the filters and `after` work as on one server.
      const own = await a('GET', '/customers?limit=1');
      expect(own.status).toBe(200);
      const all = (await a('GET', '/request-log')).body;
      expect(all.data.map((e: { path: string }) => e.path)).toEqual([
        '/create-session',
        `/sessions/${made.body.id}`,
        '/customers',
      ]);
      expect(all.data.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3]);
      // An `after` past the newest entry (from before a restart) reads from the oldest.
      expect((await b('GET', '/request-log?after=999')).body.data.map((e: { seq: number }) => e.seq)).toEqual([
        1, 2, 3,
      ]);
      expect((await b('GET', '/request-log?after=1&method=post')).body).toMatchObject({ data: [], next_after: 3 });
      expect((await b('GET', '/request-log?after=1&limit=1')).body).toMatchObject({
        data: [{ seq: 2 }],
        has_more: true,
        next_after: 2,
      });
    });

    it('`payorch logs tail` through one process follows the requests another serves', { timeout: 60_000 }, async () => {
      const [pa, pb] = await pair();
      const tail = spawnCli(['logs', 'tail', '--method', 'POST', '--json', ...against(pa)]);
      let made: Awaited<ReturnType<Requester>>;
      try {
        await tail.waitFor('stderr', (t) => t.includes('Ready'));
        made = await reqOf(pb)('POST', '/create-session', session);
        expect(made.status).toBe(201);
        await tail.waitFor('stdout', (t) => t.includes('/create-session'));
      } finally {
        expect(await tail.stop('SIGINT')).toEqual({ code: 0, signal: null });
      }
      const entries = tail
        .stdout()
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(entries).toMatchObject([{ method: 'POST', path: '/create-session', status: 201 }]);
    });

    it('a snapshot restored through one process keeps the rules and empties the log', { timeout: 60_000 }, async () => {
      const [a, b] = (await pair()).map(reqOf) as [Requester, Requester];
      expect((await a('POST', '/test-helpers/snapshots', { body: { name: 'base' } })).status).toBe(201);
      const rule = await a('POST', '/test-helpers/faults', { body: { fault: 'status=503', path: '/customers' } });
      expect(rule.status).toBe(201);
      expect((await b('GET', '/customers')).status).toBe(503);
      // Every request so far in the log (A's written within its 200 ms) before the restore.
      const before = await until(async () => {
        const page = await b('GET', '/request-log');
        return page.body.data.length === 3 ? page.body : undefined;
      }, 'the requests before the restore, in the log');
      expect((await b('POST', '/test-helpers/snapshots/base/restore')).status).toBe(200);
      // The rule still applies through either process; the log starts empty, its numbering going on.
      expect((await a('GET', '/customers')).status).toBe(503);
      // (A's entry is written within its 200 ms; the restore's own request is logged after the restore, as on SQLite.)
      await until(async () => {
        const page = await b('GET', '/request-log?path=/customers');
        return page.body.data.length === 1 ? page.body : undefined;
      }, "A's request after the restore, in the log");
      const after = (await b('GET', '/request-log')).body;
      expect(after.data.map((e: { path: string }) => e.path).sort()).toEqual([
        '/customers',
        '/test-helpers/snapshots/base/restore',
      ]);
      for (const e of after.data) expect(e.seq).toBeGreaterThan(before.next_after);
      expect((await a('GET', '/test-helpers/faults')).body.data).toMatchObject([{ id: rule.body.id, injected: 2 }]);
    });
  },
);
