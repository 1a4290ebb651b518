// The ledger over real HTTP: accounts, journal entries, holds, balances (docs/api.md "Ledger" docs/api.md "Ledger").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type List, type TestServer } from '../helpers/server.js';
import type { Hold, JournalEntry, LedgerAccount, LedgerAccountEvent } from '../../dist/lib/contract/ledger.js';
import { expectError, ISO_MS } from '../helpers/util.js';
import { runCli } from '../helpers/cli.js';
import { account, allEntries, fundedWallet, get, pair, post } from './helpers.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('ledger accounts', () => {
  it('creates accounts with the normal balance of their type, zero balances and an la_ id', async () => {
    const types: Record<string, string> = {
      asset: 'debit',
      expense: 'debit',
      liability: 'credit',
      equity: 'credit',
      revenue: 'credit',
    };
    for (const [type, normal] of Object.entries(types)) {
      const a = await account(s, { account_type: type, currency: 'eur', metadata: { k: 'v' } });
      expect(a).toMatchObject({
        object: 'ledger_account',
        account_type: type,
        normal_balance: normal,
        status: 'active',
        currency: 'EUR',
        balance: 0,
        available_balance: 0,
        pending_balance: 0,
        is_system_account: false,
        metadata: { k: 'v' },
        livemode: false,
      });
      expect(a.id).toMatch(/^la_[0-9A-Za-z]{20,}$/);
      expect(a.created_at).toMatch(ISO_MS);
      expect(a.balance_updated_at).toMatch(ISO_MS);
      expect(a).not.toHaveProperty('recent_entries');
    }
  });

  it('rejects bad input with the contract error body', async () => {
    expectError(
      await s.request('POST', '/ledger-accounts', { body: { name: 'x', account_type: 'cash', currency: 'usd' } }),
      400,
      'validation_error',
      'parameter_invalid',
      'account_type',
    );
    expectError(
      await s.request('POST', '/ledger-accounts', { body: { name: 'x', account_type: 'asset', currency: 'zzz' } }),
      400,
      'validation_error',
      'parameter_invalid',
      'currency',
    );
    expectError(
      await s.request('POST', '/ledger-accounts', { body: { account_type: 'asset', currency: 'usd' } }),
      400,
      'validation_error',
      'parameter_missing',
      'name',
    );
    expectError(
      await s.request('POST', '/ledger-accounts', {
        body: { name: 'x', account_type: 'asset', currency: 'usd', balance: 5 },
      }),
      400,
      'validation_error',
      'parameter_unknown',
      'balance',
    );
    expectError(
      await s.request('GET', '/ledger-accounts/la_missing'),
      404,
      'invalid_request_error',
      'resource_missing',
      'account_id',
    );
  });

  it('refuses a duplicate account_number with 409 resource_exists', async () => {
    await account(s, { account_number: 'ACC-1' });
    expectError(
      await s.request('POST', '/ledger-accounts', {
        body: { name: 'x', account_type: 'asset', currency: 'usd', account_number: 'ACC-1' },
      }),
      409,
      'invalid_request_error',
      'resource_exists',
    );
  });

  it('lists newest first with status, customer and currency filters', async () => {
    const a1 = await account(s, { customer_id: 'cus_list_a', currency: 'gbp' });
    const a2 = await account(s, { customer_id: 'cus_list_a', currency: 'gbp' });
    await account(s, { customer_id: 'cus_list_b', currency: 'gbp' });
    await s.request('POST', `/ledger-accounts/${a1.id}/freeze`, { body: { reason: 'r' } });
    const byCustomer = await s.request<List<LedgerAccount>>('GET', '/ledger-accounts?customer=cus_list_a');
    expect(byCustomer.body.data.map((a) => a.id)).toEqual([a2.id, a1.id]);
    expect(byCustomer.body.total_count).toBe(2);
    const frozen = await s.request<List<LedgerAccount>>('GET', '/ledger-accounts?customer=cus_list_a&status=frozen');
    expect(frozen.body.data.map((a) => a.id)).toEqual([a1.id]);
    const gbp = await s.request('GET', '/ledger-accounts?currency=gbp&limit=2');
    expect(gbp.body).toMatchObject({ object: 'list', has_more: true, total_count: 3 });
    expectError(
      await s.request('GET', '/ledger-accounts?status=open'),
      400,
      'validation_error',
      'parameter_invalid',
      'status',
    );
  });

  it('freeze → unfreeze → close, with 409 ledger_account_unexpected_state from the wrong states and an audit trail', async () => {
    const a = await account(s);
    expectError(
      await s.request('POST', `/ledger-accounts/${a.id}/unfreeze`),
      409,
      'invalid_request_error',
      'ledger_account_unexpected_state',
    );
    const f = await s.request('POST', `/ledger-accounts/${a.id}/freeze`, {
      body: { reason: 'suspicious activity', actor: 'agent:alice' },
    });
    expect(f.status).toBe(200);
    expect(f.body).toMatchObject({ status: 'frozen', frozen_reason: 'suspicious activity', frozen_by: 'agent:alice' });
    expect(f.body.frozen_at).toMatch(ISO_MS);
    expectError(
      await s.request('POST', `/ledger-accounts/${a.id}/freeze`, { body: {} }),
      409,
      'invalid_request_error',
      'ledger_account_unexpected_state',
    );

    // GET shows who/why/when while frozen.
    expect(await get(s, a.id)).toMatchObject({
      status: 'frozen',
      frozen_by: 'agent:alice',
      frozen_reason: 'suspicious activity',
    });

    // Unfreeze: no body needed (contract), answers the account WITHOUT recent_entries and active_holds.
    const u = await s.request('POST', `/ledger-accounts/${a.id}/unfreeze`);
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({
      id: a.id,
      object: 'ledger_account',
      status: 'active',
      frozen_at: null,
      frozen_reason: null,
      frozen_by: null,
    });
    expect(u.body).not.toHaveProperty('recent_entries');
    expect(u.body).not.toHaveProperty('active_holds');

    const c = await s.request('POST', `/ledger-accounts/${a.id}/close`, { body: { reason: 'customer left' } });
    expect(c.body).toMatchObject({ status: 'closed' });
    expect(c.body.closed_at).toMatch(ISO_MS);
    for (const action of ['freeze', 'unfreeze', 'close']) {
      expectError(
        await s.request('POST', `/ledger-accounts/${a.id}/${action}`),
        409,
        'invalid_request_error',
        'ledger_account_unexpected_state',
      );
    }

    const ev = await s.request<List<LedgerAccountEvent>>('GET', `/ledger-accounts/${a.id}/events`);
    expect(ev.status).toBe(200);
    const events = [...ev.body.data].reverse();
    expect(events.map((e) => e.type)).toEqual(['created', 'frozen', 'unfrozen', 'closed']);
    const keyId = events[0].api_key_id;
    expect(keyId).toMatch(/^key_/);
    expect(events[1]).toMatchObject({
      object: 'ledger_account_event',
      ledger_account_id: a.id,
      reason: 'suspicious activity',
      actor: 'agent:alice',
      api_key_id: keyId,
    });
    // Without an actor, the API key id is who.
    expect(events[2]).toMatchObject({ reason: null, actor: keyId, api_key_id: keyId });
    expect(events[3]).toMatchObject({ reason: 'customer left', actor: keyId });
    for (const e of events) expect(e.created_at).toMatch(ISO_MS);
  });

  it('close needs a zero balance and no active holds', async () => {
    const { cash, wallet } = await fundedWallet(s, 100);
    expectError(
      await s.request('POST', `/ledger-accounts/${wallet.id}/close`),
      409,
      'invalid_request_error',
      'ledger_account_unexpected_state',
    );
    expect((await post(s, pair(wallet.id, cash.id, 60))).status).toBe(201);
    const hold = await s.request('POST', `/ledger-accounts/${wallet.id}/holds`, { body: { amount: 40 } });
    expect((await post(s, pair(wallet.id, cash.id, 40))).status).toBe(409); // held: not available
    await s.request('POST', `/holds/${hold.body.id}/release`);
    expect((await post(s, pair(wallet.id, cash.id, 40))).status).toBe(201);
    const closed = await s.request('POST', `/ledger-accounts/${wallet.id}/close`);
    expect(closed.body.status).toBe('closed');
    expectError(
      await post(s, pair(cash.id, wallet.id, 1)),
      409,
      'invalid_request_error',
      'ledger_account_unexpected_state',
    );
  });
});

describe('journal entries', () => {
  it('posts a balanced entry: balances in the normal direction, running balances, recent_entries newest first', async () => {
    const { cash, wallet } = await fundedWallet(s, 0);
    const r1 = await post(s, { ...pair(cash.id, wallet.id, 1000, 'top-up'), metadata: { order: '1' } });
    expect(r1.status).toBe(201);
    expect(r1.body).toMatchObject({
      object: 'journal_entry',
      currency: 'USD',
      amount: 1000,
      description: 'top-up',
      reverses: null,
      reversed_by: null,
      metadata: { order: '1' },
    });
    expect(r1.body.id).toMatch(/^je_/);
    expect(r1.body.entries).toHaveLength(2);
    expect(r1.body.entries[0].id).toMatch(/^ent_/);
    const r2 = await post(s, pair(wallet.id, cash.id, 300, 'spend'));
    expect(r2.status).toBe(201);

    const c = await get(s, cash.id);
    const w = await get(s, wallet.id);
    expect(c).toMatchObject({ balance: 700, available_balance: 700, pending_balance: 0 }); // asset: debit-normal
    expect(w).toMatchObject({ balance: 700, available_balance: 700, pending_balance: 0 }); // liability: credit-normal
    expect(w.recent_entries!.map((e) => [e.entry_type, e.amount, e.running_balance, e.description])).toEqual([
      ['debit', 300, 700, 'spend'],
      ['credit', 1000, 1000, 'top-up'],
    ]);
    expect(w.recent_entries![0]).toMatchObject({ journal_entry_id: r2.body.id, object: 'ledger_entry' });
    expect(w.recent_entries![0].created_at).toMatch(ISO_MS);
    expect(w.active_holds).toEqual([]);

    const got = await s.request('GET', `/journal-entries/${r1.body.id}`);
    expect(got.body).toEqual(r1.body);
  });

  it('shows the last 10 entries in recent_entries and all of them, paginated, in /entries', async () => {
    const { cash, wallet } = await fundedWallet(s, 0);
    for (let i = 1; i <= 12; i++) expect((await post(s, pair(cash.id, wallet.id, i, `n${i}`))).status).toBe(201);
    const w = await get(s, wallet.id);
    expect(w.recent_entries).toHaveLength(10);
    expect(w.recent_entries![0]).toMatchObject({ amount: 12, running_balance: 78 });
    expect(w.recent_entries![9]).toMatchObject({ amount: 3, running_balance: 6 });
    const page = await s.request('GET', `/ledger-accounts/${wallet.id}/entries?limit=5`);
    expect(page.body).toMatchObject({ object: 'list', has_more: true, total_count: 12 });
    const all = await allEntries(s, wallet.id);
    expect(all.map((e) => e.amount)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    // running_balance is the balance right after each line.
    let running = 0;
    for (const e of [...all].reverse()) {
      running += e.amount;
      expect(e.running_balance).toBe(running);
    }
  });

  it('refuses unbalanced, one-line, mixed-currency and zero-amount entries, and unknown accounts', async () => {
    const { cash, wallet } = await fundedWallet(s, 0);
    const eur = await account(s, { currency: 'eur' });
    const unbalanced = {
      entries: [
        { account_id: cash.id, direction: 'debit', amount: 10 },
        { account_id: wallet.id, direction: 'credit', amount: 9 },
      ],
    };
    expectError(await post(s, unbalanced), 400, 'invalid_request_error', 'journal_entry_unbalanced', 'entries');
    expectError(
      await post(s, { entries: [{ account_id: cash.id, direction: 'debit', amount: 10 }] }),
      400,
      'validation_error',
      'parameter_invalid',
      'entries',
    );
    expectError(
      await post(s, pair(cash.id, eur.id, 10)),
      400,
      'invalid_request_error',
      'currency_mismatch',
      'entries[1].account_id',
    );
    expectError(
      await post(s, pair(cash.id, wallet.id, 0)),
      400,
      'validation_error',
      'parameter_invalid',
      'entries[0].amount',
    );
    expectError(
      await post(s, pair(cash.id, wallet.id, 1.5)),
      400,
      'validation_error',
      'parameter_invalid',
      'entries[0].amount',
    );
    expectError(
      await post(s, {
        entries: [
          { account_id: cash.id, direction: 'debit', amount: 5 },
          { account_id: wallet.id, direction: 'up', amount: 5 },
        ],
      }),
      400,
      'validation_error',
      'parameter_invalid',
      'entries[1].direction',
    );
    expectError(
      await post(s, pair(cash.id, 'la_nope', 10)),
      404,
      'invalid_request_error',
      'resource_missing',
      'entries[1].account_id',
    );
    expectError(
      await post(s, { ...pair(cash.id, wallet.id, 10), currency: 'eur' }),
      400,
      'invalid_request_error',
      'currency_mismatch',
    );
    // Nothing was posted by any of these (atomic).
    expect((await get(s, cash.id)).balance).toBe(0);
    expect((await get(s, wallet.id)).recent_entries).toEqual([]);
  });

  it('refuses posting to a frozen account with 409 ledger_account_frozen, atomically', async () => {
    const { cash, wallet } = await fundedWallet(s, 500);
    const other = await account(s);
    await s.request('POST', `/ledger-accounts/${wallet.id}/freeze`, { body: { reason: 'investigation' } });
    const threeLines = {
      entries: [
        { account_id: cash.id, direction: 'debit', amount: 20 },
        { account_id: other.id, direction: 'credit', amount: 10 },
        { account_id: wallet.id, direction: 'credit', amount: 10 },
      ],
    };
    expectError(await post(s, threeLines), 409, 'invalid_request_error', 'ledger_account_frozen');
    expectError(await post(s, pair(wallet.id, cash.id, 1)), 409, 'invalid_request_error', 'ledger_account_frozen');
    expectError(
      await s.request('POST', `/ledger-accounts/${wallet.id}/holds`, { body: { amount: 1 } }),
      409,
      'invalid_request_error',
      'ledger_account_frozen',
    );
    expect((await get(s, other.id)).balance).toBe(0);
    expect((await get(s, cash.id)).balance).toBe(500);
    await s.request('POST', `/ledger-accounts/${wallet.id}/unfreeze`);
    expect((await post(s, threeLines)).status).toBe(201);
  });

  it('never takes a non-system account below 0 available (409 insufficient_available_balance); system accounts may', async () => {
    const { cash, wallet } = await fundedWallet(s, 100);
    const dest = await account(s);
    expectError(
      await post(s, pair(wallet.id, dest.id, 101)),
      409,
      'invalid_request_error',
      'insufficient_available_balance',
    );
    expect((await post(s, pair(wallet.id, dest.id, 100))).status).toBe(201);
    // A plain asset account cannot go negative either (crediting it lowers it).
    const plain = await account(s, { account_type: 'asset' });
    expectError(
      await post(s, pair(dest.id, plain.id, 1)),
      409,
      'invalid_request_error',
      'insufficient_available_balance',
    );
    // A system account can.
    const sys = await account(s, { account_type: 'liability', is_system_account: true });
    expect(sys.is_system_account).toBe(true);
    expect((await post(s, pair(sys.id, dest.id, 50))).status).toBe(201);
    expect((await get(s, sys.id)).balance).toBe(-50);
    expect((await get(s, cash.id)).balance).toBe(100);
  });

  it('reverses an entry with a new, opposite entry; the original stays; only once', async () => {
    const { cash, wallet } = await fundedWallet(s, 0);
    const orig = await post(s, pair(cash.id, wallet.id, 250, 'mistake'));
    const rev = await s.request<JournalEntry>('POST', `/journal-entries/${orig.body.id}/reverse`, {
      body: { description: 'undo' },
    });
    expect(rev.status).toBe(201);
    expect(rev.body).toMatchObject({ reverses: orig.body.id, amount: 250, description: 'undo' });
    expect(rev.body.entries.map((l) => [l.account_id, l.direction])).toEqual([
      [cash.id, 'credit'],
      [wallet.id, 'debit'],
    ]);
    const again = await s.request('GET', `/journal-entries/${orig.body.id}`);
    expect(again.body).toEqual({ ...orig.body, reversed_by: rev.body.id });
    expect((await get(s, wallet.id)).balance).toBe(0);
    expect((await get(s, cash.id)).balance).toBe(0);
    expectError(
      await s.request('POST', `/journal-entries/${orig.body.id}/reverse`),
      409,
      'invalid_request_error',
      'journal_entry_unexpected_state',
    );
    expectError(
      await s.request('POST', `/journal-entries/${rev.body.id}/reverse`),
      400,
      'invalid_request_error',
      'journal_entry_is_reversal',
    );
    // Immutable: no route changes or deletes a posted entry.
    expect((await s.request('PATCH', `/journal-entries/${orig.body.id}`, { body: {} })).status).toBe(405);
    expect((await s.request('DELETE', `/journal-entries/${orig.body.id}`)).status).toBe(405);
  });

  it('a reversal that would overdraw is refused', async () => {
    const { cash, wallet } = await fundedWallet(s, 0);
    const dest = await account(s);
    const top = await post(s, pair(cash.id, wallet.id, 100));
    await post(s, pair(wallet.id, dest.id, 80));
    expectError(
      await s.request('POST', `/journal-entries/${top.body.id}/reverse`),
      409,
      'invalid_request_error',
      'insufficient_available_balance',
    );
  });

  it('lists journal entries newest first', async () => {
    const { cash, wallet } = await fundedWallet(s, 0);
    const a = await post(s, pair(cash.id, wallet.id, 1));
    const b = await post(s, pair(cash.id, wallet.id, 2));
    const list = await s.request<List<JournalEntry>>('GET', '/journal-entries?limit=2');
    expect(list.body.data.map((j) => j.id)).toEqual([b.body.id, a.body.id]);
  });
});

describe('holds', () => {
  it('a hold moves money from available to pending; release gives it back', async () => {
    const { wallet } = await fundedWallet(s, 1000);
    const h = await s.request('POST', `/ledger-accounts/${wallet.id}/holds`, {
      body: { amount: 300, description: 'card auth' },
    });
    expect(h.status).toBe(201);
    expect(h.body).toMatchObject({
      object: 'hold',
      status: 'active',
      amount: 300,
      currency: 'USD',
      ledger_account_id: wallet.id,
      description: 'card auth',
    });
    expect(h.body.id).toMatch(/^hold_/);
    expect(h.body.expires_at).toMatch(ISO_MS);
    const w = await get(s, wallet.id);
    expect(w).toMatchObject({ balance: 1000, pending_balance: 300, available_balance: 700 });
    expect(w.active_holds).toHaveLength(1);
    expect(w.active_holds![0]).toMatchObject({
      id: h.body.id,
      amount: 300,
      description: 'card auth',
      status: 'active',
    });
    expectError(
      await s.request('POST', `/ledger-accounts/${wallet.id}/holds`, { body: { amount: 701 } }),
      409,
      'invalid_request_error',
      'insufficient_available_balance',
    );

    const rel = await s.request('POST', `/holds/${h.body.id}/release`);
    expect(rel.body).toMatchObject({ status: 'released' });
    expect(rel.body.released_at).toMatch(ISO_MS);
    expect(await get(s, wallet.id)).toMatchObject({
      balance: 1000,
      pending_balance: 0,
      available_balance: 1000,
      active_holds: [],
    });
    expectError(
      await s.request('POST', `/holds/${h.body.id}/release`),
      409,
      'invalid_request_error',
      'hold_unexpected_state',
    );
    expectError(
      await s.request('POST', `/holds/${h.body.id}/capture`, { body: { destination_account_id: wallet.id } }),
      409,
      'invalid_request_error',
      'hold_unexpected_state',
    );
  });

  it('capture posts the journal entry into the destination account', async () => {
    const { wallet } = await fundedWallet(s, 1000);
    const merchant = await account(s, { name: 'Merchant' });
    const h = await s.request('POST', `/ledger-accounts/${wallet.id}/holds`, { body: { amount: 400 } });
    expectError(
      await s.request('POST', `/holds/${h.body.id}/capture`, { body: {} }),
      400,
      'validation_error',
      'parameter_missing',
      'destination_account_id',
    );
    expectError(
      await s.request('POST', `/holds/${h.body.id}/capture`, { body: { destination_account_id: 'la_nope' } }),
      404,
      'invalid_request_error',
      'resource_missing',
      'destination_account_id',
    );
    expectError(
      await s.request('POST', `/holds/${h.body.id}/capture`, {
        body: { destination_account_id: merchant.id, amount: 401 },
      }),
      400,
      'validation_error',
      'parameter_invalid',
      'amount',
    );
    const cap = await s.request('POST', `/holds/${h.body.id}/capture`, {
      body: { destination_account_id: merchant.id },
    });
    expect(cap.status).toBe(200);
    expect(cap.body).toMatchObject({ status: 'captured', captured_amount: 400, destination_account_id: merchant.id });
    const je = await s.request<JournalEntry>('GET', `/journal-entries/${cap.body.journal_entry_id}`);
    expect(je.body).toMatchObject({ hold_id: h.body.id, amount: 400 });
    expect(je.body.entries.map((l) => [l.account_id, l.direction, l.amount])).toEqual([
      [wallet.id, 'debit', 400],
      [merchant.id, 'credit', 400],
    ]);
    expect(await get(s, wallet.id)).toMatchObject({ balance: 600, pending_balance: 0, available_balance: 600 });
    expect(await get(s, merchant.id)).toMatchObject({ balance: 400, available_balance: 400 });
  });

  it('a partial capture releases the rest; a frozen destination refuses and nothing changes', async () => {
    const { wallet } = await fundedWallet(s, 1000);
    const merchant = await account(s);
    const h = await s.request('POST', `/ledger-accounts/${wallet.id}/holds`, { body: { amount: 500 } });
    await s.request('POST', `/ledger-accounts/${merchant.id}/freeze`, { body: { reason: 'kyc' } });
    expectError(
      await s.request('POST', `/holds/${h.body.id}/capture`, { body: { destination_account_id: merchant.id } }),
      409,
      'invalid_request_error',
      'ledger_account_frozen',
    );
    expect(await get(s, wallet.id)).toMatchObject({ pending_balance: 500, available_balance: 500 });
    expect((await s.request('GET', `/holds/${h.body.id}`)).body.status).toBe('active');
    await s.request('POST', `/ledger-accounts/${merchant.id}/unfreeze`);
    const cap = await s.request('POST', `/holds/${h.body.id}/capture`, {
      body: { destination_account_id: merchant.id, amount: 200 },
    });
    expect(cap.body).toMatchObject({ status: 'captured', amount: 500, captured_amount: 200 });
    expect(await get(s, wallet.id)).toMatchObject({ balance: 800, pending_balance: 0, available_balance: 800 });
  });

  it('holds expire on the test clock', async () => {
    const t = await startTestServer({ memory: true });
    try {
      const { wallet } = await fundedWallet(t, 100);
      const now = (await t.request('GET', '/test-helpers/clock')).body;
      const nowMs = Date.parse(now.now_iso);
      expectError(
        await t.request('POST', `/ledger-accounts/${wallet.id}/holds`, {
          body: { amount: 10, expires_at: new Date(nowMs - 1000).toISOString() },
        }),
        400,
        'validation_error',
        'parameter_invalid',
        'expires_at',
      );
      const soon = await t.request('POST', `/ledger-accounts/${wallet.id}/holds`, {
        body: { amount: 30, expires_at: new Date(nowMs + 3600_000).toISOString() },
      });
      const later = await t.request('POST', `/ledger-accounts/${wallet.id}/holds`, { body: { amount: 20 } }); // default: 7 days
      expect(Date.parse(later.body.expires_at) - nowMs).toBeGreaterThan(7 * 86400_000 - 60_000);
      expect(await get(t, wallet.id)).toMatchObject({ pending_balance: 50, available_balance: 50 });
      const adv = await t.request('POST', '/test-helpers/advance-clock', { body: { seconds: 3601 } });
      expect(adv.body.ran).toEqual([expect.objectContaining({ name: 'ledger hold expiry', count: 1 })]);
      const h = await t.request('GET', `/holds/${soon.body.id}`);
      expect(h.body).toMatchObject({ status: 'expired', expired_at: soon.body.expires_at });
      expect(await get(t, wallet.id)).toMatchObject({ pending_balance: 20, available_balance: 80 });
      expectError(
        await t.request('POST', `/holds/${soon.body.id}/capture`, { body: { destination_account_id: wallet.id } }),
        409,
        'invalid_request_error',
        'hold_unexpected_state',
      );
      await t.request('POST', '/test-helpers/advance-clock', { body: { seconds: 7 * 86400 } });
      const list = await t.request<List<Hold>>('GET', `/ledger-accounts/${wallet.id}/holds?status=expired`);
      expect(list.body.data.map((x) => x.id)).toEqual([later.body.id, soon.body.id]);
      expect(await get(t, wallet.id)).toMatchObject({ balance: 100, pending_balance: 0, available_balance: 100 });
    } finally {
      await t.close();
    }
  });

  it('objects of one merchant account are invisible to another (404)', async () => {
    const { wallet } = await fundedWallet(s, 100);
    const made = await runCli(['server', 'keys', 'create', '--json', '--data-dir', s.dataDir!]);
    expect(made.code).toBe(0);
    const key = made.json<{ api_key: string }>().api_key;
    expectError(
      await s.request('GET', `/ledger-accounts/${wallet.id}`, { key }),
      404,
      'invalid_request_error',
      'resource_missing',
    );
    expectError(
      await s.request('POST', `/ledger-accounts/${wallet.id}/freeze`, { key, body: {} }),
      404,
      'invalid_request_error',
      'resource_missing',
    );
    const mine = await account(s, { account_type: 'asset' });
    const theirs = await s.request('POST', '/ledger-accounts', {
      key,
      body: { name: 'x', account_type: 'liability', currency: 'usd' },
    });
    expectError(
      await s.request('POST', '/journal-entries', { key, body: pair(mine.id, theirs.body.id, 1) }),
      404,
      'invalid_request_error',
      'resource_missing',
      'entries[0].account_id',
    );
    expect((await s.request('GET', '/ledger-accounts', { key })).body.total_count).toBe(1);
  });
});
