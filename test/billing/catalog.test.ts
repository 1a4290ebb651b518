// Customers, products, prices and coupons over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type List, type TestServer } from '../helpers/server.js';
import type { Coupon, Customer, Price, Product } from '../../dist/lib/contract/billing.js';
import { customer, fails, ok, product } from './helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('customers', () => {
  it('creates, reads, updates, filters by email, deletes', async () => {
    const c = await ok(
      s,
      'POST',
      '/customers',
      {
        email: 'ada@example.com',
        name: 'Ada',
        phone: '+15550100',
        billing_address: { line1: '1 Main St', city: 'Springfield', country: 'US' },
        tax_ids: [{ type: 'eu_vat', value: 'DE123456789' }],
        metadata: { tier: 'gold' },
      },
      201,
    );
    expect(c).toMatchObject({
      object: 'customer',
      email: 'ada@example.com',
      tax_exempt: false,
      default_payment_method: null,
      livemode: false,
    });
    expect(c.id).toMatch(/^cus_[0-9A-Za-z]{20,}$/);
    expect(Number.isInteger(c.created)).toBe(true);
    await ok(s, 'POST', '/customers', { email: 'bob@example.com' });
    const upd = await ok(s, 'PATCH', `/customers/${c.id}`, {
      name: 'Ada L.',
      default_payment_method: 'tok_visa',
      metadata: { tier: '', x: 'y' },
    });
    expect(upd).toMatchObject({ name: 'Ada L.', default_payment_method: 'tok_visa', metadata: { x: 'y' } });
    const list = await ok(s, 'GET', '/customers?email=ada@example.com');
    expect(list).toMatchObject({ object: 'list', total_count: 1, has_more: false });
    expect(list.data[0].id).toBe(c.id);
    const del = await ok(s, 'DELETE', `/customers/${c.id}`);
    expect(del).toEqual({ id: c.id, object: 'customer', deleted: true });
    await fails(s, 'GET', `/customers/${c.id}`, undefined, 404, 'resource_missing');
  });

  it('validates input with the contract errors', async () => {
    await fails(s, 'POST', '/customers', { email: 'not-an-email' }, 400, 'parameter_invalid');
    await fails(s, 'POST', '/customers', { nickname: 'x' }, 400, 'parameter_unknown');
    await fails(s, 'PATCH', '/customers/cus_nope', { name: 'x' }, 404, 'resource_missing');
  });

  it('never takes a card number where a payment method token goes, nor repeats it', async () => {
    const card = '4000 0566 5566 5556';
    const cus = await customer(s);
    const prod = await product(s);
    const price = await ok(s, 'POST', '/prices', {
      product: prod.id,
      currency: 'usd',
      unit_amount: 500,
      recurring: { interval: 'month' },
    });
    const sub = await ok(s, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }] }, 201);
    const inv = await ok(s, 'POST', '/invoices', { customer: cus.id, currency: 'usd', lines: [{ amount: 100 }] }, 201);
    await ok(s, 'POST', `/invoices/${inv.id}/finalize`, {});
    const cks = await ok(
      s,
      'POST',
      '/checkout-sessions',
      { mode: 'subscription', customer: cus.id, line_items: [{ price: price.id }] },
      201,
    );
    for (const value of [card, '4000056655665556', '4000-0566-5566-5556']) {
      for (const [method, path, body, param] of [
        ['POST', '/customers', { email: 'a@example.com', default_payment_method: value }, 'default_payment_method'],
        ['PATCH', `/customers/${cus.id}`, { default_payment_method: value }, 'default_payment_method'],
        [
          'POST',
          '/subscriptions',
          { customer: cus.id, items: [{ price: price.id }], default_payment_method: value },
          'default_payment_method',
        ],
        ['PATCH', `/subscriptions/${sub.id}`, { default_payment_method: value }, 'default_payment_method'],
        ['POST', `/invoices/${inv.id}/pay`, { payment_method: value }, 'payment_method'],
        ['POST', `/checkout-sessions/${cks.id}/complete`, { payment_method: value }, 'payment_method'],
      ] as const) {
        const r = await s.request(method, path, { body });
        expect([r.status, r.body.error?.code, r.body.error?.param], `${method} ${path}`).toEqual([
          400,
          'parameter_invalid',
          param,
        ]);
        expect(r.text.replace(/\D/g, '')).not.toContain('4000056655665556');
      }
    }
    // nothing was stored: the customer keeps its token, no other customer holds a number
    expect((await ok(s, 'GET', `/customers/${cus.id}`)).default_payment_method).toBe('tok_visa');
    const all = await ok<List<Customer>>(s, 'GET', '/customers?limit=100');
    expect(JSON.stringify(all.data).replace(/\D/g, '')).not.toContain('4000056655665556');
  });

  it('refuses deletion while a subscription is not canceled, allows it after', async () => {
    const c = await customer(s);
    const p = await product(s);
    const price = await ok(s, 'POST', '/prices', {
      product: p.id,
      currency: 'usd',
      unit_amount: 500,
      recurring: { interval: 'month' },
    });
    const sub = await ok(s, 'POST', '/subscriptions', { customer: c.id, items: [{ price: price.id }] });
    await fails(s, 'DELETE', `/customers/${c.id}`, undefined, 409, 'customer_unexpected_state');
    await ok(s, 'POST', `/subscriptions/${sub.id}/cancel`, {});
    await ok(s, 'DELETE', `/customers/${c.id}`);
  });

  it('pages newest first with total_count', async () => {
    for (let i = 0; i < 3; i++)
      await ok(s, 'POST', '/customers', { email: `page${i}@example.com`, metadata: { batch: 'p' } });
    const all = await ok<List<Customer>>(s, 'GET', '/customers?limit=100');
    const first = await ok<List<Customer>>(s, 'GET', '/customers?limit=2');
    expect(first.has_more).toBe(true);
    expect(first.total_count).toBe(all.total_count);
    expect(first.data.map((c) => c.id)).toEqual(all.data.slice(0, 2).map((c) => c.id));
    const next = await ok(s, 'GET', `/customers?limit=2&starting_after=${first.data[1].id}`);
    expect(next.data[0].id).toBe(all.data[2].id);
    await fails(s, 'GET', '/customers?limit=101', undefined, 400, 'parameter_invalid');
  });
});

describe('products', () => {
  it('creates, expands prices both ways, updates is_active → active', async () => {
    const p = await ok(
      s,
      'POST',
      '/products',
      { name: 'Widget', unit_label: 'seat', images: ['https://example.com/w.png'] },
      201,
    );
    expect(p).toMatchObject({
      object: 'product',
      name: 'Widget',
      active: true,
      default_price: null,
      images: ['https://example.com/w.png'],
    });
    expect(p.id).toMatch(/^prod_/);
    expect(p).not.toHaveProperty('prices');
    const price = await ok(s, 'POST', '/prices', { product: p.id, currency: 'eur', unit_amount: 1200 });
    const plain = await ok(s, 'GET', `/products/${p.id}`);
    expect(plain).not.toHaveProperty('prices');
    expect(plain.default_price).toBe(price.id);
    const a = await ok<Product>(s, 'GET', `/products/${p.id}?expand[]=prices`);
    const b = await ok<Product>(s, 'GET', `/products/${p.id}?expand=prices`);
    expect(a.prices!.map((x) => x.id)).toEqual([price.id]);
    expect(b.prices!.map((x) => x.id)).toEqual([price.id]);
    await fails(s, 'GET', `/products/${p.id}?expand=tiers`, undefined, 400, 'parameter_invalid');
    const off = await ok(s, 'PATCH', `/products/${p.id}`, { is_active: false, name: 'Widget 2' });
    expect(off).toMatchObject({ active: false, name: 'Widget 2' });
    expect(off).not.toHaveProperty('is_active');
    expect(off.updated).toBeGreaterThanOrEqual(p.updated);
    await fails(s, 'PATCH', `/products/${p.id}`, { active: true }, 400, 'parameter_unknown');
  });

  it('deletes a product without prices; archives one with prices', async () => {
    const bare = await product(s, 'Bare');
    expect(await ok(s, 'DELETE', `/products/${bare.id}`)).toEqual({ id: bare.id, object: 'product', deleted: true });
    await fails(s, 'GET', `/products/${bare.id}`, undefined, 404, 'resource_missing');
    const used = await product(s, 'Used');
    await ok(s, 'POST', '/prices', { product: used.id, currency: 'usd', unit_amount: 100 });
    const archived = await ok(s, 'DELETE', `/products/${used.id}`);
    expect(archived).toMatchObject({ id: used.id, object: 'product', active: false, deleted: false });
    expect((await ok(s, 'GET', `/products/${used.id}`)).active).toBe(false);
  });
});

describe('prices', () => {
  it('per_unit one_time and recurring licensed/metered with the four aggregate modes', async () => {
    const p = await product(s, 'API');
    const one = await ok(
      s,
      'POST',
      '/prices',
      { product: p.id, currency: 'usd', unit_amount: 999, nickname: 'once' },
      201,
    );
    expect(one).toMatchObject({
      object: 'price',
      type: 'one_time',
      billing_scheme: 'per_unit',
      unit_amount: 999,
      currency: 'USD',
      recurring: null,
      tiers: null,
      tiers_mode: null,
      active: true,
    });
    const lic = await ok(s, 'POST', '/prices', {
      product: p.id,
      currency: 'usd',
      unit_amount: 2000,
      recurring: { interval: 'month' },
    });
    expect(lic.recurring).toEqual({
      interval: 'month',
      interval_count: 1,
      usage_type: 'licensed',
      aggregate_usage: null,
    });
    for (const mode of ['sum', 'last_during_period', 'last_ever', 'max']) {
      const m = await ok(s, 'POST', '/prices', {
        product: p.id,
        currency: 'usd',
        unit_amount: 3,
        recurring: { interval: 'month', usage_type: 'metered', aggregate_usage: mode },
      });
      expect(m.recurring).toMatchObject({ usage_type: 'metered', aggregate_usage: mode });
    }
    const dflt = await ok(s, 'POST', '/prices', {
      product: p.id,
      currency: 'usd',
      unit_amount: 3,
      recurring: { interval: 'year', usage_type: 'metered' },
    });
    expect(dflt.recurring.aggregate_usage).toBe('sum');
    await fails(
      s,
      'POST',
      '/prices',
      { product: p.id, currency: 'usd', unit_amount: 3, recurring: { interval: 'month', aggregate_usage: 'max' } },
      400,
      'parameter_invalid',
    );
    await fails(
      s,
      'POST',
      '/prices',
      { product: p.id, currency: 'usd', unit_amount: 3, recurring: { interval: 'fortnight' } },
      400,
      'parameter_invalid',
    );
    await fails(s, 'POST', '/prices', { product: p.id, currency: 'usd' }, 400, 'parameter_missing');
    await fails(s, 'POST', '/prices', { product: p.id, currency: 'zzz', unit_amount: 1 }, 400, 'parameter_invalid');
    await fails(
      s,
      'POST',
      '/prices',
      { product: 'prod_missing', currency: 'usd', unit_amount: 1 },
      404,
      'resource_missing',
    );
  });

  it('tiered graduated and volume prices validate their tiers', async () => {
    const p = await product(s, 'Tiers');
    const g = await ok(s, 'POST', '/prices', {
      product: p.id,
      currency: 'usd',
      billing_scheme: 'tiered',
      tiers_mode: 'graduated',
      recurring: { interval: 'month' },
      tiers: [
        { up_to: 10, unit_amount: 100 },
        { up_to: 'inf', unit_amount: 50, flat_amount: 500 },
      ],
    });
    expect(g).toMatchObject({ billing_scheme: 'tiered', tiers_mode: 'graduated', unit_amount: null });
    expect(g.tiers).toEqual([
      { up_to: 10, unit_amount: 100, flat_amount: 0 },
      { up_to: null, unit_amount: 50, flat_amount: 500 },
    ]);
    await fails(
      s,
      'POST',
      '/prices',
      {
        product: p.id,
        currency: 'usd',
        billing_scheme: 'tiered',
        tiers_mode: 'volume',
        recurring: { interval: 'month' },
        tiers: [{ up_to: 10, unit_amount: 1 }],
      },
      400,
      'parameter_invalid',
    );
    await fails(
      s,
      'POST',
      '/prices',
      {
        product: p.id,
        currency: 'usd',
        billing_scheme: 'tiered',
        recurring: { interval: 'month' },
        tiers: [{ up_to: 'inf', unit_amount: 1 }],
      },
      400,
      'parameter_missing',
    );
    await fails(
      s,
      'POST',
      '/prices',
      {
        product: p.id,
        currency: 'usd',
        billing_scheme: 'tiered',
        tiers_mode: 'volume',
        recurring: { interval: 'month' },
        tiers: [
          { up_to: 5, unit_amount: 1 },
          { up_to: 3, unit_amount: 1 },
          { up_to: 'inf', unit_amount: 1 },
        ],
      },
      400,
      'parameter_invalid',
    );
  });

  it('lists with type/product/active/currency filters and updates nickname/active/metadata only', async () => {
    const p = await product(s, 'Filter');
    const a = await ok(s, 'POST', '/prices', { product: p.id, currency: 'gbp', unit_amount: 1 });
    const b = await ok(s, 'POST', '/prices', {
      product: p.id,
      currency: 'gbp',
      unit_amount: 2,
      recurring: { interval: 'week' },
    });
    const byProduct = await ok<List<Price>>(s, 'GET', `/prices?product=${p.id}`);
    expect(byProduct.total_count).toBe(2);
    expect(byProduct.data.map((x) => x.id)).toEqual([b.id, a.id]);
    expect((await ok<List<Price>>(s, 'GET', `/prices?product=${p.id}&type=recurring`)).data.map((x) => x.id)).toEqual([
      b.id,
    ]);
    expect(
      (await ok<List<Price>>(s, 'GET', `/prices?product=${p.id}&currency=GBP&type=one_time`)).data.map((x) => x.id),
    ).toEqual([a.id]);
    const off = await ok(s, 'PATCH', `/prices/${a.id}`, { active: false, nickname: 'old', metadata: { k: 'v' } });
    expect(off).toMatchObject({ active: false, nickname: 'old', metadata: { k: 'v' }, unit_amount: 1 });
    expect((await ok<List<Price>>(s, 'GET', `/prices?product=${p.id}&active=false`)).data.map((x) => x.id)).toEqual([
      a.id,
    ]);
    expect((await ok<List<Price>>(s, 'GET', `/prices?product=${p.id}&active=true`)).data.map((x) => x.id)).toEqual([
      b.id,
    ]);
    await fails(s, 'PATCH', `/prices/${a.id}`, { unit_amount: 5 }, 400, 'parameter_unknown');
    await fails(s, 'GET', '/prices?type=weekly', undefined, 400, 'parameter_invalid');
  });
});

describe('coupons', () => {
  it('follows the §9 rules', async () => {
    await fails(s, 'POST', '/coupons', { duration: 'once' }, 400, 'parameter_missing');
    await fails(s, 'POST', '/coupons', { percent_off: 10, amount_off: 100, currency: 'usd' }, 400, 'parameter_invalid');
    await fails(s, 'POST', '/coupons', { amount_off: 100 }, 400, 'parameter_missing');
    await fails(s, 'POST', '/coupons', { percent_off: 0 }, 400, 'parameter_invalid');
    await fails(s, 'POST', '/coupons', { percent_off: 101 }, 400, 'parameter_invalid');
    await fails(s, 'POST', '/coupons', { percent_off: 10, duration: 'repeating' }, 400, 'parameter_missing');
    await fails(
      s,
      'POST',
      '/coupons',
      { percent_off: 10, duration: 'forever', duration_in_months: 3 },
      400,
      'parameter_invalid',
    );
    const c = await ok(
      s,
      'POST',
      '/coupons',
      { percent_off: 25, duration: 'repeating', duration_in_months: 3, name: 'Quarter off' },
      201,
    );
    expect(c).toMatchObject({
      object: 'coupon',
      percent_off: 25,
      amount_off: null,
      currency: null,
      duration: 'repeating',
      duration_in_months: 3,
      times_redeemed: 0,
      valid: true,
    });
    const amt = await ok(s, 'POST', '/coupons', { id: 'SAVE5', amount_off: 500, currency: 'usd', duration: 'forever' });
    expect(amt).toMatchObject({ id: 'SAVE5', amount_off: 500, currency: 'USD' });
    await fails(s, 'POST', '/coupons', { id: 'SAVE5', percent_off: 5 }, 409, 'resource_exists');
    expect((await ok(s, 'GET', '/coupons/SAVE5')).id).toBe('SAVE5');
    const list = await ok<List<Coupon>>(s, 'GET', '/coupons');
    expect(list.data.map((x) => x.id)).toEqual(expect.arrayContaining(['SAVE5', c.id]));
    expect(await ok(s, 'DELETE', '/coupons/SAVE5')).toEqual({ id: 'SAVE5', object: 'coupon', deleted: true });
    await fails(s, 'GET', '/coupons/SAVE5', undefined, 404, 'resource_missing');
  });

  it('is invalid once max_redemptions is reached or redeem_by has passed', async () => {
    const cus = await customer(s);
    const p = await product(s);
    const price = await ok(s, 'POST', '/prices', {
      product: p.id,
      currency: 'usd',
      unit_amount: 1000,
      recurring: { interval: 'month' },
    });
    const one = await ok(s, 'POST', '/coupons', { id: 'ONCEONLY', percent_off: 50, max_redemptions: 1 });
    await ok(s, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }], coupon: one.id });
    const after = await ok(s, 'GET', '/coupons/ONCEONLY');
    expect(after).toMatchObject({ times_redeemed: 1, valid: false });
    await fails(
      s,
      'POST',
      '/subscriptions',
      { customer: cus.id, items: [{ price: price.id }], coupon: one.id },
      400,
      'coupon_invalid',
    );
    const now = (await ok(s, 'GET', '/test-helpers/clock')).now;
    const soon = await ok(s, 'POST', '/coupons', { percent_off: 10, redeem_by: now + 3600 });
    expect(soon.valid).toBe(true);
    await fails(s, 'POST', '/coupons', { percent_off: 10, redeem_by: now - 10 }, 400, 'parameter_invalid');
    await ok(s, 'POST', '/test-helpers/advance-clock', { seconds: 7200 });
    expect((await ok(s, 'GET', `/coupons/${soon.id}`)).valid).toBe(false);
    const eur = await ok(s, 'POST', '/coupons', { amount_off: 100, currency: 'eur' });
    await fails(
      s,
      'POST',
      '/subscriptions',
      { customer: cus.id, items: [{ price: price.id }], coupon: eur.id },
      400,
      'coupon_invalid',
    );
  });

  it('sending the coupon already applied again keeps that discount: no second redemption, no new start', async () => {
    const cus = await customer(s);
    const p = await product(s);
    const monthly = await ok(s, 'POST', '/prices', {
      product: p.id,
      currency: 'usd',
      unit_amount: 1000,
      recurring: { interval: 'month' },
    });
    const oneTime = await ok(s, 'POST', '/prices', { product: p.id, currency: 'usd', unit_amount: 1000 });
    // invoice: a coupon of one redemption stays applicable to the draft that holds it
    const single = await ok(s, 'POST', '/coupons', { percent_off: 10, max_redemptions: 1 });
    const inv = await ok(
      s,
      'POST',
      '/invoices',
      { customer: cus.id, lines: [{ price: oneTime.id }], coupon: single.id },
      201,
    );
    const again = await ok(s, 'PATCH', `/invoices/${inv.id}`, { coupon: single.id });
    expect(again).toMatchObject({ discount_amount: 100, total: 900 });
    expect(again.discount).toEqual(inv.discount);
    expect((await ok(s, 'GET', `/coupons/${single.id}`)).times_redeemed).toBe(1);
    // subscription: re-sending a repeating coupon neither counts again nor restarts its months
    const rep = await ok(s, 'POST', '/coupons', { percent_off: 20, duration: 'repeating', duration_in_months: 1 });
    const sub = await ok(
      s,
      'POST',
      '/subscriptions',
      { customer: cus.id, items: [{ price: monthly.id }], coupon: rep.id },
      201,
    );
    await ok(s, 'POST', '/test-helpers/advance-clock', { seconds: 10 * 86_400 });
    const patched = await ok(s, 'PATCH', `/subscriptions/${sub.id}`, { coupon: rep.id });
    expect(patched.discount).toEqual(sub.discount);
    expect((await ok(s, 'GET', `/coupons/${rep.id}`)).times_redeemed).toBe(1);
    // another coupon, or the same one after removing it, is a new redemption
    await ok(s, 'PATCH', `/subscriptions/${sub.id}`, { coupon: '' });
    const renewed = await ok(s, 'PATCH', `/subscriptions/${sub.id}`, { coupon: rep.id });
    expect(renewed.discount.start).toBeGreaterThan(sub.discount.start);
    expect((await ok(s, 'GET', `/coupons/${rep.id}`)).times_redeemed).toBe(2);
  });

  it('validates caller-chosen ids', async () => {
    const other = await ok(s, 'POST', '/coupons', { id: 'SHARED', percent_off: 5 });
    expect(other.id).toBe('SHARED');
    await fails(s, 'POST', '/coupons', { id: 'bad id!', percent_off: 5 }, 400, 'parameter_invalid');
    const e = await fails(
      s,
      'POST',
      '/coupons',
      { percent_off: 5, applies_to: { products: ['prod_missing'] } },
      404,
      'resource_missing',
    );
    expect(e.param).toBe('applies_to.products[0]');
  });
});
