// Arbitrary bodies and ids against the ledger, vault and KYC routes: every answer is a contract answer
// (never a 500), and a refused journal entry changes no balance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { account, fundedWallet, get } from './helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({
    memory: true,
    rateLimits: { perMinute: 100_000, perDay: 1_000_000, concurrency: 1_000 },
  });
});
afterAll(() => s.close());

describe('fuzz', () => {
  it('random JSON to every POST route answers with the contract (no 5xx); balances stay put on refusals', async () => {
    const { cash, wallet } = await fundedWallet(s, 1000);
    const other = await account(s, { currency: 'eur' });
    const hold = (await s.request('POST', `/ledger-accounts/${wallet.id}/holds`, { body: { amount: 1 } })).body.id;
    const ids = fc.constantFrom(cash.id, wallet.id, other.id, 'la_x', '', hold);
    const line = fc.record(
      {
        account_id: fc.oneof(ids, fc.anything()),
        direction: fc.oneof(fc.constantFrom('debit', 'credit'), fc.anything()),
        amount: fc.oneof(fc.integer({ min: -5, max: 2000 }), fc.anything()),
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      fc.record(
        { entries: fc.array(line, { maxLength: 4 }), description: fc.oneof(fc.string(), fc.anything()) },
        { requiredKeys: [] },
      ),
      fc.anything(),
      fc.dictionary(
        fc.constantFrom(
          'name',
          'account_type',
          'currency',
          'amount',
          'type',
          'value',
          'expires_at',
          'destination_account_id',
          'customer_id',
          'verification_level',
        ),
        fc.anything(),
      ),
    );
    const paths = [
      '/journal-entries',
      '/ledger-accounts',
      `/ledger-accounts/${wallet.id}/holds`,
      `/holds/${hold}/capture`,
      `/ledger-accounts/${wallet.id}/freeze`,
      '/identity-tokens',
      '/kyc-verifications',
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), body, async (path, b) => {
        const r = await s.request('POST', path, {
          rawBody: JSON.stringify(b) ?? '',
          headers: { 'content-type': 'application/json' },
        });
        expect(r.status, `${path} ${JSON.stringify(b)} → ${r.text}`).toBeLessThan(500);
        if (r.status >= 400) expect(r.body.error.code).toEqual(expect.any(String));
        if (path.includes('freeze') && r.status === 200)
          await s.request('POST', `/ledger-accounts/${wallet.id}/unfreeze`);
      }),
      { numRuns: 300, seed: 7 },
    );
    const audit = await s.server.services.ledger.audit(s.server.accountId);
    expect(audit.mismatched).toEqual([]);
    for (const c of audit.currencies) expect(c.debits).toBe(c.credits);
    const w = await get(s, wallet.id);
    expect(w.available_balance).toBeGreaterThanOrEqual(0);
  });
});
