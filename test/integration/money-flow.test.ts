// Across areas, through the real server: a payment-mode checkout session is paid with the session's client
// secret (payments engine), the checkout completes (billing), the capture and a refund post to the
// ledger's system accounts (ledger), and a subscription's first charge goes through the same engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { customer, monthlyPrice, ok, product } from '../billing/helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

async function systemBalances(): Promise<Record<string, number>> {
  const list = await ok(s, 'GET', '/ledger-accounts?limit=100&currency=usd');
  return Object.fromEntries(
    list.data.filter((a: any) => a.is_system_account).map((a: any) => [a.account_type, a.balance]),
  );
}

describe('money flow across areas', () => {
  it('checkout (payment mode) → confirm with the client secret → checkout complete → ledger postings, refund included', async () => {
    const price = await ok(s, 'POST', '/prices', {
      product: (await product(s, 'T-shirt')).id,
      currency: 'usd',
      unit_amount: 2500,
    });
    const co = await ok(
      s,
      'POST',
      '/checkout-sessions',
      { mode: 'payment', line_items: [{ price: price.id, quantity: 2 }] },
      201,
    );
    expect(co).toMatchObject({ status: 'open', amount_total: 5000 });
    const session = await ok(s, 'GET', `/sessions/${co.payment_session}`);
    expect(session).toMatchObject({ amount: 5000, currency: 'USD', status: 'requires_payment_method' });

    const paid = await s.request('POST', `/confirm-payment/${session.id}`, {
      key: session.client_secret,
      body: { token_id: 'tok_visa' },
    });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ status: 'captured', captured_amount: 5000 });
    expect(await ok(s, 'GET', `/checkout-sessions/${co.id}`)).toMatchObject({ status: 'complete' });
    expect(await systemBalances()).toEqual({ asset: 5000, liability: 5000 });

    const refund = await ok(s, 'POST', `/refund-payment/${paid.body.id}`, { amount: 1200 });
    expect(refund.refunded_amount).toBe(1200);
    expect(await systemBalances()).toEqual({ asset: 3800, liability: 3800 });
  });

  it("a subscription's first invoice is charged through the payments engine (a payment object exists)", async () => {
    const before: number = (await ok(s, 'GET', '/payments')).total_count;
    const cus = await customer(s, 'tok_mastercard');
    const price = await monthlyPrice(s, (await product(s)).id, 1500);
    const sub = await ok(s, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }] }, 201);
    expect(sub.status).toBe('active');
    const inv = await ok(s, 'GET', `/invoices/${sub.latest_invoice}`);
    expect(inv).toMatchObject({ status: 'paid', amount_paid: 1500 });
    expect(inv.payment_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await ok(s, 'GET', `/payments/${inv.payment_id}`)).toMatchObject({
      status: 'captured',
      amount: 1500,
      currency: 'USD',
    });
    expect((await ok(s, 'GET', '/payments')).total_count).toBe(before + 1);
  });
});
