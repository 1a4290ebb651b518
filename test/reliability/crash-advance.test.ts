// A clock advance is all-or-nothing per item across kill -9 (docs/api.md "Test clock"): the server is killed in the
// middle of a year of renewals, restarted, and then nothing is half-done — no period invoiced twice, every
// subscription's latest invoice its newest, the ledger balanced — and sending the same `to` again completes the year
// exactly: 13 invoices per subscription, none lost and none twice. (The restarted server has no tick: what the
// kill interrupted stays due until the second advance, so the checks read one state.)
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';
import { startChild } from './child.js';
import { ledgerViolations, listAll, requester, type Requester } from './health.js';

const SUBS = 40;
const DAY = 86_400;

async function problems(req: Requester, subs: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const id of subs) {
    const sub = (await req('GET', `/subscriptions/${id}`)).body;
    const invoices = await listAll(req, `/invoices?subscription=${id}`);
    const periods = new Set(invoices.map((i: any) => i.period_start));
    if (periods.size !== invoices.length) out.push(`${id}: ${invoices.length} invoices for ${periods.size} periods`);
    if (invoices[0]?.id !== sub.latest_invoice)
      out.push(`${id}: latest_invoice ${sub.latest_invoice} is not the newest invoice ${invoices[0]?.id}`);
  }
  out.push(...(await ledgerViolations(req)));
  return out;
}

describe('crash during a clock advance', () => {
  it(
    'kill -9 mid-advance leaves every item whole; the same `to` again completes it exactly',
    { timeout: 120_000 },
    async () => {
      const dir = tempDir();
      let child = await startChild(dir);
      let req = requester(child.baseUrl, child.apiKey);
      const cus = (
        await req('POST', '/customers', { body: { email: 'c@example.com', default_payment_method: 'tok_visa' } })
      ).body;
      const product = (await req('POST', '/products', { body: { name: 'Plan' } })).body;
      const price = (
        await req('POST', '/prices', {
          body: { product: product.id, currency: 'usd', unit_amount: 1200, recurring: { interval: 'month' } },
        })
      ).body;
      const subs: string[] = [];
      for (let i = 0; i < SUBS; i++)
        subs.push(
          (await req('POST', '/subscriptions', { body: { customer: cus.id, items: [{ price: price.id }] } })).body.id,
        );
      const target = (await req('GET', '/test-helpers/clock')).body.now + 366 * DAY;

      const advancing = req('POST', '/test-helpers/advance-clock', { body: { to: target } }).catch(() => undefined);
      // Kill once some renewals have committed (reads are answered between the advance's steps).
      for (;;) {
        const n = (await req('GET', '/invoices?limit=1')).body.total_count;
        if (n >= SUBS + 60) break;
        await new Promise((r) => setTimeout(r, 5));
      }
      await child.kill9();
      await advancing;

      // Without the server's tick: its catch-up would finish the interrupted renewals while the checks below read the
      // ledger in several requests (a balance read before a renewal, its entries after: a false imbalance).
      child = await startChild(dir, undefined, { dueWorkIntervalMs: 0 });
      try {
        req = requester(child.baseUrl, child.apiKey);
        const interrupted = (await req('GET', '/invoices?limit=1')).body.total_count;
        expect(interrupted).toBeLessThan(SUBS * 13); // the kill landed before the end
        expect(await problems(req, subs)).toEqual([]);

        const done = await req('POST', '/test-helpers/advance-clock', { body: { to: target } });
        expect(done.status).toBe(200);
        expect(await problems(req, subs)).toEqual([]);
        for (const id of subs)
          expect((await req('GET', `/invoices?subscription=${id}&limit=1`)).body.total_count).toBe(13);
      } finally {
        await child.stop();
      }
    },
  );
});
