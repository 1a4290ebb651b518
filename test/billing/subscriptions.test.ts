// Subscriptions: create rules, update (quantity, items, cancel_at_period_end, coupon) with prorations,
// cancel, pause/resume, subscription items, usage records with the four aggregate modes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type List, type TestServer } from '../helpers/server.js';
import type { Invoice, Price, Subscription, UsageSummary } from '../../dist/lib/contract/billing.js';
import { advance, customer, DAY, fails, monthlyPrice, ok, product } from './helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

async function setup(pm: string | null = 'tok_visa') {
  const cus = await customer(s, pm);
  const prod = await product(s, 'Seats');
  const price = await monthlyPrice(s, prod.id, 1000);
  return { cus, prod, price };
}

describe('create', () => {
  it('charges the first invoice at once → active', async () => {
    const { cus, price } = await setup();
    const sub = await ok<Subscription>(
      s,
      'POST',
      '/subscriptions',
      { customer: cus.id, items: [{ price: price.id, quantity: 2 }], metadata: { plan: 'a' } },
      201,
    );
    expect(sub).toMatchObject({
      object: 'subscription',
      status: 'active',
      customer: cus.id,
      currency: 'USD',
      trial_start: null,
      trial_end: null,
      metadata: { plan: 'a' },
    });
    expect(sub.id).toMatch(/^sub_/);
    expect(sub.items).toMatchObject({ object: 'list' });
    expect(sub.items.data[0]).toMatchObject({
      object: 'subscription_item',
      quantity: 2,
      price: { id: price.id, unit_amount: 1000, currency: 'USD', recurring: { interval: 'month', interval_count: 1 } },
    });
    expect(sub.items.data[0].id).toMatch(/^si_/);
    const inv = await ok<Invoice>(s, 'GET', `/invoices/${sub.latest_invoice}`);
    expect(inv).toMatchObject({
      status: 'paid',
      total: 2000,
      amount_paid: 2000,
      subscription: sub.id,
      customer: cus.id,
      billing_reason: 'subscription_create',
      period_start: sub.current_period_start,
      period_end: sub.current_period_end,
    });
    expect(inv.number).toMatch(/^INV-\d{6}$/);
    expect(inv.lines.data[0]).toMatchObject({
      object: 'line_item',
      amount: 2000,
      quantity: 2,
      period: { start: sub.current_period_start, end: sub.current_period_end },
    });
  });

  it('validates customer, items, prices and trial', async () => {
    const { cus, prod, price } = await setup();
    await fails(s, 'POST', '/subscriptions', { items: [{ price: price.id }] }, 400, 'parameter_missing');
    await fails(s, 'POST', '/subscriptions', { customer: cus.id }, 400, 'parameter_missing');
    await fails(s, 'POST', '/subscriptions', { customer: cus.id, items: [] }, 400, 'parameter_invalid');
    await fails(
      s,
      'POST',
      '/subscriptions',
      { customer: 'cus_missing', items: [{ price: price.id }] },
      404,
      'resource_missing',
    );
    await fails(
      s,
      'POST',
      '/subscriptions',
      { customer: cus.id, items: [{ price: 'price_missing' }] },
      404,
      'resource_missing',
    );
    const oneTime = await ok(s, 'POST', '/prices', { product: prod.id, currency: 'usd', unit_amount: 5 });
    const e = await fails(
      s,
      'POST',
      '/subscriptions',
      { customer: cus.id, items: [{ price: oneTime.id }] },
      400,
      'parameter_invalid',
    );
    expect(e.param).toBe('items[0].price');
    const eur = await ok(s, 'POST', '/prices', {
      product: prod.id,
      currency: 'eur',
      unit_amount: 5,
      recurring: { interval: 'month' },
    });
    await fails(
      s,
      'POST',
      '/subscriptions',
      { customer: cus.id, items: [{ price: price.id }, { price: eur.id }] },
      400,
      'parameter_invalid',
    );
    const yearly = await ok(s, 'POST', '/prices', {
      product: prod.id,
      currency: 'usd',
      unit_amount: 5,
      recurring: { interval: 'year' },
    });
    await fails(
      s,
      'POST',
      '/subscriptions',
      { customer: cus.id, items: [{ price: price.id }, { price: yearly.id }] },
      400,
      'parameter_invalid',
    );
    const inactive = await monthlyPrice(s, prod.id, 7);
    await ok(s, 'PATCH', `/prices/${inactive.id}`, { active: false });
    await fails(
      s,
      'POST',
      '/subscriptions',
      { customer: cus.id, items: [{ price: inactive.id }] },
      400,
      'parameter_invalid',
    );
    await fails(
      s,
      'POST',
      '/subscriptions',
      { customer: cus.id, items: [{ price: price.id }], trial_end: 1 },
      400,
      'parameter_invalid',
    );
    await fails(
      s,
      'POST',
      '/subscriptions',
      { customer: cus.id, items: [{ price: price.id }], days_until_due: 3 },
      400,
      'parameter_invalid',
    );
    // amounts stay exact: a line beyond 99 999 999 999 minor units is refused up front
    const dear = await ok(s, 'POST', '/prices', {
      product: prod.id,
      currency: 'usd',
      unit_amount: 99_999_999_999,
      recurring: { interval: 'month' },
    });
    const big = await fails(
      s,
      'POST',
      '/subscriptions',
      { customer: cus.id, items: [{ price: dear.id, quantity: 2 }] },
      400,
      'parameter_invalid',
    );
    expect(big.param).toBe('items[0].quantity');
  });

  it('a trial needs no payment method; billing_cycle_anchor prorates the first period', async () => {
    const { cus, price } = await setup(null);
    const trial = await ok<Subscription>(s, 'POST', '/subscriptions', {
      customer: cus.id,
      items: [{ price: price.id }],
      trial_period_days: 7,
    });
    expect(trial.status).toBe('trialing');
    // no payment method at trial end → the invoice fails → past_due
    await advance(s, { to: trial.trial_end! });
    const after = await ok<Subscription>(s, 'GET', `/subscriptions/${trial.id}`);
    expect(after.status).toBe('past_due');
    expect((await ok<Invoice>(s, 'GET', `/invoices/${after.latest_invoice}`)).last_payment_error!.code).toBe(
      'payment_method_missing',
    );

    const { cus: c2, price: p2 } = await setup();
    const now = (await ok(s, 'GET', '/test-helpers/clock')).now;
    const anchor = now + 10 * DAY;
    const sub = await ok<Subscription>(s, 'POST', '/subscriptions', {
      customer: c2.id,
      items: [{ price: p2.id, quantity: 3 }],
      billing_cycle_anchor: anchor,
    });
    expect(sub).toMatchObject({ status: 'active', billing_cycle_anchor: anchor, current_period_end: anchor });
    const inv = await ok<Invoice>(s, 'GET', `/invoices/${sub.latest_invoice}`);
    const d = new Date(anchor * 1000);
    const prevAnchor =
      Date.UTC(
        d.getUTCFullYear(),
        d.getUTCMonth() - 1,
        Math.min(d.getUTCDate(), new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 0)).getUTCDate()),
        d.getUTCHours(),
        d.getUTCMinutes(),
        d.getUTCSeconds(),
      ) / 1000;
    const expected = Math.round((3000 * (anchor - sub.current_period_start)) / (anchor - prevAnchor));
    expect(inv.total).toBe(expected);
    await fails(
      s,
      'POST',
      '/subscriptions',
      { customer: c2.id, items: [{ price: p2.id }], billing_cycle_anchor: now + 400 * DAY },
      400,
      'parameter_invalid',
    );
  });
});

describe('get, list, update', () => {
  it('lists with customer and status filters', async () => {
    const { cus, price } = await setup();
    const a = await ok<Subscription>(s, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }] });
    const b = await ok<Subscription>(s, 'POST', '/subscriptions', {
      customer: cus.id,
      items: [{ price: price.id }],
      trial_period_days: 3,
    });
    const all = await ok<List<Subscription>>(s, 'GET', `/subscriptions?customer=${cus.id}`);
    expect(all.data.map((x) => x.id)).toEqual([b.id, a.id]);
    expect(all.total_count).toBe(2);
    expect(
      (await ok<List<Subscription>>(s, 'GET', `/subscriptions?customer=${cus.id}&status=trialing`)).data.map(
        (x) => x.id,
      ),
    ).toEqual([b.id]);
    expect((await ok<Subscription>(s, 'GET', `/subscriptions/${a.id}`)).id).toBe(a.id);
    await fails(s, 'GET', '/subscriptions/sub_missing', undefined, 404, 'resource_missing');
    await fails(s, 'GET', '/subscriptions?status=happy', undefined, 400, 'parameter_invalid');
  });

  it('quantity changes create prorations on the next invoice', async () => {
    const { cus, price } = await setup();
    const sub = await ok<Subscription>(s, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }] });
    await advance(s, { seconds: 10 * DAY });
    const upd = await ok<Subscription>(s, 'PATCH', `/subscriptions/${sub.id}`, { quantity: 3 });
    expect(upd.items.data[0].quantity).toBe(3);
    await advance(s, { to: sub.current_period_end });
    const after = await ok<Subscription>(s, 'GET', `/subscriptions/${sub.id}`);
    const inv = await ok<Invoice>(s, 'GET', `/invoices/${after.latest_invoice}`);
    const len = sub.current_period_end - sub.current_period_start;
    const pr = inv.lines.data.filter((l) => l.type === 'proration');
    expect(pr).toHaveLength(2);
    const rem = pr[0].period.end - pr[0].period.start;
    expect(pr[0].amount).toBe(-Math.round((1000 * rem) / len));
    expect(pr[1].amount).toBe(Math.round((3000 * rem) / len));
    const cycle = inv.lines.data.find((l) => l.type === 'subscription');
    expect(cycle).toMatchObject({ amount: 3000, quantity: 3 });
    expect(inv.total).toBe(3000 + pr[0].amount + pr[1].amount);
    // proration_behavior none: nothing pending
    await ok<Subscription>(s, 'PATCH', `/subscriptions/${sub.id}`, { quantity: 1, proration_behavior: 'none' });
    await advance(s, { to: after.current_period_end });
    const inv2 = await ok<Invoice>(
      s,
      'GET',
      `/invoices/${(await ok<Subscription>(s, 'GET', `/subscriptions/${sub.id}`)).latest_invoice}`,
    );
    expect(inv2.lines.data.map((l) => l.type)).toEqual(['subscription']);
    expect(inv2.total).toBe(1000);
  });

  it('items: add, change price, remove; coupon; cancel_at_period_end', async () => {
    const { cus, prod, price } = await setup();
    const sub = await ok<Subscription>(s, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }] });
    const extra = await monthlyPrice(s, prod.id, 300);
    const bigger = await monthlyPrice(s, prod.id, 2500);
    let upd = await ok<Subscription>(s, 'PATCH', `/subscriptions/${sub.id}`, {
      items: [{ price: extra.id, quantity: 2 }],
      proration_behavior: 'none',
    });
    expect(upd.items.data.map((i) => [i.price.id, i.quantity])).toEqual([
      [price.id, 1],
      [extra.id, 2],
    ]);
    const first = upd.items.data[0].id;
    upd = await ok<Subscription>(s, 'PATCH', `/subscriptions/${sub.id}`, {
      items: [{ id: first, price: bigger.id }],
      proration_behavior: 'none',
    });
    expect(upd.items.data[0]).toMatchObject({ id: first, price: { id: bigger.id } });
    upd = await ok<Subscription>(s, 'PATCH', `/subscriptions/${sub.id}`, {
      items: [{ id: upd.items.data[1].id, deleted: true }],
      proration_behavior: 'none',
    });
    expect(upd.items.data).toHaveLength(1);
    await fails(
      s,
      'PATCH',
      `/subscriptions/${sub.id}`,
      { items: [{ id: first, deleted: true }] },
      400,
      'subscription_item_last',
    );
    await fails(
      s,
      'PATCH',
      `/subscriptions/${sub.id}`,
      { items: [{ id: 'si_missing', quantity: 2 }] },
      404,
      'resource_missing',
    );
    await fails(s, 'PATCH', `/subscriptions/${sub.id}`, { items: [{ price: bigger.id }] }, 400, 'parameter_invalid');
    const coupon = await ok(s, 'POST', '/coupons', { amount_off: 500, currency: 'usd', duration: 'once' });
    upd = await ok<Subscription>(s, 'PATCH', `/subscriptions/${sub.id}`, {
      coupon: coupon.id,
      cancel_at_period_end: true,
    });
    expect(upd.discount!.coupon).toMatchObject({ id: coupon.id, times_redeemed: 1 });
    expect(upd.cancel_at_period_end).toBe(true);
    upd = await ok<Subscription>(s, 'PATCH', `/subscriptions/${sub.id}`, { cancel_at_period_end: false });
    await advance(s, { to: sub.current_period_end });
    const renewed = await ok<Subscription>(s, 'GET', `/subscriptions/${sub.id}`);
    const inv = await ok<Invoice>(s, 'GET', `/invoices/${renewed.latest_invoice}`);
    expect(inv.total).toBe(2500 - 500);
    expect(inv.lines.data.find((l) => l.type === 'discount')!.amount).toBe(-500);
    // once: not on the following invoice
    await advance(s, { to: renewed.current_period_end });
    const next = await ok<Invoice>(
      s,
      'GET',
      `/invoices/${(await ok<Subscription>(s, 'GET', `/subscriptions/${sub.id}`)).latest_invoice}`,
    );
    expect(next.total).toBe(2500);
    const cleared = await ok<Subscription>(s, 'PATCH', `/subscriptions/${sub.id}`, { coupon: '' });
    expect(cleared.discount).toBeNull();
  });
});

describe('cancel, pause, resume', () => {
  it('cancels now, and 409s afterwards', async () => {
    const { cus, price } = await setup();
    const sub = await ok<Subscription>(s, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }] });
    const c = await ok(s, 'POST', `/subscriptions/${sub.id}/cancel`, {});
    expect(c).toMatchObject({ status: 'canceled', cancel_at_period_end: false });
    expect(c.canceled_at).toBe(c.ended_at);
    await fails(s, 'POST', `/subscriptions/${sub.id}/cancel`, {}, 409, 'subscription_unexpected_state');
    await fails(s, 'PATCH', `/subscriptions/${sub.id}`, { quantity: 2 }, 409, 'subscription_unexpected_state');
    await fails(s, 'POST', `/subscriptions/${sub.id}/pause`, {}, 409, 'subscription_unexpected_state');
    await advance(s, { to: sub.current_period_end + 60 });
    expect((await ok(s, 'GET', `/invoices?subscription=${sub.id}`)).total_count).toBe(1);
  });

  it('cancels at period end: no renewal, canceled at the end', async () => {
    const { cus, price } = await setup();
    const sub = await ok<Subscription>(s, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }] });
    const c = await ok(s, 'POST', `/subscriptions/${sub.id}/cancel`, { at_period_end: true });
    expect(c).toMatchObject({ status: 'active', cancel_at_period_end: true, ended_at: null });
    await advance(s, { to: sub.current_period_end });
    const ended = await ok<Subscription>(s, 'GET', `/subscriptions/${sub.id}`);
    expect(ended).toMatchObject({ status: 'canceled', ended_at: sub.current_period_end });
    expect((await ok(s, 'GET', `/invoices?subscription=${sub.id}`)).total_count).toBe(1);
  });

  it('pauses (no renewals) and resumes with a new period and invoice', async () => {
    const { cus, price } = await setup();
    const sub = await ok<Subscription>(s, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }] });
    await fails(s, 'POST', `/subscriptions/${sub.id}/resume`, {}, 409, 'subscription_unexpected_state');
    const p = await ok(s, 'POST', `/subscriptions/${sub.id}/pause`, {});
    expect(p.status).toBe('paused');
    await fails(s, 'POST', `/subscriptions/${sub.id}/pause`, {}, 409, 'subscription_unexpected_state');
    await advance(s, { to: sub.current_period_end + 5 * DAY });
    expect((await ok(s, 'GET', `/invoices?subscription=${sub.id}`)).total_count).toBe(1);
    const r = await ok(s, 'POST', `/subscriptions/${sub.id}/resume`, {});
    expect(r.status).toBe('active');
    expect(r.billing_cycle_anchor).toBeGreaterThanOrEqual(sub.current_period_end + 5 * DAY);
    expect(r.current_period_start).toBe(r.billing_cycle_anchor);
    const inv = await ok<Invoice>(s, 'GET', `/invoices/${r.latest_invoice}`);
    expect(inv).toMatchObject({ billing_reason: 'subscription_resume', status: 'paid', total: 1000 });
  });
});

describe('subscription items', () => {
  it('add, get, update quantity, list, remove (not the last)', async () => {
    const { cus, prod, price } = await setup();
    const sub = await ok<Subscription>(s, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }] });
    const other = await monthlyPrice(s, prod.id, 400);
    const item = await ok(
      s,
      'POST',
      '/subscription-items',
      { subscription: sub.id, price: other.id, quantity: 2 },
      201,
    );
    expect(item).toMatchObject({
      object: 'subscription_item',
      subscription: sub.id,
      quantity: 2,
      price: { id: other.id },
    });
    expect((await ok(s, 'GET', `/subscription-items/${item.id}`)).id).toBe(item.id);
    const upd = await ok(s, 'PATCH', `/subscription-items/${item.id}`, { quantity: 5 });
    expect(upd.quantity).toBe(5);
    const list = await ok(s, 'GET', `/subscription-items?subscription=${sub.id}`);
    expect(list.total_count).toBe(2);
    expect(await ok(s, 'DELETE', `/subscription-items/${item.id}`)).toEqual({
      id: item.id,
      object: 'subscription_item',
      deleted: true,
    });
    await fails(s, 'DELETE', `/subscription-items/${sub.items.data[0].id}`, undefined, 400, 'subscription_item_last');
    await fails(s, 'GET', `/subscription-items/${item.id}`, undefined, 404, 'resource_missing');
    await fails(s, 'GET', '/subscription-items', undefined, 400, 'parameter_missing');
    // prorations of the added item (5 × 400 for the rest of the period) and of its removal cancel out on the next invoice
    await advance(s, { to: sub.current_period_end });
    const inv = await ok<Invoice>(
      s,
      'GET',
      `/invoices/${(await ok<Subscription>(s, 'GET', `/subscriptions/${sub.id}`)).latest_invoice}`,
    );
    expect(inv.total).toBe(
      1000 + inv.lines.data.filter((l) => l.type === 'proration').reduce((a: number, l) => a + l.amount, 0),
    );
  });
});

describe('usage records', () => {
  it('increment/set and the four aggregate modes, billed in arrears', async () => {
    const cus = await customer(s);
    const prod = await product(s, 'Metered');
    const modes = ['sum', 'last_during_period', 'last_ever', 'max'] as const;
    const prices: Record<string, Price> = {};
    for (const m of modes)
      prices[m] = await ok<Price>(s, 'POST', '/prices', {
        product: prod.id,
        currency: 'usd',
        unit_amount: 10,
        recurring: { interval: 'month', usage_type: 'metered', aggregate_usage: m },
      });
    const sub = await ok<Subscription>(s, 'POST', '/subscriptions', {
      customer: cus.id,
      items: modes.map((m) => ({ price: prices[m].id })),
    });
    expect((await ok<Invoice>(s, 'GET', `/invoices/${sub.latest_invoice}`)).total).toBe(0);
    const item = (m: string) => sub.items.data.find((i) => i.price.id === prices[m].id)!.id;
    for (const m of modes) {
      await ok(s, 'POST', '/usage-records', { subscription_item: item(m), quantity: 5 });
    }
    await advance(s, { seconds: 60 });
    const now = (await ok(s, 'GET', '/test-helpers/clock')).now;
    for (const m of modes) {
      const r = await ok(s, 'POST', '/usage-records', { subscription_item: item(m), quantity: 3, timestamp: now }, 201);
      expect(r).toMatchObject({ object: 'usage_record', quantity: 3, action: 'increment', subscription_item: item(m) });
      expect(r.id).toMatch(/^ur_/);
    }
    // set replaces the usage at its timestamp; increment at the same timestamp adds
    const set = await ok(s, 'POST', '/usage-records', {
      subscription_item: item('sum'),
      quantity: 4,
      timestamp: now,
      action: 'set',
    });
    expect(set.quantity).toBe(4);
    const inc = await ok(s, 'POST', '/usage-records', { subscription_item: item('sum'), quantity: 1, timestamp: now });
    expect(inc.quantity).toBe(5);
    await fails(
      s,
      'POST',
      '/usage-records',
      { subscription_item: item('sum'), quantity: 1, timestamp: now + 3600 },
      400,
      'parameter_invalid',
    );
    await fails(
      s,
      'POST',
      '/usage-records',
      { subscription_item: item('sum'), quantity: 1, timestamp: sub.current_period_start - 10 },
      400,
      'parameter_invalid',
    );
    await fails(s, 'POST', '/usage-records', { subscription_item: 'si_missing', quantity: 1 }, 404, 'resource_missing');
    await fails(
      s,
      'POST',
      '/usage-records',
      { subscription_item: item('sum'), quantity: -1 },
      400,
      'parameter_invalid',
    );
    const licensed = await setup();
    const lsub = await ok<Subscription>(s, 'POST', '/subscriptions', {
      customer: licensed.cus.id,
      items: [{ price: licensed.price.id }],
    });
    await fails(
      s,
      'POST',
      '/usage-records',
      { subscription_item: lsub.items.data[0].id, quantity: 1 },
      400,
      'usage_type_not_metered',
    );

    const summary = await ok<List<UsageSummary>>(s, 'GET', `/usage-records/summary?subscription_item=${item('sum')}`);
    expect(summary.data[0]).toMatchObject({
      object: 'usage_record_summary',
      total_usage: 10,
      period: { start: sub.current_period_start, end: sub.current_period_end },
      invoice: null,
    });

    await advance(s, { to: sub.current_period_end });
    const inv1 = await ok<Invoice>(
      s,
      'GET',
      `/invoices/${(await ok<Subscription>(s, 'GET', `/subscriptions/${sub.id}`)).latest_invoice}`,
    );
    const qty = (inv: Invoice, m: string) => inv.lines.data.find((l) => l.price?.id === prices[m].id)!.quantity;
    expect(modes.map((m) => qty(inv1, m))).toEqual([10, 3, 3, 5]);
    expect(inv1.total).toBe((10 + 3 + 3 + 5) * 10);
    const sub2 = await ok<Subscription>(s, 'GET', `/subscriptions/${sub.id}`);
    await advance(s, { to: sub2.current_period_end });
    const inv2 = await ok<Invoice>(
      s,
      'GET',
      `/invoices/${(await ok<Subscription>(s, 'GET', `/subscriptions/${sub.id}`)).latest_invoice}`,
    );
    // no usage in the second period: only last_ever carries the last value over
    expect(modes.map((m) => qty(inv2, m))).toEqual([0, 0, 3, 0]);
    expect(inv2.total).toBe(30);
    const after = await ok<List<UsageSummary>>(s, 'GET', `/usage-records/summary?subscription_item=${item('sum')}`);
    expect(after.data.map((x) => x.total_usage)).toEqual([0, 0, 10]);
    expect(after.data[2].invoice).toBe(inv1.id);
  });
});
