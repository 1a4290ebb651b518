// Fault injection by request header (docs/api.md "Fault injection"), over real HTTP: each fault kind, the
// contract's error body for an injected status, a malformed header's 400, the lost answer after commit (replayed
// to the retry, one payment), the marks in the request log, and the in-process transport's reset.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, ConnectionError, InProcessTransport, openEmbedded } from '../../dist/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';
import { expectError, REQUEST_ID } from '../helpers/util.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
});
afterAll(() => s?.close());

const sim = (fault: string, extra: Record<string, string> = {}) => ({
  headers: { 'Payorch-Simulate': fault, ...extra },
});

async function session(amount = 1999) {
  const r = await s.request('POST', '/create-session', { body: { amount, currency: 'usd' } });
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string; client_secret: string };
}

async function paymentsCount(): Promise<number> {
  return (await s.request('GET', '/payments?limit=1')).body.total_count;
}

async function systemBalances(): Promise<Record<string, number>> {
  const list = (await s.request('GET', '/ledger-accounts?limit=100&currency=usd')).body;
  return Object.fromEntries(
    list.data.filter((a: any) => a.is_system_account).map((a: any) => [a.account_type, a.balance]),
  );
}

/** A request whose connection the server closes without an answer: what fetch reports. */
async function resetOf(p: Promise<unknown>): Promise<string> {
  const err = (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as { cause?: { code?: string } } | undefined;
  expect(err, 'the request got an answer').toBeDefined();
  return err!.cause?.code ?? String(err);
}

describe('Payorch-Simulate', () => {
  it('status=503: the contract error body for 503, nothing run, the fault named in Payorch-Simulated', async () => {
    const before = (await s.request('GET', '/sessions?limit=1')).body.total_count;
    const r = await s.request('POST', '/create-session', {
      body: { amount: 500, currency: 'usd' },
      ...sim('status=503'),
    });
    expectError(r, 503, 'api_error', 'service_unavailable');
    expect(r.body.error.message).toMatch(/Simulated 503.*nothing was done/);
    expect(r.body.error.request_id).toMatch(REQUEST_ID);
    expect(r.headers.get('payorch-simulated')).toBe('status=503');
    expect(r.headers.get('retry-after')).toBeNull();
    expect((await s.request('GET', '/sessions?limit=1')).body.total_count).toBe(before);
  });

  it('status=429;retry_after=2: the rate-limit body with Retry-After: 2; each retryable status has its body', async () => {
    const r = await s.request('GET', '/sessions', sim(' status=429 ; retry_after=2 '));
    expectError(r, 429, 'invalid_request_error', 'rate_limit_exceeded');
    expect(r.headers.get('retry-after')).toBe('2');
    expect(r.headers.get('payorch-simulated')).toBe('status=429;retry_after=2');
    const codes: Record<number, [string, string]> = {
      408: ['invalid_request_error', 'request_timeout'],
      409: ['invalid_request_error', 'idempotency_key_in_use'],
      500: ['api_error', 'internal_error'],
      502: ['api_error', 'bad_gateway'],
      504: ['api_error', 'gateway_timeout'],
    };
    for (const [status, [type, code]] of Object.entries(codes))
      expectError(await s.request('GET', '/sessions', sim(`status=${status}`)), Number(status), type, code);
  });

  it('latency: the answer comes after at least the latency, and is the real one', async () => {
    const t = Date.now();
    const r = await s.request('GET', '/sessions?limit=1', sim('latency=300ms'));
    expect(Date.now() - t).toBeGreaterThanOrEqual(290);
    expect(r.status).toBe(200);
    expect(r.body.object).toBe('list');
    expect(r.headers.get('payorch-simulated')).toBe('latency=300ms');
    // with a status: the wait, then the status
    const t2 = Date.now();
    expectError(
      await s.request('GET', '/sessions', sim('status=503;latency=1s')),
      503,
      'api_error',
      'service_unavailable',
    );
    expect(Date.now() - t2).toBeGreaterThanOrEqual(990);
  });

  it('reset: the connection is closed without an answer and nothing runs', async () => {
    const before = (await s.request('GET', '/sessions?limit=1')).body.total_count;
    const code = await resetOf(
      fetch(`${s.baseUrl}/create-session`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${s.apiKey}`,
          'content-type': 'application/json',
          'payorch-simulate': 'reset',
        },
        body: '{"amount":100,"currency":"usd"}',
      }),
    );
    expect(code).toMatch(/UND_ERR_SOCKET|ECONNRESET/);
    expect((await s.request('GET', '/sessions?limit=1')).body.total_count).toBe(before);
  });

  it('after_commit=status=500: the change is committed, the answer replaced; the same key then replays the saved answer', async () => {
    const before = (await s.request('GET', '/sessions?limit=1')).body.total_count;
    const key = `k-${Date.now()}-500`;
    const first = await s.request('POST', '/create-session', {
      body: { amount: 700, currency: 'usd' },
      headers: { 'Idempotency-Key': key, 'Payorch-Simulate': 'after_commit=status=500' },
    });
    expectError(first, 500, 'api_error', 'internal_error');
    expect(first.body.error.message).toMatch(/after the request ran/);
    expect((await s.request('GET', '/sessions?limit=1')).body.total_count).toBe(before + 1);
    const again = await s.request('POST', '/create-session', {
      body: { amount: 700, currency: 'usd' },
      headers: { 'Idempotency-Key': key },
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await s.request('GET', '/sessions?limit=1')).body.total_count).toBe(before + 1);
  });

  it('after_commit=reset on confirm: the payment is made, the answer lost; the retry with the same key gets the saved answer — one payment, one posting', async () => {
    const sess = await session(2500);
    const [payments, balances] = [await paymentsCount(), await systemBalances()];
    const key = `k-${Date.now()}-confirm`;
    const send = (headers: Record<string, string>) =>
      fetch(`${s.baseUrl}/confirm-payment/${sess.id}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${sess.client_secret}`,
          'content-type': 'application/json',
          'idempotency-key': key,
          ...headers,
        },
        body: JSON.stringify({ token_id: 'tok_visa' }),
      });
    expect(await resetOf(send({ 'payorch-simulate': 'after_commit=reset' }))).toMatch(/UND_ERR_SOCKET|ECONNRESET/);
    expect(await paymentsCount()).toBe(payments + 1); // committed before the connection was closed
    const retry = await send({});
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const paid = (await retry.json()) as { id: string; status: string; amount: number };
    expect(paid).toMatchObject({ status: 'captured', amount: 2500 });
    expect(await paymentsCount()).toBe(payments + 1);
    const after = await systemBalances();
    expect(after.asset - (balances.asset ?? 0)).toBe(2500);
    expect((await s.request('GET', `/payments/${paid.id}`)).body.status).toBe('captured');
  });

  it('a malformed header is 400 parameter_invalid naming Payorch-Simulate, and nothing runs', async () => {
    const before = (await s.request('GET', '/sessions?limit=1')).body.total_count;
    for (const bad of [
      '',
      'bogus',
      'status=404',
      'status=5O3',
      'status=503;reset',
      'latency=31s',
      'latency=100',
      'retry_after=2',
      'reset;retry_after=1',
      'status=503;status=500',
      'after_commit=maybe',
      'drop',
      'reset=1',
      'x'.repeat(201),
      'status=503;;',
    ]) {
      const r = await s.request('POST', '/create-session', { body: { amount: 500, currency: 'usd' }, ...sim(bad) });
      expectError(r, 400, 'validation_error', 'parameter_invalid', 'Payorch-Simulate');
      expect(r.body.error.message, bad).toMatch(/^Invalid Payorch-Simulate: /);
    }
    expect((await s.request('GET', '/sessions?limit=1')).body.total_count).toBe(before);
  });

  it('an unauthenticated request gets its 401, whatever it asks to simulate', async () => {
    expectError(
      await s.request('GET', '/sessions', { key: 'sk_test_nope', ...sim('status=503') }),
      401,
      'authentication_error',
      'invalid_api_key',
    );
  });

  it('every injected fault is marked in the request log: status, latency, reset (status 0), the lost answer', async () => {
    const t = await startTestServer({ memory: true });
    try {
      await t.request('GET', '/sessions', sim('status=503'));
      await t.request('GET', '/sessions', sim('latency=5ms'));
      await resetOf(
        fetch(`${t.baseUrl}/sessions`, {
          headers: { authorization: `Bearer ${t.apiKey}`, 'payorch-simulate': 'reset' },
        }),
      );
      await resetOf(
        fetch(`${t.baseUrl}/create-session`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${t.apiKey}`,
            'content-type': 'application/json',
            'payorch-simulate': 'after_commit=reset',
          },
          body: '{"amount":100,"currency":"usd"}',
        }),
      );
      await t.request('GET', '/sessions');
      const log = (await t.request('GET', '/request-log')).body.data as {
        method: string;
        path: string;
        status: number;
        simulated?: string;
      }[];
      expect(log.map((e) => [e.method, e.path, e.status, e.simulated])).toEqual([
        ['GET', '/sessions', 503, 'status=503'],
        ['GET', '/sessions', 200, 'latency=5ms'],
        ['GET', '/sessions', 0, 'reset'],
        ['POST', '/create-session', 201, 'after_commit=reset'],
        ['GET', '/sessions', 200, undefined],
      ]);
    } finally {
      await t.close();
    }
  });

  it('in process, a reset is the same client failure as over HTTP (a ConnectionError after the retries), and the retry gets the saved answer', async () => {
    const embedded = await openEmbedded(tempDir());
    const inproc = new Client({
      apiKey: embedded.apiKey,
      transport: new InProcessTransport(embedded.app, () => embedded.close()),
      retryBaseMs: 5,
    });
    const http = new Client({ apiKey: s.apiKey, baseUrl: s.baseUrl, retryBaseMs: 5 });
    try {
      for (const c of [inproc, http]) {
        const err = await c.sessions.list({}, { simulate: 'reset', maxRetries: 0 }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ConnectionError);
        expect((err as Error).message).toMatch(/closed before an answer \(ECONNRESET\)/);
        const before = (await c.sessions.list({ limit: 1 })).total_count;
        const created = await c.sessions.create({ amount: 900, currency: 'usd' }, { simulate: 'after_commit=reset' });
        expect(created.amount).toBe(900);
        expect((await c.sessions.list({ limit: 1 })).total_count).toBe(before + 1);
      }
    } finally {
      await inproc.close();
      await http.close();
    }
  });
});
