// POST /test-helpers/trigger: every type of the catalog can be triggered, by a scenario that really produces it (its
// events are the log's own, committed together), without moving the account's clock; unknown types are named;
// accounts see only their own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { eventTypes } from '../../dist/lib/contract/events.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const trigger = (body: unknown, key?: string) =>
  s.request('POST', '/test-helpers/trigger', { body, ...(key ? { key } : {}) });

describe('POST /test-helpers/trigger', () => {
  it.each(eventTypes)('%s', async (type) => {
    const clockBefore = (await s.request('GET', '/test-helpers/clock')).body.now;
    const r = await trigger({ event_type: type });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: 'trigger', event_type: type });
    const events = r.body.events as any[];
    const mine = events.filter((e) => e.type === type);
    expect(mine.length).toBeGreaterThan(0);
    // the answer is the log: each event is in GET /events as answered
    for (const e of events) expect((await s.request('GET', `/events/${e.id}`)).body).toEqual(e);
    // the object of the event is the object the scenario made (ids in `objects`)
    expect(Object.values(r.body.objects)).toContain(mine.at(-1).data.object.id);
    // the clock did not move (beyond real time): nothing else of the account changed with the trigger
    const clockAfter = (await s.request('GET', '/test-helpers/clock')).body.now;
    expect(clockAfter - clockBefore).toBeLessThan(3600);
    // events never carry a secret
    expect(JSON.stringify(events)).not.toMatch(/client_secret|cryptogram|provider_session_token|"value"/);
  });

  it('amount and currency reach the scenario; an unknown type names the nearest; bad fields are 400', async () => {
    const r = await trigger({ event_type: 'payment.captured', amount: 777, currency: 'eur' });
    const captured = r.body.events.find((e: any) => e.type === 'payment.captured');
    expect([captured.amount, captured.currency, captured.data.object.amount]).toEqual([777, 'EUR', 777]);
    const before = (await s.request('GET', '/events?limit=1')).body.total_count;
    const bad = await trigger({ event_type: 'payment.captred' });
    expect([bad.status, bad.body.error.code, bad.body.error.param]).toEqual([400, 'parameter_invalid', 'event_type']);
    expect(bad.body.error.message).toContain("'payment.captured'");
    // A refund is an event of its own: the name people try first means refund.succeeded, not the nearest spelling.
    expect((await trigger({ event_type: 'payment.refunded' })).body.error.message).toContain(
      "the nearest is 'refund.succeeded'",
    );
    expect((await trigger({ event_type: 'payment.captured', amount: 0 })).status).toBe(400);
    expect((await trigger({ event_type: 'payment.captured', extra: 1 })).status).toBe(400);
    expect((await trigger({})).status).toBe(400);
    expect((await trigger({ event_type: 'invoice.paid', currency: 'zzz' })).status).toBe(400);
    expect((await s.request('GET', '/events?limit=1')).body.total_count).toBe(before);
  });

  it('a scenario is all-or-nothing: with every processor down, payment.captured is 409 trigger_failed and leaves nothing', async () => {
    const ids = ((await s.request('GET', '/test-helpers/processors')).body.processors as { id: string }[]).map(
      (p) => p.id,
    );
    const count = async (q: string) => (await s.request('GET', q)).body.total_count as number;
    const [events, sessions] = [await count('/events?limit=1'), await count('/sessions?limit=1')];
    expect([typeof events, typeof sessions]).toEqual(['number', 'number']);
    try {
      for (const id of ids)
        expect((await s.request('POST', `/test-helpers/processors/${id}`, { body: { status: 'down' } })).status).toBe(
          200,
        );
      const r = await trigger({ event_type: 'payment.captured' });
      expect([r.status, r.body.error.code]).toEqual([409, 'trigger_failed']);
      expect(r.body.error.message).toContain('payment.failed');
      // the session it created and the failed payment's events were undone with it
      expect([await count('/events?limit=1'), await count('/sessions?limit=1')]).toEqual([events, sessions]);
    } finally {
      for (const id of ids) await s.request('POST', `/test-helpers/processors/${id}`, { body: { status: 'up' } });
    }
    expect((await trigger({ event_type: 'payment.captured' })).status).toBe(200);
  });

  it('tenancy: a trigger of one account is invisible to another; no key → 401', async () => {
    const keyB = s.server.services.accounts.createAccountWithKey().api_key;
    const r = await trigger({ event_type: 'customer.created' }, keyB);
    expect(r.status).toBe(200);
    const id = r.body.events[0].id;
    expect((await s.request('GET', `/events/${id}`)).status).toBe(404);
    expect((await s.request('GET', `/events/${id}`, { key: keyB })).status).toBe(200);
    expect(
      (await s.request('POST', '/test-helpers/trigger', { body: { event_type: 'customer.created' }, key: null }))
        .status,
    ).toBe(401);
  });
});
