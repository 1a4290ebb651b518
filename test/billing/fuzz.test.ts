// Random bodies and queries on every billing write and list: always the contract's error body, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { customer, ok, product } from './helpers.js';

let s: TestServer;
let ids: Record<string, string>;
beforeAll(async () => {
  s = await startTestServer();
  const cus = await customer(s);
  const prod = await product(s);
  const price = await ok(s, 'POST', '/prices', {
    product: prod.id,
    currency: 'usd',
    unit_amount: 100,
    recurring: { interval: 'month' },
  });
  const metered = await ok(s, 'POST', '/prices', {
    product: prod.id,
    currency: 'usd',
    unit_amount: 1,
    recurring: { interval: 'month', usage_type: 'metered' },
  });
  const sub = await ok(s, 'POST', '/subscriptions', {
    customer: cus.id,
    items: [{ price: price.id }, { price: metered.id }],
  });
  const inv = await ok(s, 'POST', '/invoices', { customer: cus.id, currency: 'usd' });
  ids = {
    cus: cus.id,
    prod: prod.id,
    price: price.id,
    metered: metered.id,
    sub: sub.id,
    si: sub.items.data[1].id,
    inv: inv.id,
  };
});
afterAll(() => s.close());

// Values that look like what the fields take, mixed with wrong types and edge numbers.
const value = fc.oneof(
  fc.constantFrom(
    0,
    1,
    -1,
    100,
    1.5,
    2 ** 53,
    1e308,
    '',
    'usd',
    'month',
    'metered',
    'tiered',
    'graduated',
    'inf',
    'send_invoice',
    'tok_visa',
    'tok_chargeDeclined',
    null,
    true,
    false,
    [],
    {},
  ),
  fc.integer(),
  fc.string({ maxLength: 8 }),
);
const idValue = () => fc.constantFrom(...Object.values(ids), 'x_missing');
const body = (fields: string[]) =>
  fc.dictionary(
    fc.constantFrom(...fields),
    fc.oneof(
      value,
      idValue(),
      fc.array(
        fc.oneof(
          fc.dictionary(
            fc.constantFrom('price', 'quantity', 'id', 'deleted', 'up_to', 'unit_amount', 'amount'),
            fc.oneof(value, idValue()),
          ),
          value,
        ),
        { maxLength: 3 },
      ),
      fc.dictionary(
        fc.constantFrom('interval', 'usage_type', 'aggregate_usage', 'interval_count', 'products', 'name'),
        value,
      ),
    ),
    { maxKeys: 5 },
  );

const targets: { method: string; path: () => string; fields: string[] }[] = [
  {
    method: 'POST',
    path: () => '/customers',
    fields: ['email', 'name', 'default_payment_method', 'tax_ids', 'metadata', 'billing_address'],
  },
  { method: 'POST', path: () => '/products', fields: ['name', 'active', 'images', 'metadata'] },
  { method: 'PATCH', path: () => `/products/${ids.prod}`, fields: ['is_active', 'default_price', 'name', 'images'] },
  {
    method: 'POST',
    path: () => '/prices',
    fields: [
      'product',
      'currency',
      'unit_amount',
      'recurring',
      'billing_scheme',
      'tiers',
      'tiers_mode',
      'product_data',
    ],
  },
  {
    method: 'POST',
    path: () => '/coupons',
    fields: [
      'id',
      'percent_off',
      'amount_off',
      'currency',
      'duration',
      'duration_in_months',
      'redeem_by',
      'max_redemptions',
      'applies_to',
    ],
  },
  {
    method: 'POST',
    path: () => '/subscriptions',
    fields: [
      'customer',
      'items',
      'trial_period_days',
      'trial_end',
      'billing_cycle_anchor',
      'collection_method',
      'days_until_due',
      'coupon',
    ],
  },
  {
    method: 'PATCH',
    path: () => `/subscriptions/${ids.sub}`,
    fields: [
      'quantity',
      'items',
      'coupon',
      'cancel_at_period_end',
      'proration_behavior',
      'collection_method',
      'days_until_due',
    ],
  },
  { method: 'POST', path: () => '/subscription-items', fields: ['subscription', 'price', 'quantity'] },
  { method: 'POST', path: () => '/usage-records', fields: ['subscription_item', 'quantity', 'timestamp', 'action'] },
  {
    method: 'POST',
    path: () => '/invoices',
    fields: ['customer', 'currency', 'lines', 'collection_method', 'days_until_due', 'coupon'],
  },
  {
    method: 'PATCH',
    path: () => `/invoices/${ids.inv}`,
    fields: ['lines', 'coupon', 'collection_method', 'days_until_due'],
  },
  { method: 'POST', path: () => `/invoices/${ids.inv}/pay`, fields: ['payment_method', 'paid_out_of_band'] },
  {
    method: 'POST',
    path: () => '/checkout-sessions',
    fields: ['mode', 'line_items', 'customer', 'customer_email', 'trial_period_days'],
  },
  { method: 'POST', path: () => '/portal-sessions', fields: ['customer', 'return_url'] },
];

describe('billing fuzz', () => {
  it('never answers 5xx and always the error body', async () => {
    for (const t of targets) {
      await fc.assert(
        fc.asyncProperty(body(t.fields), async (b) => {
          const r = await s.request(t.method, t.path(), { body: b });
          expect(r.status, `${t.method} ${t.path()} ${JSON.stringify(b)} → ${r.text}`).toBeLessThan(500);
          if (r.status >= 400)
            expect(r.body.error).toMatchObject({
              type: expect.any(String),
              code: expect.any(String),
              message: expect.any(String),
            });
        }),
        { numRuns: 40 },
      );
    }
  });

  it('list queries with random filters never 5xx', async () => {
    const q = fc.dictionary(
      fc.constantFrom(
        'limit',
        'starting_after',
        'ending_before',
        'email',
        'type',
        'product',
        'active',
        'currency',
        'customer',
        'status',
        'subscription',
        'expand',
        'subscription_item',
      ),
      fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('true', '0', '101', ...Object.values(ids))),
      { maxKeys: 3 },
    );
    for (const path of [
      '/customers',
      '/products',
      '/prices',
      '/coupons',
      '/subscriptions',
      '/invoices',
      '/subscription-items',
      '/usage-records/summary',
      '/checkout-sessions',
    ]) {
      await fc.assert(
        fc.asyncProperty(q, async (query) => {
          const r = await s.request('GET', `${path}?${new URLSearchParams(query)}`);
          expect(r.status, `${path} ${JSON.stringify(query)} → ${r.text}`).toBeLessThan(500);
        }),
        { numRuns: 40 },
      );
    }
  });
});
