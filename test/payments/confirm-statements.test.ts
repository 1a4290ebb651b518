// What a confirm-payment asks SQLite, observed on better-sqlite3's own Statement while one confirm runs through
// the real server over HTTP (the real statements still run). A confirm is the busiest write of the API
// (bench/README.md): what it must not do again is pinned here, next to what it must still produce.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { onSqlite } from '../helpers/engine.js';

let s: TestServer;
beforeAll(async () => {
  // No due-work tick: its own statements (the settlement scan reads payments) would land in the window under load.
  s = await startTestServer({ memory: true, dueWorkIntervalMs: 0 });
});
afterAll(() => s.close());

/** The SQL of every statement this process runs while `fn` runs. */
async function statementsOf(fn: () => Promise<unknown>): Promise<string[]> {
  const proto = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as Record<
    string,
    (...a: unknown[]) => unknown
  >;
  const seen: string[] = [];
  const originals = Object.fromEntries(['run', 'get', 'all', 'iterate'].map((m) => [m, proto[m]!]));
  for (const [m, original] of Object.entries(originals)) {
    proto[m] = function (this: { source: string }, ...args: unknown[]) {
      seen.push(this.source.replace(/\s+/g, ' '));
      return original.apply(this, args);
    };
  }
  try {
    await fn();
  } finally {
    Object.assign(proto, originals);
  }
  return seen;
}

const newSession = async () =>
  (await s.request('POST', '/create-session', { body: { amount: 1999, currency: 'usd' } })).body;
const confirm = (session: { id: string; client_secret: string }) =>
  s.request('POST', `/confirm-payment/${session.id}`, { body: { token_id: 'tok_visa' }, key: session.client_secret });

describe('a confirm-payment', () => {
  it.runIf(onSqlite)(
    'reads neither the payment it stored, nor the columns of the rows it read before updating them, nor its session twice',
    async () => {
      expect((await confirm(await newSession())).status).toBe(200); // the ledger's system accounts exist from here on
      const session = await newSession();
      let paid: Awaited<ReturnType<typeof confirm>> | undefined;
      const seen = await statementsOf(async () => {
        paid = await confirm(session);
      });
      expect(paid!.status).toBe(200);
      expect(seen.filter((sql) => /^INSERT INTO payments\b/.test(sql))).toHaveLength(1); // it did run
      // The session's event shows the new payment as its latest attempt without a query for it.
      expect(seen.filter((sql) => /^SELECT\b.*\bFROM payments\b/.test(sql))).toEqual([]);
      // Collection.update: the session and the two ledger balances are updated without reading their columns back.
      expect(seen.filter((sql) => /^SELECT status, /.test(sql))).toEqual([]);
      expect(seen.filter((sql) => /^UPDATE (payment_sessions|ledger_accounts)\b/.test(sql))).toHaveLength(3);
      // The session is read once in the confirm's transaction (the transition uses what the confirm read), besides
      // the client-secret authentication's read before it.
      expect(seen.filter((sql) => /^SELECT data FROM payment_sessions\b/.test(sql))).toHaveLength(1);

      const events = (await s.request('GET', `/events?object_id=${session.id}&type=payment_session.succeeded`)).body
        .data;
      expect(events).toHaveLength(1);
      expect(events[0].data.object.latest_attempt).toEqual({
        id: paid!.body.id,
        psp: paid!.body.psp,
        status: 'captured',
        psp_transaction_id: paid!.body.psp_transaction_id,
      });
      const captured = (await s.request('GET', `/events?object_id=${paid!.body.id}&type=payment.captured`)).body.data;
      expect(captured.map((e: { data: { object: unknown } }) => e.data.object)).toEqual([paid!.body]);
    },
  );
});
