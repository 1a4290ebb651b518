// invoice.upcoming: the renewal's notice, 3 days before current_period_end, as due work on the test clock —
// once per period, before the renewal when one advance passes both, kept across a restart. And the CLI's
// calendar-month clock unit: `clock advance 1mo` three times meets three monthly renewals. Real server over
// HTTP, real binary.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { against, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { ok, DAY } from './helpers.js';
import type { ClockState } from '../../dist/lib/contract/meta.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

/** The server as seen with a new account's key: its own clock, its own events. */
async function account(t: TestServer = s): Promise<TestServer> {
  const key = (await t.server.services.accounts.createAccountWithKey()).api_key;
  return { ...t, apiKey: key, request: (m, p, o = {}) => t.request(m, p, { key, ...o }) };
}

/** A subscriber paying 900/`interval` by card, subscribed now. */
async function subscribe(t: TestServer, interval = 'month', extra: Record<string, unknown> = {}) {
  const price = await ok(t, 'POST', '/prices', {
    product_data: { name: 'Pro' },
    currency: 'usd',
    unit_amount: 900,
    recurring: { interval },
  });
  const cus = await ok(t, 'POST', '/customers', { email: 'a@example.com', default_payment_method: 'tok_visa' });
  return ok(t, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }], ...extra });
}

/**
 * The subscription's events (invoice.upcoming is found by its subscription's id) created after `after` (Unix s),
 * oldest first. The log keeps 30 days of the account's clock: a test that moves it a month on reads what each
 * advance recorded, not all history at the end.
 */
async function eventsOf(t: TestServer, id: string, after = 0): Promise<any[]> {
  const r = await ok(t, 'GET', `/events?object_id=${id}&limit=100&created[gt]=${after}`);
  return (r.data as any[]).reverse();
}

describe('invoice.upcoming', () => {
  it('one advance past the notice and the renewal: the notice first, dated 3 days before, with the renewal invoice as it will be', async () => {
    const t = await account();
    const sub = await subscribe(t);
    const end = sub.current_period_end;
    const ran = await ok<ClockState>(t, 'POST', '/test-helpers/advance-clock', { to: end + 60 });
    // To the second: this server's account clock runs with the machine's, and under load a step can start a
    // millisecond after the moment it was due (seen: the renewal at …06.001Z for a period ending at …06Z).
    const billing = ran.ran
      .filter((r) => /subscription|invoice/.test(r.name))
      .map((r) => ({ ...r, at: Math.floor(Date.parse(r.at) / 1000) }));
    expect(billing).toEqual([
      { name: 'invoice upcoming notices', at: end - 3 * DAY, count: 1 },
      { name: 'subscription renewals', at: end, count: 1 },
    ]);
    const types = (await eventsOf(t, sub.id, sub.created)).map((e) => e.type);
    expect(types).toEqual(['invoice.upcoming', 'subscription.renewed']);
    const [upcoming] = (await eventsOf(t, sub.id)).filter((e) => e.type === 'invoice.upcoming');
    expect(upcoming.created).toBe(end - 3 * DAY);
    const preview = upcoming.data.object;
    expect(preview.id).toBeUndefined();
    expect(preview.hosted_invoice_url).toBeUndefined();
    const renewed = await ok(t, 'GET', `/subscriptions/${sub.id}`);
    const invoice = await ok(t, 'GET', `/invoices/${renewed.latest_invoice}`);
    expect(preview).toMatchObject({
      object: 'invoice',
      status: 'draft',
      billing_reason: 'upcoming',
      subscription: sub.id,
      customer: sub.customer,
      amount_due: invoice.amount_due,
      total: 900,
      period_start: invoice.period_start,
      period_end: invoice.period_end,
      next_payment_attempt: end,
    });
    expect(preview.lines.data.map((l: any) => [l.type, l.amount, l.id])).toEqual([['subscription', 900, undefined]]);
    // `listen`'s and `events list`'s lines name it by its subscription
    const listed = await runCli(['events', 'list', '--type', 'invoice.upcoming', ...against(t)]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`upcoming (${sub.id})`);
  });

  it('once per period, across periods; none for a daily subscription or one that cancels at period end', async () => {
    const t = await account();
    const monthly = await subscribe(t);
    const daily = await subscribe(t, 'day');
    const canceling = await subscribe(t, 'month', { cancel_at_period_end: true });
    const end1 = monthly.current_period_end;
    // two advances inside the first notice's window, then one across two renewals
    await ok(t, 'POST', '/test-helpers/advance-clock', { to: end1 - 2 * DAY });
    await ok(t, 'POST', '/test-helpers/advance-clock', { to: end1 - DAY });
    await ok(t, 'POST', '/test-helpers/advance-clock', { to: end1 + 60 });
    const first = await eventsOf(t, monthly.id, monthly.created);
    expect(first.map((e) => [e.type, e.created])).toEqual([
      ['invoice.upcoming', end1 - 3 * DAY],
      ['subscription.renewed', end1],
    ]);
    expect((await eventsOf(t, canceling.id, canceling.created)).map((e) => e.type)).toEqual(['subscription.canceled']);
    const end2 = (await ok(t, 'GET', `/subscriptions/${monthly.id}`)).current_period_end;
    await ok(t, 'POST', '/test-helpers/advance-clock', { to: end2 + 60 });
    expect((await eventsOf(t, monthly.id, end1)).map((e) => [e.type, e.created])).toEqual([
      ['invoice.upcoming', end2 - 3 * DAY],
      ['subscription.renewed', end2],
    ]);
    expect((await eventsOf(t, daily.id)).filter((e) => e.type === 'invoice.upcoming')).toEqual([]);
  });

  it('a notice not yet due is kept across a restart, and one recorded is not recorded again', async () => {
    const dataDir = tempDir();
    let t = await startTestServer({ dataDir, dueWorkIntervalMs: 0 });
    try {
      const sub = await subscribe(t);
      const end = sub.current_period_end;
      await t.close();
      t = await startTestServer({ dataDir, dueWorkIntervalMs: 0 });
      await ok(t, 'POST', '/test-helpers/advance-clock', { to: end - DAY });
      expect((await eventsOf(t, sub.id)).map((e) => e.type)).toEqual(['subscription.created', 'invoice.upcoming']);
      await t.close();
      t = await startTestServer({ dataDir, dueWorkIntervalMs: 0 });
      await ok(t, 'POST', '/test-helpers/advance-clock', { to: end + 60 });
      expect((await eventsOf(t, sub.id, sub.created)).map((e) => e.type)).toEqual([
        'invoice.upcoming',
        'subscription.renewed',
      ]);
    } finally {
      await t.close();
    }
  });
});

describe('clock advance in calendar months', () => {
  it('three `1mo` advances meet three monthly renewals, each after its notice', async () => {
    // on the 31st of January: the hardest case (a 30d step from Jan 31 lands on Mar 2, past February's renewal;
    // a 1mo step from Feb 28 kept to the 28th would stop before March's renewal on the 31st)
    const t = await account();
    const to = await runCli(['clock', 'advance', '--to', '2027-01-31T10:00:00Z', '--yes', ...against(t)]);
    expect(to.code, to.stderr).toBe(0);
    const sub = await subscribe(t);
    let from = sub.created;
    const days: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await runCli(['clock', 'advance', '1mo', '--yes', '--json', ...against(t)]);
      expect(r.code, r.stderr).toBe(0);
      days.push(r.json().now_iso.slice(0, 10));
      expect(
        (await eventsOf(t, sub.id, from)).map((e) => e.type),
        `advance ${i + 1}`,
      ).toEqual(['invoice.upcoming', 'subscription.renewed']);
      from = r.json().now;
    }
    expect(days).toEqual(['2027-02-28', '2027-03-31', '2027-04-30']);
  });

  it('a malformed or month-less duration is exit 2 naming the units; `1y` is twelve months', async () => {
    const bad = await runCli(['clock', 'advance', '1month', '--yes', ...against(s)]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('1mo');
    const t = await account();
    const before = (await ok(t, 'GET', '/test-helpers/clock')).now;
    const r = await runCli(['clock', 'advance', '1y', '--yes', '--json', ...against(t)]);
    expect(r.code, r.stderr).toBe(0);
    const d = new Date(before * 1000);
    const expected = new Date(d);
    expected.setUTCFullYear(d.getUTCFullYear() + 1);
    if (expected.getUTCMonth() !== d.getUTCMonth()) expected.setUTCDate(0); // Feb 29 → Feb 28
    // the clock runs on between the read and the advance: a year later to the day, not a second earlier
    expect(r.json().now).toBeGreaterThanOrEqual(Math.floor(expected.getTime() / 1000));
    expect(r.json().now).toBeLessThan(Math.floor(expected.getTime() / 1000) + 3600);
  });
});
