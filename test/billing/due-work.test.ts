// Billing's due work on the test clock: a year of monthly renewals with a trial, a coupon and metered usage
// checked to the cent; dunning to unpaid; send_invoice due dates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type List, type TestServer } from '../helpers/server.js';
import type { Invoice, Subscription, UsageSummary } from '../../dist/lib/contract/billing.js';
import { advance, clock, customer, DAY, fails, ok, product } from './helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

/** Independent month arithmetic: same day of month (clamped to the month's end), same time of day, UTC. */
function addMonthsUtc(unix: number, months: number): number {
  const d = new Date(unix * 1000);
  const target = new Date(
    Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()),
  );
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), last));
  return target.getTime() / 1000;
}

describe('a year of monthly renewals', () => {
  it('bills trial, coupon and metered usage exactly to the cent', async () => {
    const cus = await customer(s, 'tok_visa');
    const prod = await product(s, 'Team plan');
    const api = await product(s, 'API calls');
    const seat = await ok(s, 'POST', '/prices', {
      product: prod.id,
      currency: 'usd',
      unit_amount: 2000,
      recurring: { interval: 'month' },
    });
    // graduated metered price: first 100 calls at 3¢, the rest at 2¢ plus a 150 flat fee once past 100
    const calls = await ok(s, 'POST', '/prices', {
      product: api.id,
      currency: 'usd',
      billing_scheme: 'tiered',
      tiers_mode: 'graduated',
      recurring: { interval: 'month', usage_type: 'metered', aggregate_usage: 'sum' },
      tiers: [
        { up_to: 100, unit_amount: 3 },
        { up_to: 'inf', unit_amount: 2, flat_amount: 150 },
      ],
    });
    const coupon = await ok(s, 'POST', '/coupons', {
      percent_off: 25,
      duration: 'repeating',
      duration_in_months: 3,
      name: 'Launch',
    });
    const t0 = await clock(s);
    let sub = await ok<Subscription>(
      s,
      'POST',
      '/subscriptions',
      {
        customer: cus.id,
        items: [{ price: seat.id, quantity: 2 }, { price: calls.id }],
        trial_period_days: 14,
        coupon: coupon.id,
      },
      201,
    );
    expect(sub).toMatchObject({
      status: 'trialing',
      latest_invoice: null,
      cancel_at_period_end: false,
      collection_method: 'charge_automatically',
    });
    expect(sub.trial_end! - sub.trial_start!).toBe(14 * DAY);
    expect(sub.current_period_end).toBe(sub.trial_end);
    expect(sub.discount!.coupon.id).toBe(coupon.id);
    const t0s = sub.created;
    expect(t0s).toBeGreaterThanOrEqual(t0 - 1);
    const metered = sub.items.data.find((i) => i.price.id === calls.id)!;

    // usage during the trial is never billed
    await ok(s, 'POST', '/usage-records', { subscription_item: metered.id, quantity: 500 }, 201);

    const graduated = (q: number) => (q <= 100 ? q * 3 : 300 + 150 + (q - 100) * 2);
    const discountEnd = addMonthsUtc(t0s, 3);
    const usages = [0, 7, 120, 33, 101, 0, 999, 1, 50, 250, 100, 13];
    const expected: number[] = [];
    const anchor = sub.trial_end!;

    const run = await advance(s, { to: sub.trial_end! });
    expect(run.ran.map((r) => r.name)).toContain('subscription trial ends');
    sub = await ok<Subscription>(s, 'GET', `/subscriptions/${sub.id}`);
    expect(sub.status).toBe('active');
    expect(sub.billing_cycle_anchor).toBe(anchor);
    // invoice 1 (trial end): seats only, 25% off
    expected.push(4000 - Math.round(4000 * 0.25));

    for (let k = 1; k <= 11; k++) {
      expect(sub.current_period_start).toBe(addMonthsUtc(anchor, k - 1));
      expect(sub.current_period_end).toBe(addMonthsUtc(anchor, k));
      const u = usages[k]!;
      if (u > 0) {
        // two records: increment, then another increment a minute later
        const a = Math.floor(u / 2);
        await ok(s, 'POST', '/usage-records', { subscription_item: metered.id, quantity: a });
        await advance(s, { seconds: 60 });
        await ok(s, 'POST', '/usage-records', { subscription_item: metered.id, quantity: u - a, action: 'increment' });
      }
      await advance(s, { to: sub.current_period_end });
      sub = await ok<Subscription>(s, 'GET', `/subscriptions/${sub.id}`);
      const newStart = addMonthsUtc(anchor, k);
      const subtotal = 4000 + graduated(u);
      const off = newStart < discountEnd ? Math.round((subtotal * 25) / 100) : 0;
      expected.push(subtotal - off);
    }

    const invoices = (await ok<List<Invoice>>(s, 'GET', `/invoices?subscription=${sub.id}&limit=100`)).data.reverse();
    expect(invoices).toHaveLength(12);
    expect(invoices.map((i) => i.total)).toEqual(expected);
    expect(
      invoices.every((i) => i.status === 'paid' && i.paid && i.amount_paid === i.total && i.amount_remaining === 0),
    ).toBe(true);
    // numbers are sequential within the account
    const nums = invoices.map((i) => Number(i.number!.replace('INV-', '')));
    for (let i = 1; i < nums.length; i++) expect(nums[i]).toBe(nums[i - 1] + 1);
    // lines: seats in advance for the new period, usage in arrears for the one that ended
    const second = invoices[1];
    const seatLine = second.lines.data.find((l) => l.type === 'subscription');
    const usageLine = second.lines.data.find((l) => l.type === 'usage');
    expect(seatLine).toMatchObject({
      amount: 4000,
      quantity: 2,
      price: { id: seat.id, product: prod.id },
      period: { start: addMonthsUtc(anchor, 1), end: addMonthsUtc(anchor, 2) },
    });
    expect(usageLine).toMatchObject({
      amount: graduated(7),
      quantity: 7,
      period: { start: anchor, end: addMonthsUtc(anchor, 1) },
    });
    const disc = second.lines.data.find((l) => l.type === 'discount');
    expect(disc).toMatchObject({ amount: -Math.round(((4000 + 21) * 25) / 100), coupon: coupon.id, price: null });
    expect(second.subtotal).toBe(4021);
    expect(second.discount_amount).toBe(1005);
    expect(invoices[0].lines.data.some((l) => l.type === 'usage')).toBe(false);
    expect(invoices[3].lines.data.some((l) => l.type === 'discount')).toBe(false);
    // 12 invoices worth exactly the sum
    expect(invoices.reduce((a: number, i) => a + i.amount_paid, 0)).toBe(expected.reduce((a, b) => a + b, 0));

    // usage summaries per period, newest first
    const summary = await ok<List<UsageSummary>>(
      s,
      'GET',
      `/usage-records/summary?subscription_item=${metered.id}&limit=100`,
    );
    const totals = summary.data.map((x) => x.total_usage).reverse();
    expect(totals).toEqual([500, ...usages.slice(1), 0]);
    expect(summary.data[1].invoice).toBe(invoices[11].id);
    // pages of them follow the one rule of every list: both cursors, in both directions
    const ids = summary.data.map((x) => x.id);
    const pageUrl = (q: string) => `/usage-records/summary?subscription_item=${metered.id}&limit=3&${q}`;
    const after = await ok<List<UsageSummary>>(s, 'GET', pageUrl(`starting_after=${ids[4]}`));
    expect([after.data.map((x) => x.id), after.has_more]).toEqual([ids.slice(5, 8), true]);
    const before = await ok<List<UsageSummary>>(s, 'GET', pageUrl(`ending_before=${ids[4]}`));
    expect([before.data.map((x) => x.id), before.has_more]).toEqual([ids.slice(1, 4), true]);
    const first = await ok<List<UsageSummary>>(s, 'GET', pageUrl(`ending_before=${ids[2]}`));
    expect([first.data.map((x) => x.id), first.has_more]).toEqual([ids.slice(0, 2), false]);
    const last = await ok<List<UsageSummary>>(s, 'GET', pageUrl(`starting_after=${ids.at(-2)}`));
    expect([last.data.map((x) => x.id), last.has_more]).toEqual([ids.slice(-1), false]);
  });
});

describe('dunning', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());
  it('retries at +1, +3, +7 days, then invoice uncollectible and subscription unpaid', async () => {
    const cus = await customer(s, 'tok_chargeDeclined');
    const price = await ok(s, 'POST', '/prices', {
      product: (await product(s)).id,
      currency: 'usd',
      unit_amount: 1500,
      recurring: { interval: 'month' },
    });
    const sub = await ok(s, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }] }, 201);
    expect(sub.status).toBe('past_due');
    let inv = await ok(s, 'GET', `/invoices/${sub.latest_invoice}`);
    const t = inv.finalized_at;
    expect(inv).toMatchObject({
      status: 'open',
      attempt_count: 1,
      amount_due: 1500,
      amount_paid: 0,
      next_payment_attempt: t + DAY,
      billing_reason: 'subscription_create',
    });
    expect(inv.last_payment_error).toMatchObject({ code: 'card_declined', decline_code: 'generic_decline' }); // the engine's decline_code for tok_chargeDeclined

    let r = await advance(s, { to: t + DAY });
    expect(r.ran).toEqual([expect.objectContaining({ name: 'invoice payment retries', count: 1 })]);
    inv = await ok(s, 'GET', `/invoices/${inv.id}`);
    expect(inv).toMatchObject({ status: 'open', attempt_count: 2, next_payment_attempt: t + 3 * DAY });

    await advance(s, { to: t + 3 * DAY });
    inv = await ok(s, 'GET', `/invoices/${inv.id}`);
    expect(inv).toMatchObject({ status: 'open', attempt_count: 3, next_payment_attempt: t + 7 * DAY });
    expect((await ok(s, 'GET', `/subscriptions/${sub.id}`)).status).toBe('past_due');

    r = await advance(s, { to: t + 7 * DAY });
    expect(r.ran.map((x) => x.name)).toEqual(['invoice payment retries']);
    inv = await ok(s, 'GET', `/invoices/${inv.id}`);
    expect(inv).toMatchObject({ status: 'uncollectible', attempt_count: 4, next_payment_attempt: null });
    expect((await ok(s, 'GET', `/subscriptions/${sub.id}`)).status).toBe('unpaid');

    // nothing else happens to an unpaid subscription at its period end
    await advance(s, { to: sub.current_period_end + DAY });
    expect((await ok(s, 'GET', `/invoices?subscription=${sub.id}`)).total_count).toBe(1);

    // paying the invoice revives it; the missed renewal follows at once (charged to the new default card)
    await fails(s, 'POST', `/invoices/${inv.id}/pay`, {}, 402, 'card_declined');
    await ok(s, 'PATCH', `/customers/${cus.id}`, { default_payment_method: 'tok_visa' });
    const paid = await ok(s, 'POST', `/invoices/${inv.id}/pay`, {});
    expect(paid).toMatchObject({ status: 'paid', amount_paid: 1500, attempt_count: 6 });
    const revived = await ok(s, 'GET', `/subscriptions/${sub.id}`);
    expect(revived.status).toBe('active');
    expect(revived.current_period_start).toBe(sub.current_period_end);
    const renewal = await ok(s, 'GET', `/invoices/${revived.latest_invoice}`);
    expect(renewal).toMatchObject({ billing_reason: 'subscription_cycle', status: 'paid', total: 1500 });
  });

  it('is deterministic: the same calls give the same invoices', async () => {
    const shape = async () => {
      const cus = await customer(s, 'tok_chargeDeclined');
      const price = await ok(s, 'POST', '/prices', {
        product: (await product(s)).id,
        currency: 'usd',
        unit_amount: 999,
        recurring: { interval: 'week' },
      });
      const sub = await ok(s, 'POST', '/subscriptions', {
        customer: cus.id,
        items: [{ price: price.id, quantity: 3 }],
      });
      await advance(s, { seconds: 40 * DAY });
      const invs = (await ok<List<Invoice>>(s, 'GET', `/invoices?subscription=${sub.id}&limit=100`)).data.reverse();
      return {
        sub: (await ok(s, 'GET', `/subscriptions/${sub.id}`)).status,
        invs: invs.map((i) => [i.status, i.total, i.attempt_count, i.billing_reason]),
      };
    };
    const a = await shape();
    const b = await shape();
    expect(a).toEqual(b);
    expect(a.sub).toBe('unpaid');
  });
});

describe('send_invoice', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());
  it('starts active with an open invoice; open → past_due at the due date', async () => {
    const cus = await customer(s, null);
    const price = await ok(s, 'POST', '/prices', {
      product: (await product(s)).id,
      currency: 'usd',
      unit_amount: 5000,
      recurring: { interval: 'month' },
    });
    await fails(
      s,
      'POST',
      '/subscriptions',
      { customer: cus.id, items: [{ price: price.id }], collection_method: 'send_invoice' },
      400,
      'parameter_missing',
    );
    await fails(
      s,
      'POST',
      '/subscriptions',
      { customer: cus.id, items: [{ price: price.id }] },
      400,
      'payment_method_missing',
    );
    const sub = await ok(s, 'POST', '/subscriptions', {
      customer: cus.id,
      items: [{ price: price.id }],
      collection_method: 'send_invoice',
      days_until_due: 10,
    });
    expect(sub).toMatchObject({ status: 'active', days_until_due: 10 });
    let inv = await ok(s, 'GET', `/invoices/${sub.latest_invoice}`);
    expect(inv).toMatchObject({
      status: 'open',
      collection_method: 'send_invoice',
      attempt_count: 0,
      due_date: inv.finalized_at + 10 * DAY,
    });
    expect(inv.hosted_invoice_url).toBe(`${s.baseUrl}/invoice/${inv.id}`);
    const r = await advance(s, { to: inv.due_date });
    expect(r.ran.map((x) => x.name)).toEqual(['invoice due dates']);
    inv = await ok(s, 'GET', `/invoices/${inv.id}`);
    expect(inv.status).toBe('past_due');
    expect((await ok(s, 'GET', `/subscriptions/${sub.id}`)).status).toBe('past_due');
    await ok(s, 'POST', `/invoices/${inv.id}/pay`, { paid_out_of_band: true });
    expect((await ok(s, 'GET', `/subscriptions/${sub.id}`)).status).toBe('active');
  });
});
