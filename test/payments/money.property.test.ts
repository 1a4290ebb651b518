// Property: for any partial capture and any sequence of refund requests, the payment matches a simple model
// (refunds never exceed what was captured; `refunded` exactly when everything captured was refunded) and
// every successful move emitted exactly one hook event with the moved amount.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { confirm, newSession } from './util.js';

let s: TestServer;
const moved: { kind: string; payment_id: string; amount: number }[] = [];
beforeAll(async () => {
  s = await startTestServer({ memory: true });
  s.server.services.hooks.on('paymentCaptured', (_a, e) => void moved.push({ kind: 'captured', ...e }));
  s.server.services.hooks.on('paymentRefunded', (_a, e) => void moved.push({ kind: 'refunded', ...e }));
});
afterAll(() => s.close());

describe('capture and refund amounts', () => {
  it('match the model', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 10_000 }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        fc.array(fc.option(fc.integer({ min: 1, max: 12_000 }), { nil: undefined }), { maxLength: 5 }),
        async (amount, fraction, refunds) => {
          const sess = await newSession(s, { amount, capture_method: 'manual' });
          const p = (await confirm(s, sess, { token_id: 'tok_visa' })).body;
          const capture = Math.max(1, Math.floor(amount * fraction));
          const c = await s.request('POST', `/capture-payment/${p.id}`, { body: { amount: capture } });
          expect(c.body).toMatchObject({ status: 'captured', captured_amount: capture });
          let refunded = 0;
          for (const r of refunds) {
            const res = await s.request('POST', `/refund-payment/${p.id}`, {
              body: r === undefined ? {} : { amount: r },
            });
            const remaining = capture - refunded;
            if (remaining === 0) expect(res.status).toBe(409);
            else if (r !== undefined && r > remaining) expect(res.status).toBe(400);
            else {
              expect(res.status).toBe(200);
              refunded += r ?? remaining;
            }
          }
          const final = (await s.request('GET', `/payments/${p.id}`)).body;
          expect(final.refunded_amount).toBe(refunded);
          expect(final.status).toBe(refunded === capture ? 'refunded' : 'captured');
          expect(final.refunds.reduce((n: number, x: any) => n + x.amount, 0)).toBe(refunded);
          const events = moved.filter((e) => e.payment_id === p.id);
          expect(events.filter((e) => e.kind === 'captured').map((e) => e.amount)).toEqual([capture]);
          expect(events.filter((e) => e.kind === 'refunded').reduce((n, e) => n + e.amount, 0)).toBe(refunded);
        },
      ),
      { numRuns: 25 },
    );
  });
});
