// Small helpers of the ledger suite: create accounts and fund them over HTTP.
import { expect } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import type { LedgerAccount, LedgerEntry } from '../../dist/lib/contract/ledger.js';

export async function account(s: TestServer, body: Record<string, unknown> = {}): Promise<LedgerAccount> {
  const r = await s.request('POST', '/ledger-accounts', {
    body: { name: 'Account', account_type: 'liability', currency: 'usd', ...body },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

/** A debit/credit pair: debit `from`, credit `to`. */
export function pair(debit: string, credit: string, amount: number, description = 'transfer') {
  return {
    description,
    entries: [
      { account_id: debit, direction: 'debit', amount },
      { account_id: credit, direction: 'credit', amount },
    ],
  };
}

export async function post(s: TestServer, body: unknown, headers?: Record<string, string>) {
  return s.request('POST', '/journal-entries', { body, headers });
}

/** A system funding account (asset) and a customer wallet (liability) holding `amount`. */
export async function fundedWallet(
  s: TestServer,
  amount: number,
  currency = 'usd',
): Promise<{ cash: LedgerAccount; wallet: LedgerAccount }> {
  const cash = await account(s, { name: 'Cash', account_type: 'asset', currency });
  const wallet = await account(s, { name: 'Wallet', account_type: 'liability', currency, customer_id: 'cus_wallet' });
  if (amount > 0) {
    const r = await post(s, pair(cash.id, wallet.id, amount, 'top-up'));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  }
  return { cash, wallet };
}

export async function get(s: TestServer, id: string): Promise<LedgerAccount> {
  const r = await s.request('GET', `/ledger-accounts/${id}`);
  expect(r.status).toBe(200);
  return r.body;
}

/** Every entry of an account, following pagination. */
export async function allEntries(s: TestServer, id: string): Promise<LedgerEntry[]> {
  const out: LedgerEntry[] = [];
  let after: string | undefined;
  for (;;) {
    const r = await s.request(
      'GET',
      `/ledger-accounts/${id}/entries?limit=100${after ? `&starting_after=${after}` : ''}`,
    );
    expect(r.status).toBe(200);
    out.push(...r.body.data);
    if (!r.body.has_more) return out;
    after = r.body.data.at(-1).id;
  }
}
