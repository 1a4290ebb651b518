// Invoices: drafts, the §9 transitions (409 invoice_unexpected_state otherwise), sequential numbers,
// coupon discount lines, payment with a test card (402 on decline, the attempt is kept).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { customer, fails, monthlyPrice, ok, product } from './helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

async function draft(extra: Record<string, unknown> = {}) {
  const cus = await customer(s);
  const prod = await product(s, 'Consulting');
  const price = await ok(s, 'POST', '/prices', { product: prod.id, currency: 'usd', unit_amount: 12_345 });
  const inv = await ok(
    s,
    'POST',
    '/invoices',
    {
      customer: cus.id,
      lines: [
        { price: price.id, quantity: 2 },
        { amount: 55, description: 'Fee' },
      ],
      ...extra,
    },
    201,
  );
  return { cus, prod, price, inv };
}

describe('invoices', () => {
  it('creates a draft with lines and totals', async () => {
    const { inv, price, prod } = await draft({ description: 'March' });
    expect(inv).toMatchObject({
      object: 'invoice',
      status: 'draft',
      number: null,
      currency: 'USD',
      subtotal: 24_745,
      total: 24_745,
      amount_due: 24_745,
      amount_paid: 0,
      amount_remaining: 24_745,
      paid: false,
      tax: 0,
      description: 'March',
      billing_reason: 'manual',
      subscription: null,
    });
    expect(inv.id).toMatch(/^in_/);
    expect(inv.lines.data[0]).toMatchObject({
      object: 'line_item',
      amount: 24_690,
      quantity: 2,
      price: { id: price.id, product: prod.id },
    });
    expect(inv.lines.data[0].id).toMatch(/^il_/);
    expect(inv.lines.data[1]).toMatchObject({ amount: 55, price: null, description: 'Fee' });
    expect(inv.hosted_invoice_url).toBe(`${s.baseUrl}/invoice/${inv.id}`);
    await fails(s, 'POST', '/invoices', { customer: 'cus_missing', currency: 'usd' }, 404, 'resource_missing');
    await fails(s, 'POST', '/invoices', { customer: inv.customer }, 400, 'parameter_missing');
    await fails(
      s,
      'POST',
      '/invoices',
      { customer: inv.customer, currency: 'usd', collection_method: 'send_invoice' },
      400,
      'parameter_missing',
    );
  });

  it('follows the §9 transitions and answers 409 otherwise', async () => {
    const { inv } = await draft();
    const st = (code = 'invoice_unexpected_state') => code;
    await fails(s, 'POST', `/invoices/${inv.id}/pay`, {}, 409, st());
    await fails(s, 'POST', `/invoices/${inv.id}/void`, {}, 409, st());
    await fails(s, 'POST', `/invoices/${inv.id}/mark-uncollectible`, {}, 409, st());
    const open = await ok(s, 'POST', `/invoices/${inv.id}/finalize`, {});
    expect(open).toMatchObject({ status: 'open' });
    expect(open.number).toMatch(/^INV-\d{6}$/);
    expect(Number.isInteger(open.finalized_at)).toBe(true);
    await fails(s, 'POST', `/invoices/${inv.id}/finalize`, {}, 409, st());
    await fails(s, 'DELETE', `/invoices/${inv.id}`, undefined, 409, st());
    await fails(s, 'PATCH', `/invoices/${inv.id}`, { lines: [] }, 409, st());
    expect((await ok(s, 'PATCH', `/invoices/${inv.id}`, { metadata: { po: '42' } })).metadata).toEqual({ po: '42' });
    const unc = await ok(s, 'POST', `/invoices/${inv.id}/mark-uncollectible`, {});
    expect(unc.status).toBe('uncollectible');
    await fails(s, 'POST', `/invoices/${inv.id}/mark-uncollectible`, {}, 409, st());
    const paid = await ok(s, 'POST', `/invoices/${inv.id}/pay`, {});
    expect(paid).toMatchObject({ status: 'paid', paid: true, amount_paid: 24_745, amount_remaining: 0 });
    expect(Number.isInteger(paid.paid_at)).toBe(true);
    await fails(s, 'POST', `/invoices/${inv.id}/void`, {}, 409, st());
    await fails(s, 'POST', `/invoices/${inv.id}/pay`, {}, 409, st());
    await fails(s, 'POST', `/invoices/${inv.id}/mark-uncollectible`, {}, 409, st());

    const { inv: b } = await draft();
    await ok(s, 'POST', `/invoices/${b.id}/finalize`, {});
    const v = await ok(s, 'POST', `/invoices/${b.id}/void`, {});
    expect(v).toMatchObject({ status: 'void' });
    expect(Number.isInteger(v.voided_at)).toBe(true);
    for (const action of ['pay', 'void', 'mark-uncollectible', 'finalize'])
      await fails(s, 'POST', `/invoices/${b.id}/${action}`, {}, 409, st());

    const { inv: c } = await draft();
    await ok(s, 'POST', `/invoices/${c.id}/finalize`, {});
    await ok(s, 'POST', `/invoices/${c.id}/mark-uncollectible`, {});
    expect((await ok(s, 'POST', `/invoices/${c.id}/void`, {})).status).toBe('void');
    await fails(s, 'POST', '/invoices/in_missing/mark-uncollectible', {}, 404, 'resource_missing');
  });

  it('numbers finalized invoices sequentially; drafts can be edited and deleted', async () => {
    const { inv: a } = await draft();
    const { inv: b, price } = await draft();
    const upd = await ok(s, 'PATCH', `/invoices/${b.id}`, { lines: [{ price: price.id, quantity: 1 }] });
    expect(upd.total).toBe(12_345);
    const nb = (await ok(s, 'POST', `/invoices/${b.id}/finalize`, {})).number;
    const na = (await ok(s, 'POST', `/invoices/${a.id}/finalize`, {})).number;
    expect(Number(na.slice(4))).toBe(Number(nb.slice(4)) + 1);
    const { inv: c } = await draft();
    expect(await ok(s, 'DELETE', `/invoices/${c.id}`)).toEqual({ id: c.id, object: 'invoice', deleted: true });
    await fails(s, 'GET', `/invoices/${c.id}`, undefined, 404, 'resource_missing');
  });

  it('applies a coupon as a discount line, rounding half up', async () => {
    const coupon = await ok(s, 'POST', '/coupons', { percent_off: 15, name: 'Fifteen' });
    const { inv } = await draft({ coupon: coupon.id });
    // 15% of 24 745 = 3711.75 → 3712
    const line = inv.lines.data.find((l: any) => l.type === 'discount');
    expect(line).toMatchObject({
      amount: -3712,
      coupon: coupon.id,
      price: null,
      quantity: null,
      description: 'Discount: Fifteen (15% off)',
    });
    expect(inv).toMatchObject({ subtotal: 24_745, discount_amount: 3712, total: 21_033, amount_due: 21_033 });
    expect(inv.discount.coupon.id).toBe(coupon.id);
    const big = await ok(s, 'POST', '/coupons', { amount_off: 1_000_000, currency: 'usd' });
    const capped = await ok(s, 'PATCH', `/invoices/${inv.id}`, { coupon: big.id });
    expect(capped).toMatchObject({ total: 0, amount_due: 0, discount_amount: 24_745 });
    const zero = await ok(s, 'POST', `/invoices/${inv.id}/finalize`, {});
    expect(zero.status).toBe('paid');
  });

  it('an amount due above the largest payment amount is never charged: pay answers 400, collection records the failure', async () => {
    const MAX = 99_999_999_999;
    const cus = await customer(s);
    const before = (await ok(s, 'GET', '/payments?limit=1')).total_count;
    // a manual invoice: two lines at the largest line amount
    const inv = await ok(
      s,
      'POST',
      '/invoices',
      {
        customer: cus.id,
        currency: 'usd',
        collection_method: 'send_invoice',
        days_until_due: 30,
        lines: [{ amount: MAX }, { amount: 1 }],
      },
      201,
    );
    const open = await ok(s, 'POST', `/invoices/${inv.id}/finalize`, {});
    expect(open).toMatchObject({ status: 'open', amount_due: MAX + 1 });
    const e = await fails(
      s,
      'POST',
      `/invoices/${inv.id}/pay`,
      { payment_method: 'tok_visa' },
      400,
      'amount_too_large',
    );
    expect(e.message).toContain(String(MAX));
    expect(await ok(s, 'GET', `/invoices/${inv.id}`)).toMatchObject({
      status: 'open',
      attempt_count: 0,
      amount_paid: 0,
    });
    expect((await ok(s, 'POST', `/invoices/${inv.id}/pay`, { paid_out_of_band: true })).status).toBe('paid');
    // a subscription whose first invoice comes to more: not paid, the attempt's error says why
    const prod = await product(s);
    const [a, b] = [await monthlyPrice(s, prod.id, MAX), await monthlyPrice(s, prod.id, MAX)];
    const sub = await ok(
      s,
      'POST',
      '/subscriptions',
      { customer: cus.id, items: [{ price: a.id }, { price: b.id }] },
      201,
    );
    const first = await ok(s, 'GET', `/invoices/${sub.latest_invoice}`);
    expect(first).toMatchObject({
      amount_due: 2 * MAX,
      amount_paid: 0,
      paid: false,
      last_payment_error: { code: 'amount_too_large' },
    });
    expect(first.status).not.toBe('paid');
    // no payment was made for either
    expect((await ok(s, 'GET', '/payments?limit=1')).total_count).toBe(before);
  });

  it('pay: a declined card answers 402 and records the attempt; send_invoice due date; filters', async () => {
    const { inv, cus } = await draft({ collection_method: 'send_invoice', days_until_due: 30 });
    const open = await ok(s, 'POST', `/invoices/${inv.id}/finalize`, {});
    expect(open.due_date).toBe(open.finalized_at + 30 * 86_400);
    // The payments engine's convention (docs/api.md, Payments): `code` is the test value's result.
    const e = await fails(
      s,
      'POST',
      `/invoices/${inv.id}/pay`,
      { payment_method: 'tok_chargeDeclinedInsufficientFunds' },
      402,
      'insufficient_funds',
    );
    expect(e).toMatchObject({ type: 'card_error', decline_code: 'insufficient_funds' });
    expect(e.payment_id).toMatch(/^[0-9a-f-]{36}$/); // the engine recorded the failed payment
    const after = await ok(s, 'GET', `/invoices/${inv.id}`);
    expect(after).toMatchObject({
      status: 'open',
      attempt_count: 1,
      last_payment_error: { decline_code: 'insufficient_funds' },
    });
    await ok(s, 'POST', `/invoices/${inv.id}/pay`, { payment_method: 'tok_mastercard' });
    expect((await ok(s, 'GET', `/invoices?customer=${cus.id}&status=paid`)).data.map((x: any) => x.id)).toEqual([
      inv.id,
    ]);
    expect((await ok(s, 'GET', `/invoices?customer=${cus.id}&status=open`)).total_count).toBe(0);
    await fails(s, 'GET', '/invoices?status=late', undefined, 400, 'parameter_invalid');
  });
});
