// Deterministic mode (docs/api.md "Deterministic mode"): `startServer({ seed })` / `server start --seed N`. The same
// scripted run — sessions, confirms, a decline, refunds, a subscription over a clock advance, webhooks to a local
// receiver — twice on fresh servers with the same seed gives byte-identical answers, event logs and webhook bodies,
// signed at the real time so that every verifier's defaults accept them (the run: ./scripted-run.ts); another seed
// gives other ids and secrets; an attempt that comes back while the clock is being advanced is recorded at the
// advance's end; a live-looking configuration is refused; `--clock real` moves.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../dist/index.js';
import { newId } from '../../dist/lib/server/ids.js';
import { startTestServer } from '../helpers/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { startReceiver, until, type Received, type Receiver } from '../webhooks/receiver.js';
import { onSqlite } from '../helpers/engine.js';
import { expectSameBytes, scriptedRun, send, type Run } from './scripted-run.js';

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(() => rx.close());

describe('the same seed, the same run', () => {
  let first: Run & { port: number };
  let second: Run & { port: number };
  let other: Run & { port: number };

  beforeAll(async () => {
    first = await scriptedRun(rx, 42);
    // The same port: hosted-page links (in answers and webhook bodies) are made from the server's address.
    second = await scriptedRun(rx, 42, first.port);
    other = await scriptedRun(rx, 43);
  });

  it('gives byte-identical answers, event log and webhook bodies (signed at the real time)', () => {
    expectSameBytes(second, first);
  });

  it('starts the clock at 2025-01-01 and moves it only when advanced', () => {
    const session = JSON.parse(first.answers[1]!.replace(/^\d+ \S+ /, '')) as { created_at: string };
    expect(session.created_at).toBe('2025-01-01T00:00:00.000Z');
    // signed at the real time of each attempt, not the seeded clock's (docs/api.md "Deterministic mode")
    for (const w of first.webhooks) {
      const t = Number(/t=(\d+)/.exec(w.signature)![1]);
      expect(t).toBeGreaterThanOrEqual(first.started);
      expect(t).toBeLessThanOrEqual(first.ended);
    }
    const events = JSON.parse(first.events).data as { created: number }[];
    // what the log keeps after the advance: the renewal, and its invoice.upcoming notice 3 days before
    expect(new Set(events.map((e) => e.created))).toEqual(
      new Set([Date.UTC(2025, 0, 29) / 1000, Date.UTC(2025, 1, 1) / 1000]),
    );
  });

  it('another seed gives other ids, keys and secrets', () => {
    expect(other.apiKey).not.toBe(first.apiKey);
    expect(other.secret).not.toBe(first.secret);
    expect(other.answers[1]).not.toBe(first.answers[1]);
    // the same shape of run: as many answers, events and webhooks
    expect(other.answers.length).toBe(first.answers.length);
    expect(other.webhooks.length).toBe(first.webhooks.length);
  });
});

describe('deliveries while the clock is being advanced', () => {
  // An advance runs in steps, and the dispatcher sends the deliveries of the events its first steps made while the
  // later ones run: their outcomes come back in the middle of it. They are written once it has ended, with the time
  // it reached — not with whatever time the clock had reached by the step they came back after (and a failed
  // attempt's retry, due on that earlier time, is not sent again during the same advance).
  it('records an attempt that came back during an advance once it has ended, at the time it reached', async () => {
    const s = await startTestServer({ memory: true, seed: 21, dueWorkIntervalMs: 0 });
    const duringAdvance: Received[] = [];
    let advancing = false;
    const answering = await startReceiver((r) => {
      if (advancing) duringAdvance.push(r);
      return 200;
    });
    const failing = await startReceiver(500);
    type Delivery = {
      id: string;
      status: string;
      created_at: string;
      delivered_at: string | null;
      next_attempt_at: string | null;
      attempts: number;
    };
    try {
      const endpoint = async (url: string) =>
        (await s.request('POST', '/webhook-endpoints', { body: { url, enabled_events: ['invoice.paid'] } })).body
          .id as string;
      const ok = await endpoint(answering.url);
      const ko = await endpoint(failing.url);
      const product = (await s.request('POST', '/products', { body: { name: 'Daily' } })).body.id as string;
      const price = (
        await s.request('POST', '/prices', {
          body: { product, currency: 'usd', unit_amount: 100, recurring: { interval: 'day' } },
        })
      ).body.id as string;
      // Daily renewals: 20 days of them are many steps of work, each renewal's invoice.paid an event to deliver.
      const subscriptions = 12;
      for (let i = 0; i < subscriptions; i++) {
        const customer = (
          await s.request('POST', '/customers', {
            body: { email: `c${i}@example.com`, default_payment_method: 'tok_visa' },
          })
        ).body.id as string;
        expect((await s.request('POST', '/subscriptions', { body: { customer, items: [{ price }] } })).status).toBe(
          201,
        );
      }
      const deliveries = async (endpointId: string) => {
        const all: Delivery[] = [];
        for (let after = ''; ;) {
          const page = (await s.request('GET', `/webhook-endpoints/${endpointId}/deliveries?limit=100${after}`))
            .body as { data: Delivery[]; has_more: boolean };
          all.push(...page.data);
          if (!page.has_more) return all;
          after = `&starting_after=${page.data[page.data.length - 1]!.id}`;
        }
      };
      // The endpoint's `n` deliveries, once each one has been attempted at least `attempts(d)` times.
      const attempted = (endpointId: string, n: number, attempts: (d: Delivery) => number = () => 1) =>
        until(async () => {
          const all = await deliveries(endpointId);
          return all.length === n && all.every((d) => d.attempts >= attempts(d)) ? all : undefined;
        }, `${n} deliveries attempted`);
      await attempted(ok, subscriptions);
      await attempted(ko, subscriptions);
      advancing = true;
      const clock = (await s.request('POST', '/test-helpers/advance-clock', { body: { seconds: 20 * 86_400 } }))
        .body as { now_iso: string };
      advancing = false;
      const end = clock.now_iso;
      expect(end).toBe('2025-01-21T00:00:00.000Z');
      // The case at hand happened: renewals' deliveries were sent (and answered) while the advance ran.
      expect(duringAdvance.length).toBeGreaterThan(0);
      const fromAdvance = (d: Delivery) => d.created_at > '2025-01-01T00:00:00.000Z';
      const renewed = (await attempted(ok, 21 * subscriptions)).filter(fromAdvance);
      expect(renewed).toHaveLength(20 * subscriptions);
      const late = renewed.filter((d) => d.status !== 'succeeded' || d.delivered_at !== end || d.attempts !== 1);
      expect({ late: late.length, first: late.slice(0, 2) }).toEqual({ late: 0, first: [] });
      // Failing: each renewal's delivery attempted once, its retry 2 minutes after the advance's end; each delivery
      // of the first day (whose retry came due during the advance) once more, its next retry 4 minutes after it.
      const failed = await attempted(ko, 21 * subscriptions, (d) => (fromAdvance(d) ? 1 : 2));
      const after = (minutes: number) => new Date(Date.parse(end) + minutes * 60_000).toISOString();
      const wrong = failed.filter((d) =>
        fromAdvance(d)
          ? d.attempts !== 1 || d.next_attempt_at !== after(2)
          : d.attempts !== 2 || d.next_attempt_at !== after(4),
      );
      expect({ wrong: wrong.length, first: wrong.slice(0, 2) }).toEqual({ wrong: 0, first: [] });
    } finally {
      await s.close();
      await answering.close();
      await failing.close();
    }
  }, 60_000);
});

describe('what a seed refuses', () => {
  it('refuses a live-looking PAYORCH_API_KEY', async () => {
    const saved = process.env.PAYORCH_API_KEY;
    process.env.PAYORCH_API_KEY = 'sk_live_abcdefghijklmnop';
    try {
      await expect(startServer({ memory: true, port: 0, seed: 1 })).rejects.toThrow(
        /Refusing --seed: PAYORCH_API_KEY holds a live key/,
      );
    } finally {
      if (saved === undefined) delete process.env.PAYORCH_API_KEY;
      else process.env.PAYORCH_API_KEY = saved;
    }
  });

  it('refuses a second server in the same process', async () => {
    const s = await startTestServer({ memory: true, seed: 5, dueWorkIntervalMs: 0 });
    try {
      await expect(startServer({ memory: true, port: 0 })).rejects.toThrow(/needs its process to itself/);
    } finally {
      await s.close();
    }
    const unseeded = await startTestServer({ memory: true, dueWorkIntervalMs: 0 });
    try {
      await expect(startServer({ memory: true, port: 0, seed: 5 })).rejects.toThrow(/needs its process to itself/);
    } finally {
      await unseeded.close();
    }
  });

  it.runIf(onSqlite)('continues a data directory made with the same seed, and refuses one made otherwise', async () => {
    const dir = tempDir();
    const a = await startTestServer({ dataDir: dir, seed: 9, dueWorkIntervalMs: 0 });
    const first = (await a.request('POST', '/customers', { body: { email: 'a@example.com' } })).body.id as string;
    await a.close();
    // The same seed: the stream continues (a new id, not the first one again) and the key is the same.
    const b = await startTestServer({ dataDir: dir, seed: 9, dueWorkIntervalMs: 0 });
    expect(b.apiKey).toBe(a.apiKey);
    const second = (await b.request('POST', '/customers', { body: { email: 'b@example.com' } })).body.id as string;
    expect(second).not.toBe(first);
    await b.close();
    await expect(startServer({ dataDir: dir, port: 0, seed: 10 })).rejects.toThrow(/not made with this seed/);
    await expect(startServer({ dataDir: dir, port: 0 })).rejects.toThrow(/made by a seeded server/);
    const unseeded = tempDir();
    const u = await startTestServer({ dataDir: unseeded, dueWorkIntervalMs: 0 });
    await u.close();
    await expect(startServer({ dataDir: unseeded, port: 0, seed: 9 })).rejects.toThrow(/not made with this seed/);
  });

  it.runIf(onSqlite)(
    'a rolled-back transaction gives its draws back (a failing request; a group commit running its batch again)',
    async () => {
      const s = await startTestServer({ memory: true, seed: 12, dueWorkIntervalMs: 0 });
      try {
        // In the server's own store and id stream (this process's: the seeded server holds it), as a handler would.
        let undone = '';
        await expect(
          s.server.services.store.tx(async () => {
            undone = newId('cus');
            throw new Error('undo');
          }),
        ).rejects.toThrow('undo');
        expect(undone).toMatch(/^cus_/);
        const kept = (await s.request('POST', '/customers', { body: {} })).body.id as string;
        expect(kept).toBe(undone);
      } finally {
        await s.close();
      }
    },
  );

  it.runIf(onSqlite)('continuing gives what one run without a restart gives', async () => {
    const run = async (restart: boolean) => {
      const dir = tempDir();
      let s = await startTestServer({ dataDir: dir, seed: 11, dueWorkIntervalMs: 0 });
      const ids = [(await s.request('POST', '/customers', { body: {} })).body.id];
      if (restart) {
        await s.close();
        s = await startTestServer({ dataDir: dir, seed: 11, dueWorkIntervalMs: 0 });
      }
      ids.push((await s.request('POST', '/customers', { body: {} })).body.id);
      await s.close();
      return ids;
    };
    expect(await run(true)).toEqual(await run(false));
  });
});

describe('server start --seed (the real binary)', () => {
  /** Starts the binary detached on port 0 in a fresh data directory, makes a few requests, stops it. */
  async function binaryRun(seed: number, extra: string[] = []) {
    const home = tempDir();
    const dataDir = join(home, 'data');
    const started = await runCli(
      ['server', 'start', '--seed', String(seed), '--port', '0', '--data-dir', dataDir, '--detach', '--json', ...extra],
      { home },
    );
    expect(started.code, started.stderr).toBe(0);
    const { base_url: baseUrl, api_key: apiKey } = started.json<{ base_url: string; api_key: string }>();
    try {
      const outputs: string[] = [];
      const call = async (method: string, path: string, body?: unknown, key?: string) => {
        const r = await send({ baseUrl, apiKey }, method, path, body, { key });
        outputs.push(`${r.status} ${r.requestId} ${r.text}`);
        return r.text ? JSON.parse(r.text) : undefined;
      };
      const session = await call('POST', '/create-session', { amount: 5000, currency: 'usd' });
      await call(
        'POST',
        `/confirm-payment/${session.id}`,
        { payment_method_type: 'card', token_id: 'tok_visa' },
        session.client_secret,
      );
      await call('POST', '/customers', { email: 'jo@example.com' });
      const clock = await call('GET', '/test-helpers/clock');
      await call('GET', '/events');
      // Links to hosted pages carry the server's address, which port 0 makes different each time.
      const origin = new URL(baseUrl).origin;
      return { apiKey, outputs: outputs.map((o) => o.split(origin).join('{origin}')), clock: clock.now_iso as string };
    } finally {
      await runCli(['server', 'stop', '--data-dir', dataDir], { home });
    }
  }

  it('twice in different data directories gives the same outputs', async () => {
    const a = await binaryRun(7);
    const b = await binaryRun(7);
    expect(b.apiKey).toBe(a.apiKey);
    expect(b.outputs).toEqual(a.outputs);
    expect(a.clock).toBe('2025-01-01T00:00:00.000Z');
  }, 60_000);

  it('--clock real moves time with the machine', async () => {
    const before = Date.now();
    const r = await binaryRun(7, ['--clock', 'real']);
    expect(Date.parse(r.clock)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(r.clock)).toBeLessThanOrEqual(Date.now());
  }, 60_000);

  it('refuses --seed when the active profile holds a live key', async () => {
    const home = tempDir();
    mkdirSync(home, { recursive: true });
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        active: 'prod',
        profiles: { prod: { api_key: 'sk_live_0123456789abcdef', base_url: 'https://api.example.com/functions/v1' } },
      }),
    );
    const r = await runCli(['server', 'start', '--seed', '3', '--port', '0', '--memory', '--json'], { home });
    expect(r.code).toBe(2);
    expect(r.json().error).toMatchObject({
      code: 'seed_refused',
      message: expect.stringMatching(/^Refusing --seed: profile "prod" holds a live key/),
    });
    expect(r.stdout + r.stderr).not.toContain('sk_live_0123456789abcdef');
  });

  it('--clock needs --seed', async () => {
    const r = await runCli(['server', 'start', '--clock', 'real', '--memory', '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/seed/);
  });
});
