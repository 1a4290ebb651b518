// The three requests of the hot path whose statements are counted (test/store/hot-path-statements.test.ts on
// SQLite, test/postgres/hot-path-statements.test.ts on PostgreSQL), as the bench loads them: create-session, a
// two-line journal entry between two system accounts, confirm-payment with tok_visa (of a session of its own). Every
// POST has an Idempotency-Key of its own.
import type { HttpResult, TestServer } from './server.js';

export const HOT_PATHS = ['create-session', 'journal entry (two lines)', 'confirm-payment (tok_visa)'] as const;
export type HotPath = (typeof HOT_PATHS)[number];

/** A request of the hot path: something to do before it (not counted), and the request. */
export interface Workload {
  prepare: () => Promise<unknown>;
  request: (prepared: any) => Promise<HttpResult>;
}

/** The workloads on server `s` (its ledger's two accounts made first). */
export async function hotPathWorkloads(s: TestServer): Promise<Record<HotPath, Workload>> {
  let key = 0;
  /** A POST with its own Idempotency-Key (the server's API key unless `secret`). */
  const post = (path: string, body: unknown, secret?: string): Promise<HttpResult> =>
    s.request('POST', path, { body, key: secret, headers: { 'idempotency-key': `hot-path-${key++}` } });
  const account = async (name: string, account_type: string) =>
    (await post('/ledger-accounts', { name, account_type, currency: 'usd', is_system_account: true })).body
      .id as string;
  const cash = await account('cash', 'asset');
  const wallet = await account('wallet', 'liability');
  const journal = {
    description: 'bench',
    entries: [
      { account_id: cash, direction: 'debit', amount: 100 },
      { account_id: wallet, direction: 'credit', amount: 100 },
    ],
  };
  const newSession = async () =>
    (await post('/create-session', { amount: 1999, currency: 'usd' })).body as { id: string; client_secret: string };
  return {
    'create-session': {
      prepare: async () => undefined,
      request: () => post('/create-session', { amount: 1999, currency: 'usd', metadata: { order: '1234' } }),
    },
    'journal entry (two lines)': { prepare: async () => undefined, request: () => post('/journal-entries', journal) },
    'confirm-payment (tok_visa)': {
      prepare: newSession,
      request: (x: { id: string; client_secret: string }) =>
        post(`/confirm-payment/${x.id}`, { token_id: 'tok_visa' }, x.client_secret),
    },
  };
}

/** Warm-up requests before those counted: a first confirm also creates the ledger's system accounts. */
export const WARM_UP = 3;
/** Requests counted, one after another. */
export const MEASURED = 3;
