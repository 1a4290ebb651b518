// Idempotency keys over real HTTP (issue 2, docs/api.md "Idempotency"): replay, reuse, concurrency, what is saved.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, sqliteOf } from '../helpers/server.js';
import { expectError } from '../helpers/util.js';
import { advance } from '../payments/util.js';
import { onSqlite } from '../helpers/engine.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
});
afterAll(() => s?.close());

const post = (path: string, key: string | undefined, body?: unknown, apiKey?: string) =>
  s.request('POST', path, { body, key: apiKey, headers: key === undefined ? {} : { 'idempotency-key': key } });
const countExt = async (ext: string) =>
  (await s.request('GET', `/sessions?external_id=${ext}`)).body.total_count as number;

describe('idempotency', () => {
  it('replays the same request: same status and object, Idempotent-Replayed: true, one session', async () => {
    const key = randomUUID();
    const ext = `replay-${key}`;
    const first = await post('/create-session', key, {
      amount: 1999,
      currency: 'usd',
      external_id: ext,
      metadata: { a: '1', b: '2' },
    });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // same body with keys in another order
    const again = await post('/create-session', key, {
      metadata: { b: '2', a: '1' },
      external_id: ext,
      currency: 'usd',
      amount: 1999,
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('request-id')).not.toBe(first.headers.get('request-id'));
    expect(await countExt(ext)).toBe(1);
  });

  it.runIf(onSqlite)(
    'a create-session, a confirm and a journal entry are saved as a reference to the event they record, and replay the same bytes; past the event log, the object as it is',
    async () => {
      const t = await startTestServer({ memory: true }); // its own: the test clock moves a month
      try {
        const create = (key: string, body: unknown) =>
          t.request('POST', '/create-session', { body, headers: { 'idempotency-key': key } });
        const key = randomUUID();
        const first = await create(key, { amount: 2500, currency: 'usd', metadata: { order: 'r-1' } });
        expect(first.status).toBe(201);
        const saved = (k: string) =>
          JSON.parse(String(sqliteOf(t).db.prepare('SELECT body FROM idempotency_keys WHERE key = ?').pluck().get(k)));
        const eventOf = async (id: string) => (await t.request('GET', `/events?object_id=${id}`)).body.data.at(-1).id; // its first
        expect(saved(key)).toEqual({ replay_from_event: await eventOf(first.body.id), object_id: first.body.id }); // no copy of the session
        const again = await create(key, { amount: 2500, currency: 'usd', metadata: { order: 'r-1' } });
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(again.text).toBe(first.text);
        // A record an earlier version saved whole (the session without its secret) still replays the same bytes.
        const { client_secret: _secret, ...whole } = first.body;
        sqliteOf(t).db.prepare('UPDATE idempotency_keys SET body = ? WHERE key = ?').run(JSON.stringify(whole), key);
        expect((await create(key, { amount: 2500, currency: 'usd', metadata: { order: 'r-1' } })).text).toBe(
          first.text,
        );
        // A confirm answers its payment's event object, a journal entry its journal_entry.created event's.
        const session = (await t.request('POST', '/create-session', { body: { amount: 700, currency: 'usd' } })).body;
        const confirm = () =>
          t.request('POST', `/confirm-payment/${session.id}`, {
            body: { token_id: 'tok_visa' },
            key: session.client_secret,
            headers: { 'idempotency-key': `${key}-confirm` },
          });
        const paid = await confirm();
        expect(paid.status).toBe(200);
        expect(saved(`${key}-confirm`)).toEqual({
          replay_from_event: await eventOf(paid.body.id),
          object_id: paid.body.id,
        });
        expect((await confirm()).text).toBe(paid.text);
        const accounts = await Promise.all(
          (['asset', 'liability'] as const).map(
            async (account_type) =>
              (
                await t.request('POST', '/ledger-accounts', {
                  body: { name: account_type, account_type, currency: 'usd', is_system_account: true },
                })
              ).body.id as string,
          ),
        );
        const post = () =>
          t.request('POST', '/journal-entries', {
            body: {
              entries: [
                { account_id: accounts[0], direction: 'debit', amount: 5 },
                { account_id: accounts[1], direction: 'credit', amount: 5 },
              ],
            },
            headers: { 'idempotency-key': `${key}-je` },
          });
        const entry = await post();
        expect(entry.status).toBe(201);
        expect(saved(`${key}-je`)).toEqual({
          replay_from_event: await eventOf(entry.body.id),
          object_id: entry.body.id,
        });
        expect((await post()).text).toBe(entry.text);
        // The test clock moved past the event log's 30 days within the key's 24 hours (of real time): the event is gone.
        const other = await create(key + '-2', { amount: 300, currency: 'usd' });
        expect((await t.request('POST', `/sessions/${other.body.id}/cancel`, { body: {} })).status).toBe(200);
        await advance(t, 31 * 86_400);
        const replay = await create(key + '-2', { amount: 300, currency: 'usd' });
        expect(replay.status).toBe(201);
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(replay.body).toMatchObject({
          id: other.body.id,
          status: 'canceled',
          client_secret: other.body.client_secret,
        });
      } finally {
        await t.close();
      }
    },
  );

  it('the same key with another body, path or method → 400 idempotency_key_reused, nothing created', async () => {
    const key = randomUUID();
    const ext = `reuse-${key}`;
    const first = await post('/create-session', key, { amount: 100, currency: 'usd', external_id: ext });
    expect(first.status).toBe(201);
    expectError(
      await post('/create-session', key, { amount: 101, currency: 'usd', external_id: ext }),
      400,
      'invalid_request_error',
      'idempotency_key_reused',
    );
    expectError(
      await post(`/sessions/${first.body.id}/cancel`, key),
      400,
      'invalid_request_error',
      'idempotency_key_reused',
    );
    const patch = await s.request('PATCH', `/sessions/${first.body.id}`, {
      body: { amount: 100, currency: 'usd', external_id: ext },
      headers: { 'idempotency-key': key },
    });
    expect(patch.status).toBe(400);
    expect(await countExt(ext)).toBe(1);
    expect((await s.request('GET', `/sessions/${first.body.id}`)).body.status).toBe('requires_payment_method');
  });

  it('20 parallel requests with one key create exactly one session; each answer is that session or 409 idempotency_key_in_use', async () => {
    const key = randomUUID();
    const ext = `race-${key}`;
    const body = { amount: 4242, currency: 'usd', external_id: ext };
    const answers = await Promise.all(Array.from({ length: 20 }, () => post('/create-session', key, body)));
    const ok = answers.filter((a) => a.status === 201);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const a of answers) {
      if (a.status === 201) expect(a.body).toEqual(ok[0]!.body);
      else expectError(a, 409, 'invalid_request_error', 'idempotency_key_in_use');
    }
    expect(ok.filter((a) => a.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    expect(await countExt(ext)).toBe(1);
  });

  it('validation errors are not saved: a fixed retry with the same key succeeds', async () => {
    const key = randomUUID();
    const ext = `fixed-${key}`;
    expectError(
      await post('/create-session', key, { amount: 'lots', currency: 'usd', external_id: ext }),
      400,
      'validation_error',
      'parameter_invalid',
      'amount',
    );
    expectError(
      await post('/create-session', key, { amount: 100, currency: 'xyz', external_id: ext }),
      400,
      'validation_error',
      'parameter_invalid',
      'currency',
    );
    const fixed = await post('/create-session', key, { amount: 100, currency: 'usd', external_id: ext });
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
    expect(await countExt(ext)).toBe(1);
  });

  it('401s are not saved under the key', async () => {
    const key = randomUUID();
    expectError(
      await post('/create-session', key, { amount: 1, currency: 'usd' }, 'sk_live_' + 'x'.repeat(24)),
      401,
      'authentication_error',
      'livemode_unavailable',
    );
    const ok = await post('/create-session', key, { amount: 1, currency: 'usd' });
    expect(ok.status).toBe(201);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a 404 is saved and replayed (new request_id, Original-Request names the first)', async () => {
    const key = randomUUID();
    const path = '/sessions/0190a8b0-0000-7000-8000-00000000abcd/cancel';
    const first = await post(path, key);
    expectError(first, 404, 'invalid_request_error', 'resource_missing');
    const again = await post(path, key);
    expectError(again, 404, 'invalid_request_error', 'resource_missing');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('original-request')).toBe(first.body.error.request_id);
    expect(again.body.error.request_id).not.toBe(first.body.error.request_id);
    expectError(
      await post('/create-session', key, { amount: 1, currency: 'usd' }),
      400,
      'invalid_request_error',
      'idempotency_key_reused',
    );
  });

  it('a success is replayed even when running again would now fail, and a 409 is saved too', async () => {
    const created = (await post('/create-session', undefined, { amount: 100, currency: 'usd' })).body;
    const k1 = randomUUID();
    const cancel = await post(`/sessions/${created.id}/cancel`, k1, { cancellation_reason: 'duplicate' });
    expect(cancel.status).toBe(200);
    const replay = await post(`/sessions/${created.id}/cancel`, k1, { cancellation_reason: 'duplicate' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(cancel.body);
    const k2 = randomUUID();
    expectError(
      await post(`/sessions/${created.id}/cancel`, k2),
      409,
      'invalid_request_error',
      'session_unexpected_state',
    );
    const again = await post(`/sessions/${created.id}/cancel`, k2);
    expectError(again, 409, 'invalid_request_error', 'session_unexpected_state');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a replayed PATCH returns the stored answer, not the current state', async () => {
    const created = (await post('/create-session', undefined, { amount: 100, currency: 'usd' })).body;
    const key = randomUUID();
    const patch = (amount: number, k?: string) =>
      s.request('PATCH', `/sessions/${created.id}`, { body: { amount }, headers: k ? { 'idempotency-key': k } : {} });
    expect((await patch(300, key)).body.amount).toBe(300);
    expect((await patch(400)).body.amount).toBe(400);
    const replay = await patch(300, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.amount).toBe(300);
    expect((await s.request('GET', `/sessions/${created.id}`)).body.amount).toBe(400);
  });

  it('keys are scoped per account', async () => {
    const other = (await s.server.services.accounts.createAccountWithKey()).api_key;
    const key = randomUUID();
    const a = await post('/create-session', key, { amount: 100, currency: 'usd' });
    const b = await post('/create-session', key, { amount: 100, currency: 'usd' }, other);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.id).not.toBe(a.body.id);
  });

  it('GET ignores the key; keys longer than 255 characters are rejected', async () => {
    const key = randomUUID();
    const created = await post('/create-session', key, { amount: 100, currency: 'usd' });
    const get = await s.request('GET', `/sessions/${created.body.id}`, { headers: { 'idempotency-key': key } });
    expect(get.status).toBe(200);
    expect(get.headers.get('idempotent-replayed')).toBeNull();
    expect((await s.request('GET', '/sessions', { headers: { 'idempotency-key': key } })).status).toBe(200);

    const long = 'k'.repeat(256);
    expectError(
      await post('/create-session', long, { amount: 100, currency: 'usd' }),
      400,
      'validation_error',
      'parameter_invalid',
      'Idempotency-Key',
    );
    expect((await post('/create-session', 'k'.repeat(255), { amount: 100, currency: 'usd' })).status).toBe(201);
  });
});
