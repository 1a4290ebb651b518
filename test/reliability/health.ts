// After fuzzing, a crash or a race: the server answers, accepts a write, and the ledger invariants of docs/api.md
// "Ledger" hold over everything stored (every balance = the sum of its entries, pending = active holds, per currency
// debits = credits, every journal entry balanced with ≥ 2 lines). Over HTTP only, so it also works against a server
// in another process.
import { expect } from 'vitest';
import { responseViolation } from '../helpers/responses.js';
import type { TestServer } from '../helpers/server.js';

export type Requester = (
  method: string,
  path: string,
  opts?: { body?: unknown; headers?: Record<string, string> },
) => Promise<{ status: number; body: any; text: string }>;

export function requester(baseUrl: string, apiKey: string): Requester {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}`, ...opts.headers };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(baseUrl + path, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const text = await res.text();
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const violation = responseViolation(method, path, res.status, text);
    if (violation) throw new Error(violation);
    return { status: res.status, body, text };
  };
}

export async function listAll(req: Requester, path: string): Promise<any[]> {
  const out: any[] = [];
  let after: string | undefined;
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await req('GET', `${path}${sep}limit=100${after ? `&starting_after=${after}` : ''}`);
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text}`);
    out.push(...r.body.data);
    if (!r.body.has_more || !r.body.data.length) return out;
    after = r.body.data.at(-1).id;
  }
}

/** Every violated ledger invariant ([] when they all hold). */
export async function ledgerViolations(req: Requester): Promise<string[]> {
  const out: string[] = [];
  const accounts = await listAll(req, '/ledger-accounts');
  const perCurrency = new Map<string, { debits: number; credits: number }>();
  for (const a of accounts) {
    const entries = await listAll(req, `/ledger-accounts/${a.id}/entries`);
    const sign = (e: any) => (e.entry_type === a.normal_balance ? e.amount : -e.amount);
    const sum = entries.reduce((n, e) => n + sign(e), 0);
    if (a.balance !== sum) out.push(`${a.id}: balance ${a.balance} ≠ sum of entries ${sum}`);
    const holds = await listAll(req, `/ledger-accounts/${a.id}/holds?status=active`);
    const pending = holds.reduce((n, h) => n + h.amount, 0);
    if (a.pending_balance !== pending) out.push(`${a.id}: pending ${a.pending_balance} ≠ active holds ${pending}`);
    if (a.available_balance !== a.balance - a.pending_balance) out.push(`${a.id}: available ≠ balance − pending`);
    if (!a.is_system_account && a.available_balance < 0) out.push(`${a.id}: available ${a.available_balance} < 0`);
    const t = perCurrency.get(a.currency) ?? { debits: 0, credits: 0 };
    for (const e of entries) t[e.entry_type === 'debit' ? 'debits' : 'credits'] += e.amount;
    perCurrency.set(a.currency, t);
  }
  for (const [c, t] of perCurrency)
    if (t.debits !== t.credits) out.push(`${c}: debits ${t.debits} ≠ credits ${t.credits}`);
  for (const je of await listAll(req, '/journal-entries')) {
    const lines: any[] = je.entries ?? je.lines ?? [];
    if (lines.length < 2) out.push(`${je.id}: ${lines.length} line(s)`);
    const d = lines.filter((l) => l.direction === 'debit').reduce((n, l) => n + l.amount, 0);
    const c = lines.filter((l) => l.direction === 'credit').reduce((n, l) => n + l.amount, 0);
    if (d !== c) out.push(`${je.id}: debits ${d} ≠ credits ${c}`);
  }
  return out;
}

export async function healthy(s: TestServer): Promise<void> {
  const req = requester(s.baseUrl, s.apiKey);
  expect((await req('GET', '/health')).status).toBe(200);
  const created = await req('POST', '/create-session', { body: { amount: 100, currency: 'usd' } });
  expect(created.status, created.text).toBe(201);
  expect((await req('GET', `/sessions/${created.body.id}`)).body.id).toBe(created.body.id);
  expect(await ledgerViolations(req)).toEqual([]);
  const audit = await s.server.services.ledger.audit(s.server.accountId);
  expect(audit.mismatched).toEqual([]);
  for (const c of audit.currencies) expect(c.debits).toBe(c.credits);
}
