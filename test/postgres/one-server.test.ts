// A shared sandbox answers as one server for the test state a team changes most (issue 43): two server processes on
// one PostgreSQL database, and the very next request through the other process sees what a request through one
// changed — the test clock, a processor marked down, a fault rule — with no wait and no poll. That state is each
// account's own, as its data is: another account (a key of `server keys create`) does not see it. And a seeded server
// (`--seed`), whose ids are one stream drawn in turn, is refused on a database another process serves (and a plain
// process on a database a seeded one serves), saying why.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runCliSlow } from '../helpers/cli.js';
import { postgresServer } from '../helpers/postgres.js';
import { sandboxes, type SandboxProcess } from './sandbox.js';
import type { Child } from '../reliability/child.js';
import { requester, type Requester } from '../reliability/health.js';

const pg = postgresServer();

const { sandbox, startProcess } = sandboxes(pg);

/** Two server processes on one fresh database, each with a data directory of its own. */
async function two(options: object = {}): Promise<{ url: string; key: string; a: SandboxProcess; b: SandboxProcess }> {
  const { url, key, procs } = await sandbox(2, options);
  return { url, key, a: procs[0]!, b: procs[1]! };
}

const reqOf = (c: Child, key = c.apiKey): Requester => requester(c.baseUrl, key);

/** A key of a new account of its own, made as a user makes one: `payorch server keys create` on a process's directory. */
async function otherAccountKey(dataDir: string): Promise<{ api_key: string; account_id: string }> {
  const made = await runCliSlow(['server', 'keys', 'create', '--json', '--data-dir', dataDir]);
  if (made.code !== 0) throw new Error(`server keys create: ${made.code} ${made.stdout}${made.stderr}`);
  return made.json();
}

/** A USD card payment of 50.00 with tok_visa through `req`: the default rules route it to aurora first. */
async function cardPayment(req: Requester, baseUrl: string) {
  const session = await req('POST', '/create-session', { body: { amount: 5000, currency: 'usd' } });
  expect(session.status, session.text).toBe(201);
  const confirm = await requester(baseUrl, session.body.client_secret)('POST', `/confirm-payment/${session.body.id}`, {
    body: { payment_method_type: 'card', token_id: 'tok_visa' },
  });
  expect(confirm.status, confirm.text).toBe(200);
  return confirm.body as { psp: string; attempts: { psp: string; status: string; code: string | null }[] };
}

const aurora = (state: { processors: { id: string; status: string }[] }) =>
  state.processors.find((p) => p.id === 'aurora')?.status;

const DAY = 86_400;
/** How far real time may move between two requests of a test (a bound, not a speed: the advance is 7 days). */
const SLACK = 600;

describe.skipIf(pg.missing !== '')(
  `two server processes on one database answer as one server${pg.missing ? ` (skipped: ${pg.missing})` : ''}`,
  () => {
    it('a clock advanced through one process is the very next request’s clock through the other', async () => {
      const { a, b } = await two();
      const [ra, rb] = [reqOf(a), reqOf(b)];
      // Each process has read the account's clock before the advance (B's answer from memory is the stale one).
      const before = (await rb('GET', '/test-helpers/clock')).body.now as number;
      expect((await ra('GET', '/test-helpers/clock')).body.now).toBeGreaterThanOrEqual(before);

      const advanced = await ra('POST', '/test-helpers/advance-clock', { body: { seconds: 7 * DAY } });
      expect(advanced.status, advanced.text).toBe(200);
      const target = advanced.body.now as number;
      expect(target).toBeGreaterThanOrEqual(before + 7 * DAY);

      // At once, through B: the clock, and the time a new session is stamped with.
      const clock = (await rb('GET', '/test-helpers/clock')).body;
      expect
        .soft(clock.now, `B's clock ${clock.now_iso}, A advanced to ${advanced.body.now_iso}`)
        .toBeGreaterThanOrEqual(target);
      expect.soft(clock.now).toBeLessThan(target + SLACK);
      const viaB = await rb('POST', '/create-session', { body: { amount: 100, currency: 'usd' } });
      expect(viaB.status, viaB.text).toBe(201);
      const stampedB = Date.parse(viaB.body.created_at) / 1000;
      expect.soft(stampedB, `a session through B is stamped ${viaB.body.created_at}`).toBeGreaterThanOrEqual(target);
      expect.soft(stampedB).toBeLessThan(target + SLACK);
      // And through A, the same time.
      const viaA = await ra('POST', '/create-session', { body: { amount: 100, currency: 'usd' } });
      const stampedA = Date.parse(viaA.body.created_at) / 1000;
      expect(stampedA).toBeGreaterThanOrEqual(target);
      expect(Math.abs(stampedA - stampedB)).toBeLessThan(SLACK);
    }, 60_000);

    it('a processor marked down through one process is down through the other, for its account only', async () => {
      const { a, b } = await two();
      const [ra, rb] = [reqOf(a), reqOf(b)];
      // B has routed a payment to aurora before (anything it keeps in memory is warm).
      expect((await cardPayment(rb, b.baseUrl)).psp).toBe('aurora');
      const other = await otherAccountKey(a.dataDir);
      const [oa, ob] = [reqOf(a, other.api_key), reqOf(b, other.api_key)];

      const down = await ra('POST', '/test-helpers/processors/aurora', { body: { status: 'down' } });
      expect(down.status, down.text).toBe(200);
      expect(aurora(down.body)).toBe('down');

      // Through B, at once: aurora is down, and a payment that routes to it first fails over to basalt.
      const seen = await rb('GET', '/test-helpers/processors');
      expect(seen.status).toBe(200);
      expect.soft(aurora(seen.body), 'aurora through B after A marked it down').toBe('down');
      const viaB = await cardPayment(rb, b.baseUrl);
      expect.soft(viaB.attempts, 'a payment through B').toEqual([
        { psp: 'aurora', status: 'failed', code: 'processor_unavailable' },
        { psp: 'basalt', status: 'succeeded', code: null },
      ]);
      // Through A too (the process that marked it).
      expect((await cardPayment(ra, a.baseUrl)).psp).toBe('basalt');

      // Another account's test state is its own: aurora is up for it through either process, and its payments go there.
      for (const [name, req, base] of [
        ['A', oa, a.baseUrl],
        ['B', ob, b.baseUrl],
      ] as const) {
        const state = await req('GET', '/test-helpers/processors');
        expect(state.status).toBe(200);
        expect.soft(aurora(state.body), `aurora for another account through ${name}`).toBe('up');
        const paid = await cardPayment(req, base);
        expect
          .soft(paid.attempts, `another account's payment through ${name}`)
          .toEqual([{ psp: 'aurora', status: 'succeeded', code: null }]);
      }

      // Marked up again through B: up through A at once.
      expect((await rb('POST', '/test-helpers/processors/aurora', { body: { status: 'up' } })).status).toBe(200);
      expect(aurora((await ra('GET', '/test-helpers/processors')).body)).toBe('up');
      expect((await cardPayment(ra, a.baseUrl)).psp).toBe('aurora');
    }, 90_000);

    it('a fault rule added through one process applies to the very next matching request through the other, and to its account only', async () => {
      const { a, b } = await two();
      const [ra, rb] = [reqOf(a), reqOf(b)];
      const other = await otherAccountKey(a.dataDir);
      const [oa, ob] = [reqOf(a, other.api_key), reqOf(b, other.api_key)];
      // Both processes have answered the path before the rule exists.
      for (const req of [ra, rb, oa, ob])
        expect((await req('POST', '/customers', { body: { email: 'x@example.com' } })).status).toBe(201);

      const rule = await ra('POST', '/test-helpers/faults', {
        body: { method: 'POST', path: '/customers', fault: 'status=503', count: 1 },
      });
      expect(rule.status, rule.text).toBe(201);

      // Another account's requests, through either process: no fault, and the rule's one injection is not used up.
      for (const req of [ob, oa]) {
        const r = await req('POST', '/customers', { body: { email: 'o@example.com' } });
        expect.soft(r.status, `another account's request: ${r.text}`).toBe(201);
      }
      // The account's next matching request, through B: the fault.
      const hit = await rb('POST', '/customers', { body: { email: 'y@example.com' } });
      expect.soft(hit.status, `the next matching request through B: ${hit.text}`).toBe(503);
      // Its count (1) is used up across processes: the next ones, through either, are served.
      for (const req of [ra, rb]) {
        const r = await req('POST', '/customers', { body: { email: 'z@example.com' } });
        expect.soft(r.status, r.text).toBe(201);
      }
      const listed = (await rb('GET', '/test-helpers/faults')).body.data as { id: string; injected: number }[];
      expect(listed.map((x) => [x.id, x.injected])).toEqual([[rule.body.id, 1]]);
      expect((await ob('GET', '/test-helpers/faults')).body.data).toEqual([]);
    }, 90_000);

    it('a seeded server is refused on a database another process serves, saying why', async () => {
      const { url, key } = await two();
      // A seeded process beside the plain ones: its ids would not be one stream drawn in turn.
      const seeded = await startProcess({ database: url, seed: 42 }).then(
        () => 'started',
        (e: Error) => e.message,
      );
      expect(seeded).not.toBe('started');
      expect(seeded).toMatch(/seed/i);
      expect(seeded).toMatch(/another (server )?process|other process|process(es)? (serve|serving|already)/i);
      expect(seeded).not.toContain(key);
    }, 60_000);

    it('a second seeded process, and a plain one, are refused on a database a seeded server serves, saying why', async () => {
      const url = await pg.database();
      const first = await startProcess({ database: url, seed: 42 });
      expect((await reqOf(first)('GET', '/test-helpers/clock')).status).toBe(200);
      const attempt = (options: object) =>
        startProcess({ database: url, ...options }).then(
          () => 'started',
          (e: Error) => e.message,
        );
      // The same seed: two processes would draw the one stream at once (the same ids twice).
      const again = await attempt({ seed: 42 });
      expect.soft(again, 'a second process with the same seed').not.toBe('started');
      expect.soft(again).toMatch(/seed/i);
      expect.soft(again).toMatch(/another (server )?process|other process|process(es)? (serve|serving|already)/i);
      // A plain process: refused too, and told that a seeded process serves the database (not to start it seeded).
      const plain = await attempt({ sealingKey: randomBytes(32).toString('hex') });
      expect.soft(plain, 'a plain process').not.toBe('started');
      expect.soft(plain).toMatch(/seed/i);
      expect.soft(plain).toMatch(/another (server )?process|other process|process(es)? (serve|serving|already)/i);
      // The seeded server goes on answering.
      expect((await reqOf(first)('POST', '/customers', { body: { email: 's@example.com' } })).status).toBe(201);
    }, 60_000);
  },
);
