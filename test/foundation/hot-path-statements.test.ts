// How many SQLite statements a request on the hot path runs (issue 27): a count, not a time, so the same on any
// machine, and a regression in the hot path fails here for a reason that does not depend on the machine. Each
// request goes through the real server over HTTP, sequential (one BEGIN … COMMIT each), with an Idempotency-Key
// as the bench's load sends, after warm-up requests. `node bench/statements.js create|journal|confirm` lists the
// statements behind each count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type HttpResult, type TestServer } from '../helpers/server.js';
import { statementsRun } from '../helpers/statements.js';

/** The most statements one request may run: today's counts. Lower one when a change saves a statement. */
const STATEMENT_LIMITS = {
  'create-session': 11,
  'journal entry (two lines)': 19,
  'confirm-payment (tok_visa)': 30,
} as const;

const WARM_UP = 3;
const MEASURED = 3;

let s: TestServer;
let key = 0;
/** A POST with its own Idempotency-Key (the server's API key unless `secret`). */
const post = (path: string, body: unknown, secret?: string): Promise<HttpResult> =>
  s.request('POST', path, { body, key: secret, headers: { 'idempotency-key': `hot-path-${key++}` } });

let journal: unknown;
beforeAll(async () => {
  // No timers of the server's own (due work, the webhook dispatcher's poll) run statements between requests.
  s = await startTestServer({ dueWorkIntervalMs: 0, webhooks: { pollIntervalMs: 3_600_000 } });
  const account = async (name: string, account_type: string) =>
    (await post('/ledger-accounts', { name, account_type, currency: 'usd', is_system_account: true })).body
      .id as string;
  const cash = await account('cash', 'asset');
  const wallet = await account('wallet', 'liability');
  journal = {
    description: 'bench',
    entries: [
      { account_id: cash, direction: 'debit', amount: 100 },
      { account_id: wallet, direction: 'credit', amount: 100 },
    ],
  };
});
afterAll(() => s.close());

const newSession = async () =>
  (await post('/create-session', { amount: 1999, currency: 'usd' })).body as { id: string; client_secret: string };

/** Each workload: something to do before a request (not counted), and the request. */
const workloads: Record<
  keyof typeof STATEMENT_LIMITS,
  { prepare: () => Promise<unknown>; request: (prepared: any) => Promise<HttpResult> }
> = {
  'create-session': {
    prepare: async () => undefined,
    request: () => post('/create-session', { amount: 1999, currency: 'usd', metadata: { order: '1234' } }),
  },
  'journal entry (two lines)': { prepare: async () => undefined, request: () => post('/journal-entries', journal) },
  'confirm-payment (tok_visa)': {
    prepare: newSession,
    request: (x) => post(`/confirm-payment/${x.id}`, { token_id: 'tok_visa' }, x.client_secret),
  },
};

describe('statements per request on the hot path', () => {
  it.each(Object.keys(STATEMENT_LIMITS) as (keyof typeof STATEMENT_LIMITS)[])(
    '%s runs no more than its limit',
    async (name) => {
      const { prepare, request } = workloads[name];
      for (let i = 0; i < WARM_UP; i++) expect((await request(await prepare())).status).toBeLessThan(300); // a first confirm also creates the ledger's system accounts
      for (let i = 0; i < MEASURED; i++) {
        const prepared = await prepare();
        const { result, ran } = await statementsRun(() => request(prepared));
        expect(result.status).toBeLessThan(300);
        expect(
          ran.length,
          `${name} ran ${ran.length} statements (limit ${STATEMENT_LIMITS[name]}):\n${ran.join('\n')}`,
        ).toBeLessThanOrEqual(STATEMENT_LIMITS[name]);
      }
    },
  );
});
