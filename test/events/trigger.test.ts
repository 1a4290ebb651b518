// POST /test-helpers/trigger: every type of the catalog can be triggered, by a scenario that really produces it (its
// events are the log's own, committed together), without moving the account's clock; unknown types are named;
// accounts see only their own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { eventTypes } from '../../dist/lib/contract/events.js';
import { triggerSteps } from '../../dist/lib/contract/trigger-steps.js';

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
    // the object of the event is the object the scenario made (ids in `objects`); invoice.upcoming's invoice
    // does not exist yet (no id): its subscription is the one made
    const object = mine.at(-1).data.object;
    expect(Object.values(r.body.objects)).toContain(type === 'invoice.upcoming' ? object.subscription : object.id);
    if (type === 'invoice.upcoming') expect(object.id).toBeUndefined();
    // the clock did not move (beyond real time): nothing else of the account changed with the trigger
    const clockAfter = (await s.request('GET', '/test-helpers/clock')).body.now;
    expect(clockAfter - clockBefore).toBeLessThan(3600);
    // events never carry a secret
    expect(JSON.stringify(events)).not.toMatch(/client_secret|cryptogram|provider_session_token|"value"/);
    // the named steps it ran are the ones `trigger --list` shows (what --override names)
    expect(r.body.steps).toEqual(triggerSteps(type).map((st: { name: string }) => st.name));
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
    const keyB = (await s.server.services.accounts.createAccountWithKey()).api_key;
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

describe('POST /test-helpers/trigger: override, add, remove, skip', () => {
  const get = async (path: string) => (await s.request('GET', path)).body;

  it('edits reach the objects the scenario makes (read back), typed as the step body has them', async () => {
    const r = await trigger({
      event_type: 'subscription.updated',
      override: [
        { step: 'customer', param: 'email', value: 'ada@example.com' },
        { step: 'price', param: 'unit_amount', value: 1234 },
        { step: 'price', param: 'recurring[interval]', value: 'day' },
        { step: 'customer', param: 'name', value: 123 },
      ],
      add: [
        { step: 'subscription', param: 'metadata.order', value: 42 },
        // without a default card (removed below), a trial lets the subscription start
        { step: 'subscription', param: 'trial_period_days', value: 7 },
        { step: 'update', param: 'metadata.trigger', value: 'not replaced: add keeps what is there' },
        { step: 'update', param: 'metadata.extra', value: true },
      ],
      remove: [{ step: 'customer', param: 'default_payment_method' }],
    });
    expect([r.status, r.body.error]).toEqual([200, undefined]);
    const cus = await get(`/customers/${r.body.objects.customer}`);
    expect(cus).toMatchObject({ email: 'ada@example.com', name: '123' });
    expect(cus.default_payment_method ?? null).toBeNull();
    const price = await get(`/prices/${r.body.objects.price}`);
    expect(price).toMatchObject({ unit_amount: 1234, recurring: { interval: 'day' } });
    const sub = await get(`/subscriptions/${r.body.objects.subscription}`);
    expect(sub).toMatchObject({ status: 'trialing', metadata: { order: '42', trigger: 'payorch', extra: 'true' } });
  });

  it('--skip a step whose id a later step takes, with that param given: the user’s own object is used', async () => {
    const cus = (
      await s.request('POST', '/customers', { body: { email: 'own@example.com', default_payment_method: 'tok_visa' } })
    ).body;
    const customers = (await get('/customers?limit=100')).data.length;
    const r = await trigger({
      event_type: 'subscription.created',
      skip: ['customer'],
      override: [{ step: 'subscription', param: 'customer', value: cus.id }],
    });
    expect(r.status).toBe(200);
    expect(r.body.steps).toEqual(['price', 'subscription']);
    expect(r.body.objects.customer).toBe(cus.id);
    expect((await get(`/subscriptions/${r.body.objects.subscription}`)).customer).toBe(cus.id);
    expect((await get('/customers?limit=100')).data.length).toBe(customers);
  });

  it('unknown steps, a skip another step needs, a body the route would refuse: 400 naming it, nothing left', async () => {
    const before = (await s.request('GET', '/events?limit=1')).body.total_count;
    const cases: [unknown, string, string][] = [
      [
        { event_type: 'payment.captured', override: [{ step: 'sesion', param: 'amount', value: 5 }] },
        'override',
        'payment.captured has no step "sesion" (its steps: session, payment)',
      ],
      [{ event_type: 'payment.captured', skip: ['custmer'] }, 'skip', 'has no step "custmer"'],
      [
        { event_type: 'subscription.created', skip: ['customer'] },
        'skip',
        'the step "customer" makes what the step "subscription" takes as customer: skip it only with that param given (--override subscription:customer=…)',
      ],
      [{ event_type: 'payment.captured', skip: ['session'] }, 'skip', 'the step "session" cannot be skipped'],
      [
        { event_type: 'payment.captured', override: [{ step: 'session', param: 'amount', value: 'abc' }] },
        'session:amount',
        'Step "session" of the scenario: ',
      ],
      [
        { event_type: 'customer.created', add: [{ step: 'customer', param: 'colour', value: 'red' }] },
        'customer:colour',
        'Step "customer" of the scenario',
      ],
      [
        { event_type: 'customer.created', remove: [{ step: 'customer', param: 'phone' }] },
        'remove',
        'step "customer" has no param phone',
      ],
      [
        { event_type: 'customer.created', override: [{ step: 'customer', param: '__proto__.x', value: 1 }] },
        'override',
        'is not a param path',
      ],
    ];
    for (const [body, param, message] of cases) {
      const r = await trigger(body);
      expect([r.status, r.body.error?.param], JSON.stringify(body)).toEqual([400, param]);
      expect(r.body.error.message).toContain(message);
    }
    expect((await trigger({ event_type: 'payment.captured', skip: [''] })).status).toBe(400);
    expect((await s.request('GET', '/events?limit=1')).body.total_count).toBe(before);
  });
});
