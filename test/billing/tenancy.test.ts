// Accounts never see each other's billing objects (404), coupon ids are per account, each account's clock
// bills only its own subscriptions; a retried create with the same Idempotency-Key charges once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { customer, monthlyPrice, ok, product } from './helpers.js';

let s: TestServer;
let keyB: string;
beforeAll(async () => {
  s = await startTestServer();
  keyB = (await s.server.services.accounts.createAccountWithKey()).api_key;
});
afterAll(() => s.close());

const asB = (method: string, path: string, body?: unknown) =>
  s.request(method, path, { key: keyB, ...(body === undefined ? {} : { body }) });

describe('tenancy', () => {
  it('hides one account’s objects from another', async () => {
    const cus = await customer(s);
    const prod = await product(s);
    const price = await monthlyPrice(s, prod.id, 700);
    const sub = await ok(s, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }] });
    const portal = await ok(s, 'POST', '/portal-sessions', { customer: cus.id });
    for (const path of [
      `/customers/${cus.id}`,
      `/products/${prod.id}`,
      `/prices/${price.id}`,
      `/subscriptions/${sub.id}`,
      `/invoices/${sub.latest_invoice}`,
      `/subscription-items/${sub.items.data[0].id}`,
      `/portal-sessions/${portal.id}`,
    ]) {
      const r = await asB('GET', path);
      expect([path, r.status, r.body.error.code]).toEqual([path, 404, 'resource_missing']);
    }
    expect((await asB('POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }] })).status).toBe(404);
    expect((await asB('POST', `/invoices/${sub.latest_invoice}/void`, {})).status).toBe(404);
    expect((await asB('GET', '/customers')).body.data.map((c: any) => c.id)).not.toContain(cus.id);

    // the same caller-chosen coupon id in both accounts
    await ok(s, 'POST', '/coupons', { id: 'SAME', percent_off: 10 });
    const b = await asB('POST', '/coupons', { id: 'SAME', percent_off: 20 });
    expect(b.status).toBe(201);
    expect((await ok(s, 'GET', '/coupons/SAME')).percent_off).toBe(10);
    expect((await asB('GET', '/coupons/SAME')).body.percent_off).toBe(20);

    // B's clock does not renew A's subscription
    await asB('POST', '/test-helpers/advance-clock', { seconds: 40 * 86_400 });
    expect((await ok(s, 'GET', `/invoices?subscription=${sub.id}`)).total_count).toBe(1);
  });

  it('a replayed subscription create returns the same subscription and charges once', async () => {
    const cus = await customer(s);
    const price = await monthlyPrice(s, (await product(s)).id, 1200);
    const body = { customer: cus.id, items: [{ price: price.id }] };
    const headers = { 'idempotency-key': `sub-${cus.id}` };
    const first = await s.request('POST', '/subscriptions', { body, headers });
    const again = await s.request('POST', '/subscriptions', { body, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect((await ok(s, 'GET', `/subscriptions?customer=${cus.id}`)).total_count).toBe(1);
    expect((await ok(s, 'GET', `/invoices?customer=${cus.id}`)).total_count).toBe(1);
    const reused = await s.request('POST', '/subscriptions', {
      body: { ...body, metadata: { other: 'body' } },
      headers,
    });
    expect(reused.status).toBe(400);
    expect(reused.body.error.code).toBe('idempotency_key_reused');
  });
});
