// The billing commands through the real binary against a real server (no TTY).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { against, runCli } from '../helpers/cli.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const cli = (...args: string[]) => runCli([...args, ...against(s)]);
async function json(...args: string[]) {
  const r = await cli(...args, '--json');
  if (r.code !== 0) throw new Error(`payorch ${args.join(' ')} → ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.json();
}

describe('billing CLI', { timeout: 60_000 }, () => {
  it('builds a catalog, subscribes a customer and shows tables', async () => {
    const cus = await json(
      'customers',
      'create',
      '--email',
      'cli@example.com',
      '--name',
      'Cli',
      '--payment-method',
      'tok_visa',
    );
    expect(cus).toMatchObject({ object: 'customer', email: 'cli@example.com', default_payment_method: 'tok_visa' });
    const prod = await json('products', 'create', '--name', 'CLI plan');
    const price = await json(
      'prices',
      'create',
      '--product',
      prod.id,
      '--currency',
      'usd',
      '--unit-amount',
      '1500',
      '--interval',
      'month',
    );
    expect(price).toMatchObject({ type: 'recurring', unit_amount: 1500, recurring: { interval: 'month' } });
    const tiered = await json(
      'prices',
      'create',
      '--product',
      prod.id,
      '--currency',
      'usd',
      '--interval',
      'month',
      '--usage-type',
      'metered',
      '--tiers-mode',
      'graduated',
      '--tier',
      '100:3',
      '--tier',
      'inf:2:150',
    );
    expect(tiered).toMatchObject({
      billing_scheme: 'tiered',
      tiers: [
        { up_to: 100, unit_amount: 3, flat_amount: 0 },
        { up_to: null, unit_amount: 2, flat_amount: 150 },
      ],
    });
    const coupon = await json('coupons', 'create', '--id', 'CLI10', '--percent-off', '10', '--duration', 'forever');
    expect(coupon).toMatchObject({ id: 'CLI10', valid: true });
    const sub = await json(
      'subscriptions',
      'create',
      '--customer',
      cus.id,
      '--price',
      `${price.id}:2`,
      '--coupon',
      'CLI10',
    );
    expect(sub).toMatchObject({ status: 'active', discount: { coupon: { id: 'CLI10' } } });
    expect(sub.items.data[0].quantity).toBe(2);
    const inv = await json('invoices', 'get', sub.latest_invoice);
    expect(inv).toMatchObject({ status: 'paid', total: 2700 });

    const table = await cli('subscriptions', 'list', '--customer', cus.id);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/ID\s.*STATUS.*CUSTOMER/);
    expect(table.stdout).toContain(sub.id);
    expect(table.stdout).toContain('2 × 15.00 USD/month');
    const prices = await cli('prices', 'list', '--product', prod.id);
    expect(prices.stdout).toContain('metered');
    const detail = await cli('invoices', 'get', inv.id);
    expect(detail.stdout).toContain('27.00 USD');
    expect(detail.stdout).toMatch(/number\s+INV-\d{6}/);

    const upd = await json('subscriptions', 'update', sub.id, '--quantity', '3', '--proration-behavior', 'none');
    expect(upd.items.data[0].quantity).toBe(3);
    const c = await json('subscriptions', 'cancel', sub.id, '--at-period-end');
    expect(c.cancel_at_period_end).toBe(true);
  });

  it('paginates lists with --limit, --starting-after and --all', async () => {
    for (let i = 0; i < 3; i++) await json('customers', 'create', '--email', `pg${i}@example.com`);
    const all = await json('customers', 'list', '--all');
    expect(all.data.length).toBe(all.total_count);
    const page = await json('customers', 'list', '--limit', '2');
    expect(page).toMatchObject({ has_more: true });
    expect(page.data.map((x: any) => x.id)).toEqual(all.data.slice(0, 2).map((x: any) => x.id));
    const next = await json('customers', 'list', '--limit', '1', '--starting-after', page.data[1].id);
    expect(next.data[0].id).toBe(all.data[2].id);
    const human = await cli('customers', 'list', '--limit', '1');
    expect(human.stdout).toContain('--starting-after');
    const filtered = await json('customers', 'list', '--email', 'pg1@example.com');
    expect(filtered.total_count).toBe(1);
  });

  it('invoices mark-uncollectible, 409 as exit 1, and clock advance printing what ran', async () => {
    const cus = await json('customers', 'create', '--email', 'late@example.com');
    const prod = await json('products', 'create', '--name', 'Late');
    const price = await json('prices', 'create', '--product', prod.id, '--currency', 'eur', '--unit-amount', '990');
    const draft = await json(
      'invoices',
      'create',
      '--customer',
      cus.id,
      '--price',
      `${price.id}:2`,
      '--item',
      '15=Fee',
      '--collection-method',
      'send_invoice',
      '--days-until-due',
      '3',
    );
    expect(draft).toMatchObject({ status: 'draft', total: 1995, currency: 'EUR' });
    const bad = await cli('invoices', 'mark-uncollectible', draft.id);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('invoice_unexpected_state');
    const open = await json('invoices', 'finalize', draft.id);
    expect(open.status).toBe('open');

    const adv = await cli('clock', 'advance', '4d');
    expect(adv.code).toBe(0);
    expect(adv.stdout).toMatch(/Clock now \d{4}-\d\d-\d\d/);
    expect(adv.stdout).toContain('invoice due dates');
    expect((await json('invoices', 'get', draft.id)).status).toBe('past_due');
    const unc = await cli('invoices', 'mark-uncollectible', draft.id);
    expect(unc.code).toBe(0);
    expect(unc.stdout).toMatch(/status\s+uncollectible/);

    const quiet = await cli('clock', 'advance', '1h');
    expect(quiet.stdout).toContain('Nothing came due.');
    // Longer than the server's 366-day step: the CLI advances in steps and lands exactly on the date.
    // Real time keeps running after it lands: by at most how long the command took (not a fixed few seconds,
    // which a busy machine can exceed).
    const target = new Date(Date.now() + 400 * 86_400_000);
    let started = Date.now();
    const to = await json('clock', 'advance', '--to', target.toISOString());
    expect(to.now - Math.floor(target.getTime() / 1000)).toBeGreaterThanOrEqual(0);
    expect(to.now - Math.floor(target.getTime() / 1000)).toBeLessThanOrEqual(
      Math.ceil((Date.now() - started) / 1000) + 1,
    );
    started = Date.now();
    const long = await json('clock', 'advance', '800d');
    expect(long.now).toBeGreaterThanOrEqual(to.now + 800 * 86_400);
    expect(long.now).toBeLessThanOrEqual(to.now + 800 * 86_400 + Math.ceil((Date.now() - started) / 1000) + 1);
    const usage = await cli('clock', 'advance', '3x');
    expect(usage.code).toBe(2);
    const both = await cli('clock', 'advance', '1d', '--to', '2030-01-01');
    expect(both.code).toBe(2);
  });

  it("clock advance tells what came due for your objects, not the server's own clean-up (which --json keeps)", async () => {
    // A server of its own: its clock moves 40 days, past the 30 days events are kept.
    const t = await startTestServer();
    try {
      const run = (...args: string[]) => runCli([...args, ...against(t)]);
      const out = async (...args: string[]) => (await run(...args, '--json')).json();
      const cus = await out('customers', 'create', '--email', 'renew@example.com', '--payment-method', 'tok_visa');
      const prod = await out('products', 'create', '--name', 'Monthly');
      const price = await out(
        'prices',
        'create',
        '--product',
        prod.id,
        '--currency',
        'usd',
        '--unit-amount',
        '500',
        '--interval',
        'month',
      );
      const sub = await out('subscriptions', 'create', '--customer', cus.id, '--price', price.id);
      expect(sub.status).toBe('active');
      await out('sessions', 'create', '--amount', '1999', '--currency', 'usd');

      const adv = await run('clock', 'advance', '40d');
      expect(adv.code, adv.stderr).toBe(0);
      expect(adv.stdout).toMatch(/^Clock now \d{4}-\d\d-\d\d/);
      expect(adv.stdout).toContain('subscription renewals');
      expect(adv.stdout).toContain('session expiry');
      // the server's housekeeping is not the user's news
      expect(adv.stdout).not.toMatch(/retention|Ran \d+ due item/);

      // --json: the whole record, clean-up included (docs/api.md "Test clock")
      const again = await out('clock', 'advance', '40d');
      expect(again.ran.map((r: { name: string }) => r.name)).toContain('events.retention');
      const quiet = await run('clock', 'advance', '1h');
      expect(quiet.stdout).toContain('Nothing came due.');
    } finally {
      await t.close();
    }
  });

  it('usage records, items, checkout and portal', async () => {
    const cus = await json('customers', 'create', '--email', 'meter@example.com', '--payment-method', 'tok_visa');
    const prod = await json('products', 'create', '--name', 'Meter');
    const metered = await json(
      'prices',
      'create',
      '--product',
      prod.id,
      '--currency',
      'usd',
      '--unit-amount',
      '2',
      '--interval',
      'month',
      '--usage-type',
      'metered',
      '--aggregate-usage',
      'max',
    );
    const seat = await json(
      'prices',
      'create',
      '--product',
      prod.id,
      '--currency',
      'usd',
      '--unit-amount',
      '100',
      '--interval',
      'month',
    );
    const sub = await json('subscriptions', 'create', '--customer', cus.id, '--price', metered.id);
    const item = sub.items.data[0].id;
    const rec = await json('usage-records', 'create', '--subscription-item', item, '--quantity', '42');
    expect(rec).toMatchObject({ object: 'usage_record', quantity: 42 });
    const summary = await cli('usage-records', 'summary', '--subscription-item', item);
    expect(summary.stdout).toMatch(/TOTAL USAGE/);
    expect(summary.stdout).toContain('42');
    const periods = await json('usage-records', 'summary', '--subscription-item', item);
    expect(periods.data).toHaveLength(1);
    // the cursor flags reach the API (--ending-before was dropped once): nothing comes before the newest period
    expect(
      (await json('usage-records', 'summary', '--subscription-item', item, '--ending-before', periods.data[0].id)).data,
    ).toEqual([]);
    const added = await json(
      'subscription-items',
      'create',
      '--subscription',
      sub.id,
      '--price',
      seat.id,
      '--quantity',
      '2',
    );
    expect((await json('subscription-items', 'update', added.id, '--quantity', '4')).quantity).toBe(4);
    expect((await json('subscription-items', 'list', '--subscription', sub.id)).total_count).toBe(2);
    expect(await json('subscription-items', 'delete', added.id)).toMatchObject({ deleted: true });
    const paused = await json('subscriptions', 'pause', sub.id);
    expect(paused.status).toBe('paused');
    expect((await json('subscriptions', 'resume', sub.id)).status).toBe('active');

    const one = await json('prices', 'create', '--product', prod.id, '--currency', 'usd', '--unit-amount', '700');
    const cks = await json('checkout', 'create', '--mode', 'payment', '--price', `${one.id}:3`);
    expect(cks).toMatchObject({ mode: 'payment', amount_total: 2100, status: 'open' });
    const subCks = await json(
      'checkout',
      'create',
      '--mode',
      'subscription',
      '--price',
      seat.id,
      '--customer-email',
      'co@example.com',
    );
    const done = await json('checkout', 'complete', subCks.id, '--payment-method', 'tok_visa');
    expect(done.status).toBe('complete');
    expect((await json('subscriptions', 'get', done.subscription)).status).toBe('active');
    const portal = await json('portal', 'create', '--customer', cus.id, '--return-url', 'https://example.com/back');
    expect(portal.url).toContain(`/portal/${portal.id}`);
    const shown = await cli('portal', 'get', portal.id);
    expect(shown.stdout).toContain(portal.url);
  });
});
