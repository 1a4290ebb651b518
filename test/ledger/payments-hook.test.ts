// Captured and refunded payments post themselves to the ledger. The payments area (another branch) emits
// `paymentCaptured` / `paymentRefunded` through services.hooks inside its own transaction; here the hook is
// emitted directly through the running server's services, and the result is read back over HTTP.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { expectError } from '../helpers/util.js';
import { allEntries, get } from './helpers.js';
import { onSqlite } from '../helpers/engine.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
});
afterAll(() => s.close());

async function emit(
  name: 'paymentCaptured' | 'paymentRefunded',
  ev: { payment_id: string; amount: number; currency: string },
): Promise<void> {
  const { services, accountId } = s.server;
  await services.store.tx(() => services.hooks.emit(name, accountId, { ...ev, at: services.clock.now(accountId) }));
}

describe('payments post to the ledger', () => {
  it('a capture creates the per-currency system accounts on demand and posts debit clearing / credit merchant balance', async () => {
    await emit('paymentCaptured', {
      payment_id: '0190a0b0-0000-7000-8000-000000000001',
      amount: 1999,
      currency: 'USD',
    });
    await emit('paymentCaptured', { payment_id: '0190a0b0-0000-7000-8000-000000000002', amount: 1, currency: 'usd' });
    const list = await s.request('GET', '/ledger-accounts?currency=usd');
    expect(list.body.total_count).toBe(2); // created once, reused
    const clearing = list.body.data.find((a: any) => a.account_type === 'asset');
    const merchant = list.body.data.find((a: any) => a.account_type === 'liability');
    expect(clearing).toMatchObject({
      name: 'Processor clearing (USD)',
      is_system_account: true,
      normal_balance: 'debit',
      balance: 2000,
    });
    expect(merchant).toMatchObject({
      name: 'Merchant balance (USD)',
      is_system_account: true,
      normal_balance: 'credit',
      balance: 2000,
    });
    const entries = await allEntries(s, merchant.id);
    expect(entries.map((e) => [e.entry_type, e.amount, e.running_balance])).toEqual([
      ['credit', 1, 2000],
      ['credit', 1999, 1999],
    ]);
    const je = await s.request('GET', `/journal-entries/${entries[1].journal_entry_id}`);
    expect(je.body).toMatchObject({
      payment_id: '0190a0b0-0000-7000-8000-000000000001',
      amount: 1999,
      currency: 'USD',
      metadata: { payment_id: '0190a0b0-0000-7000-8000-000000000001' },
    });
  });

  it('a refund posts the opposite entry; other currencies get their own accounts', async () => {
    await emit('paymentRefunded', { payment_id: '0190a0b0-0000-7000-8000-000000000001', amount: 500, currency: 'USD' });
    await emit('paymentCaptured', { payment_id: '0190a0b0-0000-7000-8000-000000000003', amount: 700, currency: 'EUR' });
    const usd = (await s.request('GET', '/ledger-accounts?currency=usd')).body.data;
    for (const a of usd) expect(a.balance).toBe(1500);
    const eur = (await s.request('GET', '/ledger-accounts?currency=eur')).body.data;
    expect(eur.map((a: any) => [a.name, a.balance]).sort()).toEqual([
      ['Merchant balance (EUR)', 700],
      ['Processor clearing (EUR)', 700],
    ]);
    // Refunds beyond the balance still post: system accounts may go negative.
    await emit('paymentRefunded', { payment_id: '0190a0b0-0000-7000-8000-000000000003', amount: 900, currency: 'EUR' });
    for (const a of eur) expect((await get(s, a.id)).balance).toBe(-200);
    const audit = await s.server.services.ledger.audit(s.server.accountId);
    expect(audit.mismatched).toEqual([]);
    for (const c of audit.currencies) expect(c.debits).toBe(c.credits);
  });

  it('the automatic system accounts cannot be frozen or closed (payments must always post)', async () => {
    const [a] = (await s.request('GET', '/ledger-accounts?currency=usd&limit=1')).body.data;
    expectError(
      await s.request('POST', `/ledger-accounts/${a.id}/freeze`, { body: { reason: 'x' } }),
      409,
      'invalid_request_error',
      'ledger_account_unexpected_state',
    );
    expectError(
      await s.request('POST', `/ledger-accounts/${a.id}/close`),
      409,
      'invalid_request_error',
      'ledger_account_unexpected_state',
    );
  });

  it('a zero-amount event posts nothing and does not fail the payment', async () => {
    const before = (await s.request('GET', '/journal-entries?limit=1')).body.total_count;
    await emit('paymentCaptured', { payment_id: 'p0', amount: 0, currency: 'USD' });
    expect((await s.request('GET', '/journal-entries?limit=1')).body.total_count).toBe(before);
  });

  it('a listener failure rolls back with the emitter (one transaction)', async () => {
    const before = (await s.request('GET', '/journal-entries?limit=1')).body.total_count;
    await expect(emit('paymentCaptured', { payment_id: 'p', amount: 5, currency: 'XXQ' })).rejects.toThrow();
    expect((await s.request('GET', '/journal-entries?limit=1')).body.total_count).toBe(before);
  });

  it.runIf(onSqlite)(
    'a posting reads its two system accounts with one statement (by their system keys), not again by id',
    async () => {
      await emit('paymentCaptured', { payment_id: '0190a0b0-0000-7000-8000-0000000000a1', amount: 5, currency: 'EUR' }); // accounts exist
      // The statements this process runs, observed on better-sqlite3's own Statement (the real one still runs).
      const proto = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as Record<
        string,
        (...a: unknown[]) => unknown
      >;
      const seen: string[] = [];
      const originals = Object.fromEntries(['run', 'get', 'all', 'iterate'].map((m) => [m, proto[m]!]));
      for (const [m, original] of Object.entries(originals)) {
        proto[m] = function (this: { source: string }, ...args: unknown[]) {
          seen.push(this.source);
          return original.apply(this, args);
        };
      }
      try {
        await emit('paymentCaptured', {
          payment_id: '0190a0b0-0000-7000-8000-0000000000a2',
          amount: 7,
          currency: 'EUR',
        });
      } finally {
        Object.assign(proto, originals);
      }
      const bySystemKey = /system_key (= \?|IN \()/;
      const accountReads = seen.filter(
        (sql) => /^SELECT\b[^;]*\bFROM ledger_accounts\b/i.test(sql) && !bySystemKey.test(sql) && /\bdata\b/.test(sql),
      );
      expect(seen.filter((sql) => bySystemKey.test(sql))).toHaveLength(1);
      expect(accountReads).toEqual([]);
      expect(seen.filter((sql) => /^INSERT INTO ledger_entries/.test(sql))).toHaveLength(2); // the posting did run
    },
  );
});
