// Fault injection's server-wide rules (docs/api.md "Fault injection"), over real HTTP: each fault kind by rule,
// counts and rates that stop when they should, method + path globs, per-account scope, the rules file of
// `startServer({ faults })`, and a rule that can never lock its own routes out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../dist/index.js';
import type { FaultRuleBody } from '../../dist/lib/contract/faults.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { expectError } from '../helpers/util.js';
import { runCli } from '../helpers/cli.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
});
afterAll(() => s?.close());

const add = (body: Record<string, unknown>, key?: string) => s.request('POST', '/test-helpers/faults', { body, key });
const clear = () => s.request('DELETE', '/test-helpers/faults');
const statuses = async (n: number, path = '/sessions?limit=1') => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await s.request('GET', path)).status);
  return out;
};

describe('fault rules', () => {
  it('a count: the first N matching requests get the fault, then the rule is spent (and listed as such)', async () => {
    const r = await add({ fault: 'status=503', method: 'GET', path: '/sessions', count: 2 });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      object: 'fault_rule',
      id: expect.stringMatching(/^flt_/),
      scope: 'account',
      target: 'request',
      fault: 'status=503',
      method: 'GET',
      path: '/sessions',
      count: 2,
      remaining: 2,
    });
    expect(await statuses(4)).toEqual([503, 503, 200, 200]);
    const [listed] = (await s.request('GET', '/test-helpers/faults')).body.data;
    expect(listed).toMatchObject({ id: r.body.id, matched: 2, injected: 2, remaining: 0 });
    expect((await clear()).body).toEqual({ object: 'fault_rules_cleared', deleted: 1 });
  });

  it('a rate: deterministically every 1/rate-th match (0.5: the 2nd, 4th…), with a count it stops after N', async () => {
    await add({ fault: 'status=500', path: '/sessions', rate: 0.5, count: 2 });
    expect(await statuses(7)).toEqual([200, 500, 200, 500, 200, 200, 200]);
    await clear();
    await add({ fault: 'status=502', path: '/sessions', rate: 1 / 3 });
    expect(await statuses(6)).toEqual([200, 200, 502, 200, 200, 502]);
    await clear();
    await add({ fault: 'status=502', path: '/sessions', rate: 0 });
    expect(await statuses(3)).toEqual([200, 200, 200]);
    await clear();
  });

  it('method and path globs: * within a segment, ** across; other requests are untouched', async () => {
    await add({ fault: 'status=504', method: 'POST', path: '/sessions/*/cancel' });
    const sess = (await s.request('POST', '/create-session', { body: { amount: 100, currency: 'usd' } })).body;
    expect((await s.request('GET', `/sessions/${sess.id}`)).status).toBe(200);
    expectError(await s.request('POST', `/sessions/${sess.id}/cancel`), 504, 'api_error', 'gateway_timeout');
    await clear();
    await add({ fault: 'status=503', path: '/test-helpers/**' });
    expectError(await s.request('GET', '/test-helpers/clock'), 503, 'api_error', 'service_unavailable');
    // …but never the rules' own routes: a rule cannot lock `clear` out
    expect((await s.request('GET', '/test-helpers/faults')).status).toBe(200);
    expect((await clear()).body.deleted).toBe(1);
  });

  it('each fault kind by rule: reset, latency, after_commit=reset (the retry with the key gets the saved answer)', async () => {
    await add({ fault: 'reset', path: '/sessions', count: 1 });
    const reset = await fetch(`${s.baseUrl}/sessions`, { headers: { authorization: `Bearer ${s.apiKey}` } }).then(
      () => 'answered',
      (e: { cause?: { code?: string } }) => e.cause?.code,
    );
    expect(reset).toMatch(/UND_ERR_SOCKET|ECONNRESET/);
    expect(await statuses(1)).toEqual([200]);
    await clear();

    await add({ fault: 'latency=300ms', path: '/sessions', count: 1 });
    const t = Date.now();
    expect(await statuses(1)).toEqual([200]);
    expect(Date.now() - t).toBeGreaterThanOrEqual(290);
    await clear();

    await add({ fault: 'after_commit=reset', method: 'POST', path: '/create-session', count: 1 });
    const before = (await s.request('GET', '/sessions?limit=1')).body.total_count;
    const send = () =>
      fetch(`${s.baseUrl}/create-session`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${s.apiKey}`,
          'content-type': 'application/json',
          'idempotency-key': 'rule-after-commit-1',
        },
        body: '{"amount":321,"currency":"usd"}',
      });
    expect(
      await send().then(
        () => 'answered',
        () => 'reset',
      ),
    ).toBe('reset');
    const retry = await send();
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((await s.request('GET', '/sessions?limit=1')).body.total_count).toBe(before + 1);
    await clear();
  });

  it('the header wins over the rules, and is not counted by them', async () => {
    await add({ fault: 'status=503', path: '/sessions', count: 1 });
    expect((await s.request('GET', '/sessions', { headers: { 'Payorch-Simulate': 'status=429' } })).status).toBe(429);
    expect(await statuses(2)).toEqual([503, 200]);
    await clear();
  });

  it("an account's rules apply to its own requests only; bad rules are the contract's 400 / 404", async () => {
    const t = await startTestServer();
    try {
      await t.request('POST', '/test-helpers/faults', { body: { fault: 'status=503', path: '/sessions' } });
      const keyB = (await runCli(['server', 'keys', 'create', '--data-dir', t.dataDir!, '--json'])).json()
        .api_key as string;
      expect((await t.request('GET', '/sessions', { key: keyB })).status).toBe(200);
      expect((await t.request('GET', '/test-helpers/faults', { key: keyB })).body.data).toEqual([]);
      expect((await t.request('DELETE', '/test-helpers/faults', { key: keyB })).body.deleted).toBe(0);
      expect((await t.request('GET', '/sessions')).status).toBe(503);
    } finally {
      await t.close();
    }
    expectError(await add({ fault: 'status=404' }), 400, 'validation_error', 'parameter_invalid', 'fault');
    expectError(await add({ fault: 'drop', path: '/sessions' }), 400, 'validation_error', 'parameter_invalid', 'fault');
    expectError(await add({ fault: 'status=503', rate: 2 }), 400, 'validation_error', 'parameter_invalid', 'rate');
    expectError(await add({ fault: 'status=503', count: 0 }), 400, 'validation_error', 'parameter_invalid', 'count');
    expectError(
      await add({ fault: 'status=503', path: 'sessions' }),
      400,
      'validation_error',
      'parameter_invalid',
      'path',
    );
    expectError(
      await add({ fault: 'status=503', webhook_endpoint: 'we_x', path: '/x' }),
      400,
      'validation_error',
      'parameter_invalid',
      'webhook_endpoint',
    );
    expectError(
      await add({ fault: 'status=503', webhook_endpoint: 'we_nope' }),
      404,
      'invalid_request_error',
      'resource_missing',
      'webhook_endpoint',
    );
    expectError(await add({ fault: 'status=503', extra: 1 }), 400, 'validation_error', 'parameter_unknown', 'extra');
    expectError(
      await s.request('DELETE', '/test-helpers/faults/flt_999'),
      404,
      'invalid_request_error',
      'resource_missing',
      'fault_rule_id',
    );
    expect((await s.request('GET', '/test-helpers/faults')).body.data).toEqual([]);
  });

  it('startServer({ faults }): server-wide rules for every account, listed as such, not deletable over the API; a bad rule fails the start naming it', async () => {
    const t = await startTestServer({
      memory: true,
      faults: [{ fault: 'status=503;retry_after=1', method: 'GET', path: '/sessions', count: 1 }],
    });
    try {
      const [rule] = (await t.request('GET', '/test-helpers/faults')).body.data;
      expect(rule).toMatchObject({ scope: 'server', fault: 'status=503;retry_after=1', remaining: 1 });
      expectError(
        await t.request('DELETE', `/test-helpers/faults/${rule.id}`),
        409,
        'invalid_request_error',
        'fault_rule_server_wide',
      );
      expect((await t.request('DELETE', '/test-helpers/faults')).body.deleted).toBe(0);
      const first = await t.request('GET', '/sessions');
      expect([first.status, first.headers.get('retry-after')]).toEqual([503, '1']);
      expect((await t.request('GET', '/sessions')).status).toBe(200);
    } finally {
      await t.close();
    }
    await expect(
      startServer({ port: 0, memory: true, faults: [{ fault: 'status=503' }, { fault: 'teapot' }] }),
    ).rejects.toThrow(/^Fault rule 2 of 2: Invalid fault: unknown item "teapot"/);
    const badRate: FaultRuleBody = {
      fault: 'status=503',
      // @ts-expect-error a rate is a number: the server refuses the rule however it was typed (a JSON file's)
      rate: 'half',
    };
    await expect(startServer({ port: 0, memory: true, faults: [badRate] })).rejects.toThrow(
      /^Fault rule 1 of 1: .*rate/,
    );
  });
});
