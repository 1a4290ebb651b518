// Payment sessions over real HTTP: create, get, list, update, cancel and expiry (issue 2, docs/api.md "Conventions", "Payments").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { CLIENT_SECRET, expectError, ISO_MS, UUID, UUID_V7 } from '../helpers/util.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

const create = (body: Record<string, unknown>, server: TestServer = s) =>
  server.request('POST', '/create-session', { body });

describe('create-session', () => {
  it('answers 201 with the full session object and the documented defaults', async () => {
    const res = await create({ amount: 1999, currency: 'usd' });
    expect(res.status).toBe(201);
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    const ss = res.body;
    expect(ss).toMatchObject({
      object: 'payment_session',
      status: 'requires_payment_method',
      amount: 1999,
      currency: 'USD',
      capture_method: 'automatic',
      payment_method_types: ['card'],
      metadata: {},
      external_id: null,
      description: null,
      customer_email: null,
      customer_name: null,
      success_url: null,
      cancel_url: null,
      cancellation_reason: null,
      canceled_at: null,
      livemode: false,
    });
    expect(ss.id).toMatch(UUID);
    expect(ss.id).toMatch(UUID_V7);
    expect(ss.client_secret).toMatch(CLIENT_SECRET);
    expect(ss.fallback_url).toBe(`${s.baseUrl}/pay/${ss.id}`);
    expect(ss.created_at).toMatch(ISO_MS);
    expect(ss.expires_at).toMatch(ISO_MS);
    expect(Date.parse(ss.expires_at) - Date.parse(ss.created_at)).toBe(24 * 3600 * 1000);
    expect(Math.abs(Date.parse(ss.created_at) - Date.now())).toBeLessThan(60_000);
  });

  it('takes every optional field and uppercases any-case currencies', async () => {
    const body = {
      amount: 500,
      currency: 'eUr',
      external_id: 'order-1',
      description: 'Two mugs',
      customer: { email: 'ann@example.com', name: 'Ann' },
      capture_method: 'manual',
      payment_method_types: ['card', 'walletone_pay'],
      success_url: 'https://shop.example/ok',
      cancel_url: 'http://shop.example/cancel',
      metadata: { order: '42' },
    };
    const res = await create(body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      amount: 500,
      currency: 'EUR',
      external_id: 'order-1',
      description: 'Two mugs',
      customer_email: 'ann@example.com',
      customer_name: 'Ann',
      capture_method: 'manual',
      payment_method_types: ['card', 'walletone_pay'],
      success_url: 'https://shop.example/ok',
      cancel_url: 'http://shop.example/cancel',
      metadata: { order: '42' },
    });
  });

  it('gives every session its own id and client secret', async () => {
    const [a, b] = await Promise.all([create({ amount: 1, currency: 'usd' }), create({ amount: 1, currency: 'usd' })]);
    expect(a.body.id).not.toBe(b.body.id);
    expect(a.body.client_secret).not.toBe(b.body.client_secret);
  });

  it.each([
    [{ currency: 'usd' }, 'parameter_missing', 'amount'],
    [{ amount: 100 }, 'parameter_missing', 'currency'],
    [{ amount: 0, currency: 'usd' }, 'parameter_invalid', 'amount'],
    [{ amount: 1.5, currency: 'usd' }, 'parameter_invalid', 'amount'],
    [{ amount: '100', currency: 'usd' }, 'parameter_invalid', 'amount'],
    [{ amount: 100, currency: 'zzz' }, 'parameter_invalid', 'currency'],
    [{ amount: 100, currency: 'dollars' }, 'parameter_invalid', 'currency'],
    [{ amount: 100, currency: 'usd', capture_method: 'later' }, 'parameter_invalid', 'capture_method'],
    [{ amount: 100, currency: 'usd', payment_method_types: [] }, 'parameter_invalid', 'payment_method_types'],
    [
      { amount: 100, currency: 'usd', payment_method_types: ['card', 'card'] },
      'parameter_invalid',
      'payment_method_types',
    ],
    [{ amount: 100, currency: 'usd', payment_method_types: ['cash'] }, 'parameter_invalid', 'payment_method_types[0]'],
    [{ amount: 100, currency: 'usd', success_url: 'ftp://x.example/' }, 'parameter_invalid', 'success_url'],
    [{ amount: 100, currency: 'usd', cancel_url: '/relative' }, 'parameter_invalid', 'cancel_url'],
    [{ amount: 100, currency: 'usd', success_url: 'https://x.example/done\u0000' }, 'parameter_invalid', 'success_url'],
    [{ amount: 100, currency: 'usd', customer: { email: 'not-an-email' } }, 'parameter_invalid', 'customer.email'],
    [{ amount: 100, currency: 'usd', customer: { fax: '1' } }, 'parameter_unknown', 'customer.fax'],
    [{ amount: 100, currency: 'usd', metadata: { k: 1 } }, 'parameter_invalid', 'metadata.k'],
    [{ amount: 100, currency: 'usd', metadata: { ['k'.repeat(41)]: 'v' } }, 'parameter_invalid', 'metadata'],
    [{ amount: 100, currency: 'usd', metadata: { k: 'v'.repeat(501) } }, 'parameter_invalid', 'metadata.k'],
    [
      {
        amount: 100,
        currency: 'usd',
        metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])),
      },
      'parameter_invalid',
      'metadata',
    ],
    [{ amount: 100, currency: 'usd', colour: 'red' }, 'parameter_unknown', 'colour'],
  ])('rejects %j with 400 %s (%s)', async (body, code, param) => {
    const res = await create(body);
    expectError(res, 400, 'validation_error', code, param);
  });

  it('accepts the metadata limits exactly (50 keys, 40-char keys, 500-char values)', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, 'v']));
    metadata['k'.repeat(40)] = 'v'.repeat(500);
    const res = await create({ amount: 100, currency: 'usd', metadata });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.metadata)).toHaveLength(50);
  });
});

describe('get-session', () => {
  it('returns the same object as create, client secret included', async () => {
    const created = (await create({ amount: 700, currency: 'gbp', metadata: { a: 'b' } })).body;
    const got = await s.request('GET', `/sessions/${created.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created);
  });

  it('answers 404 resource_missing for an unknown id (and for a non-UUID id)', async () => {
    const id = '0190a8b0-0000-7000-8000-000000000000';
    const res = await s.request('GET', `/sessions/${id}`);
    expectError(res, 404, 'invalid_request_error', 'resource_missing', 'session_id');
    expect(res.body.error.message).toContain(id);
    expectError(
      await s.request('GET', '/sessions/not-a-uuid'),
      404,
      'invalid_request_error',
      'resource_missing',
      'session_id',
    );
  });
});

describe('update-session', () => {
  it('changes the given fields and merges metadata ("" removes a key)', async () => {
    const created = (await create({ amount: 100, currency: 'usd', metadata: { a: '1', b: '2' } })).body;
    const res = await s.request('PATCH', `/sessions/${created.id}`, {
      body: { amount: 250, currency: 'jpy', description: 'new', customer: { name: 'Bo' }, metadata: { b: '', c: '3' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: created.id,
      amount: 250,
      currency: 'JPY',
      description: 'new',
      customer_name: 'Bo',
      metadata: { a: '1', c: '3' },
    });
    expect(res.body.metadata).not.toHaveProperty('b');
    expect(res.body.client_secret).toBe(created.client_secret);
    expect((await s.request('GET', `/sessions/${created.id}`)).body).toEqual(res.body);
  });

  it('validates like create (unknown field, bad currency) and answers 404 for an unknown session', async () => {
    const created = (await create({ amount: 100, currency: 'usd' })).body;
    expectError(
      await s.request('PATCH', `/sessions/${created.id}`, { body: { status: 'succeeded' } }),
      400,
      'validation_error',
      'parameter_unknown',
      'status',
    );
    expectError(
      await s.request('PATCH', `/sessions/${created.id}`, { body: { currency: 'xxx' } }),
      400,
      'validation_error',
      'parameter_invalid',
      'currency',
    );
    expectError(
      await s.request('PATCH', `/sessions/${created.id}`, { body: { amount: -5 } }),
      400,
      'validation_error',
      'parameter_invalid',
      'amount',
    );
    expect((await s.request('GET', `/sessions/${created.id}`)).body).toEqual(created); // nothing changed
    expectError(
      await s.request('PATCH', '/sessions/0190a8b0-0000-7000-8000-000000000001', { body: { amount: 5 } }),
      404,
      'invalid_request_error',
      'resource_missing',
      'session_id',
    );
  });

  it('is refused with 409 session_unexpected_state once the session is canceled', async () => {
    const created = (await create({ amount: 100, currency: 'usd' })).body;
    expect((await s.request('POST', `/sessions/${created.id}/cancel`)).status).toBe(200);
    const res = await s.request('PATCH', `/sessions/${created.id}`, { body: { amount: 5 } });
    expectError(res, 409, 'invalid_request_error', 'session_unexpected_state');
    expect((await s.request('GET', `/sessions/${created.id}`)).body.amount).toBe(100);
  });
});

describe('cancel-session', () => {
  it('cancels with the default reason requested_by_customer; a second cancel → 409', async () => {
    const created = (await create({ amount: 100, currency: 'usd' })).body;
    const before = Math.floor(Date.now() / 1000);
    const res = await s.request('POST', `/sessions/${created.id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: created.id,
      status: 'canceled',
      cancellation_reason: 'requested_by_customer',
    });
    expect(Number.isInteger(res.body.canceled_at)).toBe(true);
    expect(res.body.canceled_at).toBeGreaterThanOrEqual(before - 1);
    expect(res.body.canceled_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 1);
    expect((await s.request('GET', `/sessions/${created.id}`)).body.status).toBe('canceled');
    const again = await s.request('POST', `/sessions/${created.id}/cancel`, {
      body: { cancellation_reason: 'duplicate' },
    });
    expectError(again, 409, 'invalid_request_error', 'session_unexpected_state');
    expect((await s.request('GET', `/sessions/${created.id}`)).body.cancellation_reason).toBe('requested_by_customer');
  });

  it('takes an explicit reason (with an empty JSON body too) and rejects an unknown one', async () => {
    const a = (await create({ amount: 100, currency: 'usd' })).body;
    const b = (await create({ amount: 100, currency: 'usd' })).body;
    expectError(
      await s.request('POST', `/sessions/${a.id}/cancel`, { body: { cancellation_reason: 'bored' } }),
      400,
      'validation_error',
      'parameter_invalid',
      'cancellation_reason',
    );
    expectError(
      await s.request('POST', `/sessions/${a.id}/cancel`, { body: { reason: 'fraudulent' } }),
      400,
      'validation_error',
      'parameter_unknown',
      'reason',
    );
    const res = await s.request('POST', `/sessions/${a.id}/cancel`, { body: { cancellation_reason: 'fraudulent' } });
    expect(res.body).toMatchObject({ status: 'canceled', cancellation_reason: 'fraudulent' });
    const res2 = await s.request('POST', `/sessions/${b.id}/cancel`, { body: {} });
    expect(res2.body).toMatchObject({ status: 'canceled', cancellation_reason: 'requested_by_customer' });
  });

  it('answers 404 for an unknown session', async () => {
    expectError(
      await s.request('POST', '/sessions/0190a8b0-0000-7000-8000-000000000002/cancel'),
      404,
      'invalid_request_error',
      'resource_missing',
      'session_id',
    );
  });
});

describe('list-sessions (own server: a known set of sessions)', () => {
  let l: TestServer;
  const ids: string[] = []; // oldest first
  beforeAll(async () => {
    l = await startTestServer({ memory: true });
    for (let i = 0; i < 12; i++) {
      const res = await create(
        { amount: 100 + i, currency: 'usd', external_id: i % 3 === 0 ? 'triple' : `ext-${i}` },
        l,
      );
      ids.push(res.body.id);
    }
    await l.request('POST', `/sessions/${ids[1]}/cancel`);
    await l.request('POST', `/sessions/${ids[4]}/cancel`);
  });
  afterAll(() => l?.close());
  const list = (qs: string) => l.request('GET', `/sessions${qs}`);
  const idsOf = (res: { body: { data: { id: string }[] } }) => res.body.data.map((x) => x.id);
  const newest = () => [...ids].reverse();

  it('lists newest first, 10 by default, with has_more, total_count and url', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'list', has_more: true, total_count: 12, url: '/functions/v1/sessions' });
    expect(idsOf(res)).toEqual(newest().slice(0, 10));
    expect(res.body.data[0]).toMatchObject({
      object: 'payment_session',
      client_secret: expect.stringMatching(CLIENT_SECRET),
    });
  });

  it('pages forward with starting_after and back with ending_before', async () => {
    const all = newest();
    const p1 = await list('?limit=5');
    expect(idsOf(p1)).toEqual(all.slice(0, 5));
    expect(p1.body.has_more).toBe(true);
    const p2 = await list(`?limit=5&starting_after=${all[4]}`);
    expect(idsOf(p2)).toEqual(all.slice(5, 10));
    expect(p2.body.has_more).toBe(true);
    const p3 = await list(`?limit=5&starting_after=${all[9]}`);
    expect(idsOf(p3)).toEqual(all.slice(10));
    expect(p3.body.has_more).toBe(false);
    expect(p3.body.total_count).toBe(12);
    const back = await list(`?limit=3&ending_before=${all[5]}`);
    expect(idsOf(back)).toEqual(all.slice(2, 5));
    expect(back.body.has_more).toBe(true);
    const first = await list(`?limit=3&ending_before=${all[2]}`);
    expect(idsOf(first)).toEqual(all.slice(0, 2));
    expect(first.body.has_more).toBe(false);
  });

  it('filters by status and external_id (total_count counts the matches)', async () => {
    const canceled = await list('?status=canceled');
    expect(idsOf(canceled)).toEqual([ids[4], ids[1]]);
    expect(canceled.body).toMatchObject({ total_count: 2, has_more: false });
    const open = await list('?status=requires_payment_method&limit=100');
    expect(open.body.total_count).toBe(10);
    expect(open.body.data.every((x: { status: string }) => x.status === 'requires_payment_method')).toBe(true);
    const triple = await list('?external_id=triple&limit=2');
    expect(idsOf(triple)).toEqual([ids[9], ids[6]]);
    expect(triple.body).toMatchObject({ total_count: 4, has_more: true });
    const none = await list('?external_id=nobody');
    expect(none.body).toMatchObject({ data: [], total_count: 0, has_more: false });
    const both = await list('?status=canceled&external_id=ext-4');
    expect(idsOf(both)).toEqual([ids[4]]);
  });

  it('enforces limit bounds (1–100) and cursor rules', async () => {
    expect(idsOf(await list('?limit=1'))).toEqual([ids[11]]);
    expect((await list('?limit=100')).body.data).toHaveLength(12);
    expectError(await list('?limit=0'), 400, 'validation_error', 'parameter_invalid', 'limit');
    expectError(await list('?limit=101'), 400, 'validation_error', 'parameter_invalid', 'limit');
    expectError(await list('?limit=ten'), 400, 'validation_error', 'parameter_invalid', 'limit');
    expectError(await list('?status=open'), 400, 'validation_error', 'parameter_invalid', 'status');
    expectError(await list('?colour=red'), 400, 'validation_error', 'parameter_unknown', 'colour');
    expectError(
      await list(`?starting_after=${ids[3]}&ending_before=${ids[5]}`),
      400,
      'validation_error',
      'parameter_invalid',
      'ending_before',
    );
    expectError(
      await list('?starting_after=0190a8b0-0000-7000-8000-000000000003'),
      400,
      'invalid_request_error',
      'resource_missing',
      'starting_after',
    );
  });
});

describe('expiry on the test clock (own server: the clock is per account)', () => {
  let c: TestServer;
  beforeAll(async () => {
    c = await startTestServer({ memory: true });
  });
  afterAll(() => c?.close());

  it('an unpaid session becomes canceled/abandoned 24 h after creation, not before', async () => {
    const a = (await create({ amount: 100, currency: 'usd' }, c)).body;
    const b = (await create({ amount: 200, currency: 'usd' }, c)).body;
    expect((await c.request('POST', `/sessions/${b.id}/cancel`)).status).toBe(200);

    const early = await c.request('POST', '/test-helpers/advance-clock', { body: { seconds: 24 * 3600 - 60 } });
    expect(early.status).toBe(200);
    expect(early.body).toMatchObject({ object: 'test_clock' });
    expect((await c.request('GET', `/sessions/${a.id}`)).body.status).toBe('requires_payment_method');

    const late = await c.request('POST', '/test-helpers/advance-clock', { body: { seconds: 120 } });
    expect(late.status).toBe(200);
    expect(late.body.ran).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'session expiry', count: 1 })]),
    );
    const got = (await c.request('GET', `/sessions/${a.id}`)).body;
    expect(got).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' });
    expect(got.canceled_at).toBe(Math.floor(Date.parse(a.expires_at) / 1000));
    // an already-canceled session keeps its own reason
    expect((await c.request('GET', `/sessions/${b.id}`)).body.cancellation_reason).toBe('requested_by_customer');

    const abandoned = await c.request('GET', '/sessions?status=canceled');
    expect(abandoned.body.total_count).toBe(2);
    expectError(
      await c.request('PATCH', `/sessions/${a.id}`, { body: { amount: 5 } }),
      409,
      'invalid_request_error',
      'session_unexpected_state',
    );
    expectError(
      await c.request('POST', `/sessions/${a.id}/cancel`),
      409,
      'invalid_request_error',
      'session_unexpected_state',
    );

    // a session created on the advanced clock expires 24 h after *that* time
    const fresh = (await create({ amount: 300, currency: 'usd' }, c)).body;
    expect(Date.parse(fresh.created_at)).toBeGreaterThan(Date.now() + 23 * 3600 * 1000);
    expect((await c.request('GET', `/sessions/${fresh.id}`)).body.status).toBe('requires_payment_method');
  });

  it("a session's client secret authenticates only its own session, and only until the session expires", async () => {
    const a = (await create({ amount: 100, currency: 'usd' }, c)).body;
    const b = (await create({ amount: 100, currency: 'usd' }, c)).body;
    // a body the route rejects: the secret got past authentication (400, not 401), nothing is charged
    const probe = (id: string, key: string | null) =>
      c.request('POST', `/confirm-payment/${id}`, { key, body: { bogus: true } });
    expect((await probe(a.id, a.client_secret)).status).toBe(400);
    expectError(await probe(a.id, b.client_secret), 401, 'authentication_error', 'invalid_client_secret');
    expectError(await probe(a.id, c.apiKey), 401, 'authentication_error', 'invalid_client_secret');
    expectError(await probe(a.id, null), 401, 'authentication_error', 'missing_client_secret');
    await c.request('POST', '/test-helpers/advance-clock', { body: { seconds: 24 * 3600 + 1 } });
    expectError(await probe(a.id, a.client_secret), 401, 'authentication_error', 'invalid_client_secret');
  });

  it('the clock only moves forward and takes exactly one of seconds / to', async () => {
    expectError(
      await c.request('POST', '/test-helpers/advance-clock', { body: { to: 0 } }),
      400,
      'validation_error',
      'parameter_invalid',
      'to',
    );
    expectError(
      await c.request('POST', '/test-helpers/advance-clock', { body: {} }),
      400,
      'validation_error',
      'parameter_missing',
      'seconds',
    );
    expectError(
      await c.request('POST', '/test-helpers/advance-clock', { body: { seconds: -1 } }),
      400,
      'validation_error',
      'parameter_invalid',
      'seconds',
    );
  });
});
