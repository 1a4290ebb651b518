// The ledger's hot rows with many requests in flight through two server processes on one database (issue 44): every
// confirm-payment posts to the platform's system accounts, and a wallet's postings, holds and freeze meet on its row.
// Requests of one process share transactions (adapters/postgres/db.ts `batch`) and those of two processes meet on the
// same rows: whatever runs with whatever, a hold never overdraws, a frozen account is refused, every balance is the sum
// of its entries, and every answer is the contract's.
import { describe, expect, it } from 'vitest';
import { postgresServer } from '../helpers/postgres.js';
import { sandboxes } from './sandbox.js';
import { ledgerViolations, requester, type Requester } from '../reliability/health.js';

const pg = postgresServer();
const { sandbox } = sandboxes(pg);

const all = <T>(n: number, f: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)));

describe.skipIf(pg.missing !== '')(
  `hot rows through two processes${pg.missing ? ` (skipped: ${pg.missing})` : ''}`,
  () => {
    it('60 confirm-payments at once, half through each process: every one paid and posted, the ledger balanced', async () => {
      const { procs } = await sandbox(2);
      const [a, b] = procs.map((p) => requester(p.baseUrl, p.apiKey)) as [Requester, Requester];
      const sessions = await all(60, async () => {
        const r = await a('POST', '/create-session', { body: { amount: 1_000, currency: 'usd' } });
        expect(r.status).toBe(201);
        return r.body as { id: string; client_secret: string };
      });
      const paid = await all(60, (i) =>
        requester(procs[i % 2]!.baseUrl, sessions[i]!.client_secret)('POST', `/confirm-payment/${sessions[i]!.id}`, {
          body: { token_id: 'tok_visa' },
        }),
      );
      for (const r of paid) expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
      expect(new Set(paid.map((r) => r.body.id)).size).toBe(60);
      // Each payment posted once: the system accounts' balances are the sum of their entries, and the entries are 60.
      expect(await ledgerViolations(b)).toEqual([]);
      const accounts = (await b('GET', '/ledger-accounts?limit=100')).body.data as {
        id: string;
        system_key?: string | null;
        is_system_account: boolean;
      }[];
      const system = accounts.filter((x) => x.is_system_account);
      expect(system.length).toBeGreaterThan(0);
      const entries = (await b('GET', `/ledger-accounts/${system[0]!.id}/entries?limit=100`)).body;
      expect(entries.total_count).toBe(60);
    });

    it('holds, postings and a freeze racing on one wallet through two processes: no overdraft, the frozen refused', async () => {
      const { procs } = await sandbox(2);
      const [a, b] = procs.map((p) => requester(p.baseUrl, p.apiKey)) as [Requester, Requester];
      const account = async (body: object) => {
        const r = await a('POST', '/ledger-accounts', { body: { currency: 'usd', ...body } });
        expect(r.status).toBe(201);
        return r.body.id as string;
      };
      const cash = await account({ name: 'Cash', account_type: 'asset', is_system_account: true });
      const wallet = await account({ name: 'Wallet', account_type: 'liability' });
      const move = (from: string, to: string, amount: number) => ({
        description: 'race',
        entries: [
          { account_id: from, direction: 'debit', amount },
          { account_id: to, direction: 'credit', amount },
        ],
      });
      expect((await a('POST', '/journal-entries', { body: move(cash, wallet, 100) })).status).toBe(201);
      // 40 holds of 10 on a balance of 100, half through each process: exactly 10 taken, the rest refused.
      const holds = await all(40, (i) =>
        (i % 2 ? a : b)('POST', `/ledger-accounts/${wallet}/holds`, { body: { amount: 10, description: `h${i}` } }),
      );
      const taken = holds.filter((r) => r.status === 201);
      expect(taken).toHaveLength(10);
      for (const r of holds.filter((x) => x.status !== 201)) {
        expect(r.status).toBe(409);
        expect(r.body.error.code).toBe('insufficient_available_balance');
      }
      const w = (await b('GET', `/ledger-accounts/${wallet}`)).body;
      expect(w.available_balance).toBe(0);
      expect(w.pending_balance).toBe(100);
      // A freeze racing 39 postings into the wallet, both processes: each posting lands before the freeze or is refused.
      const raced = await all(40, (i) =>
        i === 20
          ? a('POST', `/ledger-accounts/${wallet}/freeze`, { body: { reason: 'race' } })
          : (i % 2 ? a : b)('POST', '/journal-entries', { body: move(cash, wallet, 5) }),
      );
      expect(raced[20]!.status).toBe(200);
      const posts = raced.filter((_, i) => i !== 20);
      for (const r of posts.filter((x) => x.status !== 201)) {
        expect(r.status).toBe(409);
        expect(r.body.error.code).toBe('ledger_account_frozen');
      }
      const landed = posts.filter((r) => r.status === 201).length;
      const after = (await a('GET', `/ledger-accounts/${wallet}`)).body;
      expect(after.status).toBe('frozen');
      expect(after.balance).toBe(100 + landed * 5);
      expect(await ledgerViolations(a)).toEqual([]);
    });
  },
);
