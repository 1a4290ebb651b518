// A long clock advance runs in steps (docs/api.md "Test clock"): other accounts are answered while it runs, and the
// result is the same as if it had run at once. The assertion is about interleaving (requests of another account
// completed before the advance did), not about how fast this machine is: an advance in one transaction answers
// none of them until it is done, however fast or slow the machine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { advance, customer, DAY, monthlyPrice, ok, product } from './helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true, dueWorkIntervalMs: 0, rateLimits: { perMinute: 1_000_000, perDay: 10_000_000, concurrency: 1000 } });
});
afterAll(() => s.close());

describe('a long clock advance', () => {
  it('lets another account be answered between its steps and still runs every renewal once, in order', { timeout: 120_000 }, async () => {
    const SUBS = 120;
    const cus = await customer(s);
    const price = await monthlyPrice(s, (await product(s)).id, 700);
    const subs: any[] = [];
    for (let i = 0; i < SUBS; i++) subs.push(await ok(s, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }] }, 201));
    const other = s.server.services.accounts.createAccountWithKey().api_key;
    await s.request('POST', '/customers', { body: { email: 'other@example.com' }, key: other });

    let done = false;
    const advancing = advance(s, { seconds: 366 * DAY }).finally(() => (done = true));
    let answeredMeanwhile = 0;
    while (!done) {
      const r = await s.request('GET', '/customers?limit=1', { key: other });
      expect(r.status).toBe(200);
      if (!done) answeredMeanwhile++;
    }
    const result = await advancing;

    expect(answeredMeanwhile).toBeGreaterThanOrEqual(3);
    const renewals = result.ran.filter((r: any) => r.name === 'subscription renewals');
    expect(renewals.reduce((a: number, r: any) => a + r.count, 0)).toBe(SUBS * 12);
    // one run entry per moment, in time order, however the work was cut into steps
    const ats = renewals.map((r: any) => r.at);
    expect(ats).toEqual([...new Set(ats)].sort());
    const invoices = await ok(s, 'GET', `/invoices?subscription=${subs[SUBS - 1].id}&limit=1`);
    expect(invoices.total_count).toBe(13);
  });
});
