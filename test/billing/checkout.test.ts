// Checkout sessions (payment and subscription mode) and customer portal sessions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, sqliteOf } from '../helpers/server.js';
import { advance, customer, DAY, fails, monthlyPrice, ok, product } from './helpers.js';
import { OPEN_FOR_PAYMENT_SESSION } from '../../dist/lib/server/adapters/sqlite/billing.js';
import { onSqlite } from '../helpers/engine.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('checkout sessions', () => {
  it.runIf(onSqlite)(
    'a payment completes its own checkout session only, found by an index seek however many are open',
    async () => {
      const price = await ok(s, 'POST', '/prices', {
        product: (await product(s, 'Cup')).id,
        currency: 'usd',
        unit_amount: 700,
      });
      const open = [];
      for (let i = 0; i < 80; i++)
        open.push(
          await ok(s, 'POST', '/checkout-sessions', { mode: 'payment', line_items: [{ price: price.id }] }, 201),
        );
      const paying = await ok(s, 'GET', `/sessions/${open[1].payment_session}`);
      // The server runs in this process: count the documents the confirm parses (it once parsed every open checkout
      // session).
      const parse = JSON.parse;
      let parsed = 0;
      JSON.parse = (...args: Parameters<typeof JSON.parse>) => (parsed++, parse(...args));
      let paid;
      try {
        paid = await s.request('POST', `/confirm-payment/${paying.id}`, {
          key: paying.client_secret,
          body: { token_id: 'tok_visa' },
        });
      } finally {
        JSON.parse = parse;
      }
      expect(paid.status, paid.text).toBe(200);
      expect(parsed).toBeLessThan(40);
      const statuses = (await Promise.all(open.map((c) => ok(s, 'GET', `/checkout-sessions/${c.id}`)))).map(
        (c) => c.status,
      );
      expect(statuses.filter((x) => x === 'complete')).toHaveLength(1);
      expect(statuses[1]).toBe('complete');
      // Every confirm looks for its checkout session: a seek of migration 203's index, not a parse of each open one.
      const plan = sqliteOf(s)
        .db.prepare(`EXPLAIN QUERY PLAN SELECT data FROM checkout_sessions WHERE ${OPEN_FOR_PAYMENT_SESSION}`)
        .all('acct', 'ps');
      expect(plan.map((r: any) => r.detail).join(' | ')).toMatch(
        /^SEARCH checkout_sessions USING INDEX checkout_sessions_open_payment_session \(account_id=\? AND <expr>=\?\)$/,
      );
    },
  );

  it('mode payment refuses a total beyond the largest payment amount (the payment session would be out of range)', async () => {
    const prod = await product(s, 'Vault');
    const max = await ok(s, 'POST', '/prices', { product: prod.id, currency: 'usd', unit_amount: 99_999_999_999 });
    const one = await ok(s, 'POST', '/prices', { product: prod.id, currency: 'usd', unit_amount: 1 });
    const e = await fails(
      s,
      'POST',
      '/checkout-sessions',
      { mode: 'payment', line_items: [{ price: max.id }, { price: one.id }] },
      400,
      'parameter_invalid',
    );
    expect(e.param).toBe('line_items');
    // the session create itself refuses the same amount
    await fails(s, 'POST', '/create-session', { amount: 100_000_000_000, currency: 'usd' }, 400, 'parameter_invalid');
    const atMax = await ok(s, 'POST', '/checkout-sessions', { mode: 'payment', line_items: [{ price: max.id }] }, 201);
    expect((await ok(s, 'GET', `/sessions/${atMax.payment_session}`)).amount).toBe(99_999_999_999);
  });

  it("the subscription checkout page keeps success_url inside its script: no '</script>' or second <script> from page data", async () => {
    const prod = await product(s, 'Zine');
    const price = await monthlyPrice(s, prod.id, 300);
    const success_url = 'https://shop.example/done?a=</script><script>alert(document.domain)</script>';
    const cks = await ok(
      s,
      'POST',
      '/checkout-sessions',
      { mode: 'subscription', line_items: [{ price: price.id }], success_url },
      201,
    );
    expect(cks.success_url).toBe(success_url);
    const res = await fetch(cks.url);
    expect(res.status).toBe(200);
    const html = await res.text();
    // exactly the template's one script, which the nonce is stamped on, and the URL intact inside it
    expect(html.match(/<script/gi)).toHaveLength(1);
    expect(html.match(/<\/script/gi)).toHaveLength(1);
    const literal = /const success = (".*?");\n/.exec(html)?.[1];
    expect(literal && JSON.parse(literal)).toBe(success_url);
  });

  it('mode payment creates a payment session for the total', async () => {
    const prod = await product(s, 'Mug');
    const a = await ok(s, 'POST', '/prices', { product: prod.id, currency: 'usd', unit_amount: 1250 });
    const b = await ok(s, 'POST', '/prices', { product: prod.id, currency: 'usd', unit_amount: 99 });
    const cks = await ok(
      s,
      'POST',
      '/checkout-sessions',
      {
        mode: 'payment',
        line_items: [{ price: a.id, quantity: 2 }, { price: b.id }],
        customer_email: 'buyer@example.com',
        success_url: 'https://shop.example/ok',
      },
      201,
    );
    expect(cks).toMatchObject({
      object: 'checkout_session',
      mode: 'payment',
      status: 'open',
      amount_total: 2599,
      currency: 'USD',
      customer_email: 'buyer@example.com',
      subscription: null,
    });
    expect(cks.id).toMatch(/^cks_/);
    const ps = await ok(s, 'GET', `/sessions/${cks.payment_session}`);
    expect(ps).toMatchObject({
      amount: 2599,
      currency: 'USD',
      status: 'requires_payment_method',
      customer_email: 'buyer@example.com',
      metadata: { checkout_session: cks.id },
    });
    expect(cks.url).toBe(ps.fallback_url);
    expect((await ok(s, 'GET', `/checkout-sessions/${cks.id}`)).status).toBe('open');
    await fails(
      s,
      'POST',
      `/checkout-sessions/${cks.id}/complete`,
      { payment_method: 'tok_visa' },
      409,
      'checkout_session_unexpected_state',
    );
    const rec = await monthlyPrice(s, prod.id, 100);
    await fails(
      s,
      'POST',
      '/checkout-sessions',
      { mode: 'payment', line_items: [{ price: rec.id }] },
      400,
      'parameter_invalid',
    );
    await fails(s, 'POST', '/checkout-sessions', { mode: 'payment', line_items: [] }, 400, 'parameter_invalid');
    // open sessions expire after 24 h
    await advance(s, { seconds: DAY + 1 });
    expect((await ok(s, 'GET', `/checkout-sessions/${cks.id}`)).status).toBe('expired');
  });

  it('mode subscription creates the subscription on completion', async () => {
    const prod = await product(s, 'Club');
    const price = await monthlyPrice(s, prod.id, 900);
    await fails(
      s,
      'POST',
      '/checkout-sessions',
      {
        mode: 'subscription',
        line_items: [
          { price: (await ok(s, 'POST', '/prices', { product: prod.id, currency: 'usd', unit_amount: 5 })).id },
        ],
      },
      400,
      'parameter_invalid',
    );
    const cks = await ok(s, 'POST', '/checkout-sessions', {
      mode: 'subscription',
      line_items: [{ price: price.id, quantity: 2 }],
      customer_email: 'new@example.com',
      trial_period_days: 5,
    });
    expect(cks).toMatchObject({
      mode: 'subscription',
      status: 'open',
      amount_total: 1800,
      payment_session: null,
      trial_period_days: 5,
    });
    expect(cks.url).toBe(`${s.baseUrl}/checkout/${cks.id}`);
    const done = await ok(s, 'POST', `/checkout-sessions/${cks.id}/complete`, { payment_method: 'tok_visa' });
    expect(done.status).toBe('complete');
    expect(done.completed_at).toMatch(/Z$/);
    const sub = await ok(s, 'GET', `/subscriptions/${done.subscription}`);
    expect(sub).toMatchObject({ status: 'trialing', customer: done.customer });
    expect(sub.items.data[0]).toMatchObject({ quantity: 2, price: { id: price.id } });
    expect(await ok(s, 'GET', `/customers/${done.customer}`)).toMatchObject({
      email: 'new@example.com',
      default_payment_method: 'tok_visa',
    });
    await fails(
      s,
      'POST',
      `/checkout-sessions/${cks.id}/complete`,
      { payment_method: 'tok_visa' },
      409,
      'checkout_session_unexpected_state',
    );
    // a declined first charge creates nothing
    const before = (await ok(s, 'GET', '/subscriptions?limit=1')).total_count;
    const c3 = await ok(s, 'POST', '/checkout-sessions', {
      mode: 'subscription',
      line_items: [{ price: price.id }],
      customer_email: 'declined@example.com',
    });
    const e = await fails(
      s,
      'POST',
      `/checkout-sessions/${c3.id}/complete`,
      { payment_method: 'tok_chargeDeclined' },
      402,
      'card_declined',
    );
    expect(e.type).toBe('card_error');
    expect((await ok(s, 'GET', `/checkout-sessions/${c3.id}`)).status).toBe('open');
    expect((await ok(s, 'GET', '/subscriptions?limit=1')).total_count).toBe(before);
    // an existing customer keeps its id and gets the card as default
    const cus = await customer(s, null);
    const c2 = await ok(s, 'POST', '/checkout-sessions', {
      mode: 'subscription',
      line_items: [{ price: price.id }],
      customer: cus.id,
    });
    const d2 = await ok(s, 'POST', `/checkout-sessions/${c2.id}/complete`, { payment_method: 'tok_visa' });
    expect(d2.customer).toBe(cus.id);
    expect((await ok(s, 'GET', `/subscriptions/${d2.subscription}`)).status).toBe('active');
    expect((await ok(s, 'GET', '/checkout-sessions?limit=3')).data.map((x: any) => x.id)).toEqual([
      c2.id,
      c3.id,
      cks.id,
    ]);
  });
});

describe('portal sessions', () => {
  it('creates a session with a url and an expiry', async () => {
    const cus = await customer(s);
    const p = await ok(
      s,
      'POST',
      '/portal-sessions',
      { customer: cus.id, return_url: 'https://app.example/account' },
      201,
    );
    expect(p).toMatchObject({
      object: 'portal_session',
      customer: cus.id,
      return_url: 'https://app.example/account',
      url: `${s.baseUrl}/portal/${p.id}`,
    });
    expect(p.id).toMatch(/^pts_/);
    expect(Date.parse(p.expires_at) - p.created * 1000).toBeGreaterThanOrEqual(3600 * 1000 - 1000);
    expect(await ok(s, 'GET', `/portal-sessions/${p.id}`)).toEqual(p);
    await fails(s, 'POST', '/portal-sessions', { customer: 'cus_missing' }, 404, 'resource_missing');
    await fails(s, 'POST', '/portal-sessions', { customer: cus.id, return_url: 'ftp://x' }, 400, 'parameter_invalid');
  });
});
