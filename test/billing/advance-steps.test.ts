// A long clock advance runs in steps (docs/api.md "Test clock"): other accounts are answered while it runs, and the
// result is the same as if it had run at once. The assertion is about interleaving (requests of another account
// completed before the advance did), not about how fast this machine is: an advance in one transaction answers
// none of them until it is done, however fast or slow the machine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteOf, startTestServer, type TestServer } from '../helpers/server.js';
import { statementsRun } from '../helpers/statements.js';
import { advance, customer, DAY, monthlyPrice, ok, product } from './helpers.js';
import { onSqlite } from '../helpers/engine.js';
import type { Subscription } from '../../dist/lib/contract/billing.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({
    memory: true,
    dueWorkIntervalMs: 0,
    rateLimits: { perMinute: 1_000_000, perDay: 10_000_000, concurrency: 1000 },
  });
});
afterAll(() => s.close());

describe('a long clock advance', () => {
  it(
    'lets another account be answered between its steps and still runs every renewal once, in order',
    { timeout: 120_000 },
    async () => {
      // On PostgreSQL each of a renewal's ~60 statements is a round trip (~0.4 ms on a 2-core machine, measured: a
      // year of 240 renewals took 6.6 s, 1.1 s of it in PostgreSQL): fewer subscriptions keep it in the same time.
      const SUBS = onSqlite ? 120 : 30;
      const cus = await customer(s);
      const price = await monthlyPrice(s, (await product(s)).id, 700);
      const subs: Subscription[] = [];
      for (let i = 0; i < SUBS; i++)
        subs.push(
          await ok<Subscription>(s, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }] }, 201),
        );
      const other = (await s.server.services.accounts.createAccountWithKey()).api_key;
      await s.request('POST', '/customers', { body: { email: 'other@example.com' }, key: other });

      let done = false;
      const advancing = advance(s, { seconds: 366 * DAY }).finally(() => (done = true));
      let answeredMeanwhile = 0;
      while (!done) {
        const r = await s.request('GET', '/customers?limit=1', { key: other });
        expect(r.status).toBe(200);
        if (!done) answeredMeanwhile++;
      }
      const result = await advancing;

      expect(answeredMeanwhile).toBeGreaterThanOrEqual(3);
      const renewals = result.ran.filter((r) => r.name === 'subscription renewals');
      expect(renewals.reduce((a: number, r) => a + r.count, 0)).toBe(SUBS * 12);
      // one run entry per moment, in time order, however the work was cut into steps
      const ats = renewals.map((r) => r.at);
      expect(ats).toEqual([...new Set(ats)].sort());
      const invoices = await ok(s, 'GET', `/invoices?subscription=${subs[SUBS - 1].id}&limit=1`);
      expect(invoices.total_count).toBe(13);
    },
  );
});

describe('the scheduler’s catch-up over many accounts', () => {
  it('keeps its step budget across accounts with nothing due (no single step looks at every account)', async () => {
    const { Scheduler, STEP_BUDGET_MS } = await import('../../dist/lib/server/domain/due.js');
    const { services } = s.server;
    const accounts = Array.from({ length: 12 }, (_, i) => `acct_steps_${i}`);
    const looked: string[] = [];
    const nothingDue = {
      name: 'nothing',
      nextDue: async (id: string) => void looked.push(id),
      runDue: async () => 0,
    };
    // A clock of the test's own: every look at it costs half a step budget.
    let t = 0;
    const scheduler = new Scheduler(services.store, services.clock, [nothingDue], () => (t += STEP_BUDGET_MS / 2));
    const steps = scheduler.catchUp(accounts);
    const perStep: number[] = [];
    for (;;) {
      const before = looked.length;
      const r = await steps.next();
      perStep.push(looked.length - before);
      if (r.done) break;
    }
    expect(looked).toEqual(accounts); // each account looked at once, in order
    expect(perStep.length).toBeGreaterThan(1);
    expect(Math.max(...perStep)).toBeLessThanOrEqual(2);
  });

  it.runIf(onSqlite)(
    "asks when an account's next renewal, retry or due date comes by a seek of that account's rows, not a read of every account's",
    async () => {
      const cus = await customer(s);
      const price = await monthlyPrice(s, (await product(s)).id, 900);
      await ok(s, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }] }, 201);
      // a month on: the renewal comes due and runs
      const { ran } = await statementsRun(() => advance(s, { seconds: 32 * DAY }));
      const due = [...new Set(ran.filter((q) => /FROM (subscriptions|invoices) WHERE .*(due_ms|action_kind)/.test(q)))];
      // when next: subscriptions (trial ends; renewals), invoices (one statement for both kinds); what is due: renewals
      expect(due.length).toBeGreaterThanOrEqual(4);
      const { db } = sqliteOf(s);
      for (const q of due) {
        const plan = (
          db.prepare(`EXPLAIN QUERY PLAN ${q}`).all(...Array.from(q.matchAll(/\?/g), () => 0)) as { detail: string }[]
        )
          .map((r) => r.detail)
          .join(' | ');
        expect(plan, q).toMatch(
          /^SEARCH (subscriptions USING (COVERING )?INDEX subscriptions_due|invoices USING (COVERING )?INDEX invoices_due) \(account_id=\? AND /,
        );
      }
    },
  );
});
