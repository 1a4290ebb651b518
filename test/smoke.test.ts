import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';
import { against, runCli } from './helpers/cli.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('smoke', () => {
  it('creates a session over HTTP through the binary', async () => {
    const r = await runCli(['sessions', 'create', '--amount', '1999', '--currency', 'usd', '--json', ...against(s)]);
    expect(r.code).toBe(0);
    const session = r.json();
    expect(session).toMatchObject({
      object: 'payment_session',
      amount: 1999,
      currency: 'USD',
      status: 'requires_payment_method',
    });
    const got = await s.request('GET', `/sessions/${session.id}`);
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(session.id);
  });
});
