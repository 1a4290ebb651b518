// payorch's own client proves itself on every fault (issue 29, docs/api.md "Fault injection"): it retries with the
// same Idempotency-Key, honours Retry-After, stops at its deadline, never performs a payment twice, does not send a
// change without a key twice, and never sends Payorch-Simulate with a live key — against a real server over HTTP.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, Client, ConnectionError, SimulateWithLiveKeyError, TimeoutError } from '../../dist/index.js';
import type { TransportRequest } from '../../dist/lib/client/transport.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { closedPort } from '../helpers/util.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
});
afterAll(() => s?.close());
beforeEach(async () => {
  await s.request('DELETE', '/test-helpers/faults');
});

/** A client of the test server that records each attempt it sends. */
function client(opts: Record<string, unknown> = {}) {
  const sent: TransportRequest[] = [];
  const c = new Client({
    apiKey: s.apiKey,
    baseUrl: s.baseUrl,
    retryBaseMs: 10,
    onRequest: (r) => sent.push(r),
    ...opts,
  });
  return { c, sent };
}

const rule = async (body: Record<string, unknown>) =>
  expect((await s.request('POST', '/test-helpers/faults', { body })).status).toBe(201);
const count = async (path: string) => (await s.request('GET', `${path}?limit=1`)).body.total_count as number;

async function systemAsset(): Promise<number> {
  const list = (await s.request('GET', '/ledger-accounts?limit=100&currency=usd')).body;
  return list.data.find((a: any) => a.is_system_account && a.account_type === 'asset')?.balance ?? 0;
}

describe('the client under injected faults', () => {
  it('retries with the same Idempotency-Key, the fault on the first attempt only, and gets the saved answer (after_commit=status=503)', async () => {
    const { c, sent } = client();
    const before = await count('/sessions');
    const created = await c.sessions.create({ amount: 1234, currency: 'usd' }, { simulate: 'after_commit=status=503' });
    expect(created.amount).toBe(1234);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.headers['payorch-simulate']).toBe('after_commit=status=503');
    expect(sent[1]!.headers['payorch-simulate']).toBeUndefined();
    expect(sent[1]!.headers['idempotency-key']).toBe(sent[0]!.headers['idempotency-key']);
    expect(await count('/sessions')).toBe(before + 1);
    await c.close();
  });

  it('never performs a payment twice: after_commit=reset on confirm (by option, then by a rule on two attempts) leaves one payment, one posting', async () => {
    const { c, sent } = client();
    for (const how of ['option', 'rule'] as const) {
      sent.length = 0;
      const session = await c.sessions.create({ amount: 4200, currency: 'usd' });
      const [payments, asset] = [await count('/payments'), await systemAsset()];
      if (how === 'rule')
        await rule({ fault: 'after_commit=reset', method: 'POST', path: '/confirm-payment/*', count: 2 });
      const paid = await c.payments.confirm(
        session.id,
        session.client_secret,
        { token_id: 'tok_visa' },
        how === 'option' ? { simulate: 'after_commit=reset' } : {},
      );
      expect(paid).toMatchObject({ status: 'captured', amount: 4200 });
      expect(sent.filter((r) => r.path.startsWith('/confirm-payment/'))).toHaveLength(how === 'option' ? 2 : 3);
      expect(
        new Set(
          sent
            .filter((r) => r.method === 'POST')
            .slice(1)
            .map((r) => r.headers['idempotency-key']),
        ).size,
      ).toBe(1);
      expect(await count('/payments')).toBe(payments + 1);
      expect((await systemAsset()) - asset).toBe(4200);
      expect((await c.payments.list({ session_id: session.id })).data.filter((p) => p.id === paid.id)).toHaveLength(1);
    }
    await c.close();
  });

  it('honours Retry-After: waits at least what it says before the retry', async () => {
    await rule({ fault: 'status=429;retry_after=1', path: '/sessions', count: 1 });
    const { c, sent } = client();
    const t = Date.now();
    const list = await c.sessions.list({ limit: 1 });
    expect(list.object).toBe('list');
    expect(sent).toHaveLength(2);
    expect(Date.now() - t).toBeGreaterThanOrEqual(950);
    await c.close();
  });

  it('a Retry-After longer than it accepts is not waited for: the 429 is the answer, with retryAfter', async () => {
    await rule({ fault: 'status=429;retry_after=60', path: '/sessions', count: 1 });
    const { c, sent } = client({ maxRetryDelayMs: 5_000 });
    const err = await c.sessions.list({ limit: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, code: 'rate_limit_exceeded', retryAfter: 60 });
    expect(sent).toHaveLength(1);
    await c.close();
  });

  it('stops at its deadline: a latency past it ends in TimeoutError without waiting the latency out', async () => {
    await rule({ fault: 'latency=10s', path: '/sessions' });
    const { c } = client({ deadlineMs: 500, maxRetries: 5 });
    const t = Date.now();
    const err = await c.sessions.list({ limit: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(Date.now() - t).toBeLessThan(8_000);
    await c.close();
  });

  it('stops at its deadline: a Retry-After that would overrun it is not waited for', async () => {
    await rule({ fault: 'status=503;retry_after=5', path: '/sessions' });
    const { c, sent } = client({ deadlineMs: 2_000 });
    const err = await c.sessions.list({ limit: 1 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, code: 'service_unavailable', retryAfter: 5 });
    expect(sent).toHaveLength(1);
    await c.close();
  });

  it('a timed-out attempt that still runs on the server and its retry make one payment', async () => {
    const { c, sent } = client({ timeoutMs: 200, maxRetries: 3 });
    const session = await c.sessions.create({ amount: 777, currency: 'usd' });
    const payments = await count('/payments');
    await rule({ fault: 'latency=1500ms', method: 'POST', path: '/confirm-payment/*', count: 1 });
    const paid = await c.payments.confirm(session.id, session.client_secret, { token_id: 'tok_visa' });
    expect(paid.status).toBe('captured');
    expect(sent.filter((r) => r.path.startsWith('/confirm-payment/')).length).toBeGreaterThanOrEqual(2);
    // the first attempt ends on the server after its latency: wait until the request log shows it, then count
    for (let i = 0; i < 100; i++) {
      const log = (await s.request('GET', '/request-log?path=/confirm-payment')).body.data as { simulated?: string }[];
      if (log.some((e) => e.simulated === 'latency=1500ms')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await count('/payments')).toBe(payments + 1);
    await c.close();
  });

  it('a change sent without an Idempotency-Key is not sent again after a reset (it may have run); a 429 is retried', async () => {
    const { c, sent } = client();
    const before = await count('/sessions');
    const err = await c
      .request('POST', '/create-session', {
        body: { amount: 100, currency: 'usd' },
        idempotencyKey: false,
        simulate: 'after_commit=reset',
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(sent).toHaveLength(1);
    expect(await count('/sessions')).toBe(before + 1);
    sent.length = 0;
    await c.request('POST', '/create-session', {
      body: { amount: 100, currency: 'usd' },
      idempotencyKey: false,
      simulate: 'status=429;retry_after=0',
    });
    expect(sent).toHaveLength(2);
    expect(await count('/sessions')).toBe(before + 2);
    await c.close();
  });

  it('never sends Payorch-Simulate with a live key: a typed error before anything is sent', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}/functions/v1`;
    for (const apiKey of ['sk_live_abc', 'rk_live_abc']) {
      const sent: TransportRequest[] = [];
      const onRequest = (r: TransportRequest) => sent.push(r);
      const everyCall = new Client({ apiKey, baseUrl, simulate: 'status=503', onRequest });
      await expect(everyCall.sessions.list()).rejects.toBeInstanceOf(SimulateWithLiveKeyError);
      const oneCall = new Client({ apiKey, baseUrl, onRequest });
      const err = await oneCall.sessions
        .create({ amount: 1, currency: 'usd' }, { simulate: 'after_commit=reset' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SimulateWithLiveKeyError);
      expect((err as SimulateWithLiveKeyError).code).toBe('simulate_with_live_key');
      // a live key without a fault goes on as before (here: nothing listens)
      await expect(oneCall.sessions.list({}, { maxRetries: 0 })).rejects.toBeInstanceOf(ConnectionError);
      expect(sent).toHaveLength(1);
    }
  });
});
