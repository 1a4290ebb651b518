// The event log: one event per committed change, in the change's transaction (none for a change that is undone),
// readable by the account that made it and no other, filtered and paginated like every list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, sqliteOf } from '../helpers/server.js';
import { statementsRun } from '../helpers/statements.js';
import { LongRead } from '../../dist/lib/server/adapters/sqlite/longread.js';
import { toServiceError } from '../../dist/lib/server/http/replies.js';
import { advance, confirm, newSession } from '../payments/util.js';
import { onSqlite } from '../helpers/engine.js';

let s: TestServer;
beforeAll(async () => {
  // No timers of the server's own run statements while a test counts them (statementsRun): the periodic due work
  // looks for expired events (`FROM events WHERE … ORDER BY seq`), and under load a request outlasted its 1 s tick.
  // Clock advances still run what came due.
  s = await startTestServer({ dueWorkIntervalMs: 0, webhooks: { pollIntervalMs: 3_600_000 } });
});
afterAll(() => s.close());

async function events(query = '', key?: string) {
  const r = await s.request('GET', `/events${query}`, key ? { key } : {});
  expect(r.status).toBe(200);
  return r.body as { data: any[]; has_more: boolean; total_count: number };
}

describe('the event log', () => {
  it.runIf(onSqlite)(
    'keeps a created session as the text JSON.stringify makes of its event, the answer without its secret',
    async () => {
      const created = await s.request('POST', '/create-session', {
        body: { amount: 1250, currency: 'eur', metadata: { note: 'line\nbreak "quoted" \u2028' } },
      });
      expect(created.status).toBe(201);
      const row = sqliteOf(s)
        .db.prepare("SELECT body FROM events WHERE object_id = ? AND type = 'payment_session.created'")
        .get(created.body.id) as { body: string };
      const { client_secret: _secret, ...object } = created.body;
      expect(JSON.parse(row.body).data.object).toEqual(object);
      expect(JSON.stringify(JSON.parse(row.body))).toBe(row.body);
    },
  );

  it('records a session and its payment with the live service’s payment fields', async () => {
    const session = await newSession(s, { amount: 1999 });
    const r = await confirm(s, session, { payment_method_type: 'card', token_id: 'tok_visa' });
    expect(r.status).toBe(200);
    const list = await events(`?object_id=${r.body.id}`);
    expect(list.data.map((e) => e.type)).toEqual(['payment.captured']);
    const e = list.data[0];
    expect(e).toMatchObject({
      object: 'event',
      livemode: false,
      session_id: session.id,
      transaction_id: r.body.id,
      amount: 1999,
      currency: 'USD',
      psp: r.body.psp,
      data: { object: { id: r.body.id, object: 'payment', status: 'captured' } },
    });
    expect(e.id).toMatch(/^evt_/);
    expect(new Date(e.timestamp).getTime()).toBeGreaterThan(0);
    expect((await s.request('GET', `/events/${e.id}`)).body).toEqual(e);

    const sessionEvents = await events(`?object_id=${session.id}`);
    expect(sessionEvents.data.map((x) => x.type)).toEqual(['payment_session.succeeded', 'payment_session.created']);
    const succeeded = sessionEvents.data[0];
    expect(succeeded.data.previous_attributes).toMatchObject({ status: 'requires_payment_method' });
    expect(succeeded.data.object.latest_attempt).toMatchObject({ id: r.body.id, status: 'captured' });
    // events never carry the session's client secret
    expect(JSON.stringify(sessionEvents)).not.toContain(session.client_secret);
    expect(JSON.stringify(sessionEvents)).not.toContain('client_secret');
  });

  it('records nothing for a request that fails, and one event for each of many concurrent writes', async () => {
    const before = (await events('?type=payment_session.created')).total_count;
    const bad = s.request('POST', '/create-session', { body: { amount: -1, currency: 'usd' } });
    const sessions = await Promise.all(Array.from({ length: 40 }, () => newSession(s)));
    // confirms racing on the same session: one wins, the others get 409 and record nothing
    const target = await newSession(s);
    const racing = await Promise.all(
      Array.from({ length: 6 }, () => confirm(s, target, { payment_method_type: 'card', token_id: 'tok_visa' })),
    );
    expect((await bad).status).toBe(400);
    expect(racing.filter((r) => r.status === 200)).toHaveLength(1);
    const after = await events('?type=payment_session.created&limit=100');
    expect(after.total_count).toBe(before + 41);
    const ids = after.data.map((e) => e.data.object.id);
    for (const x of [...sessions, target]) expect(ids.filter((id) => id === x.id)).toHaveLength(1);
    expect((await events(`?object_id=${target.id}&type=payment_session.succeeded`)).total_count).toBe(1);
    expect((await s.request('GET', '/events?session=1')).status).toBe(400); // an unknown filter is an error, not "all"
  });

  it('filters by type patterns and created range, and paginates both ways', async () => {
    const all = await events('?limit=100&type=payment_session.*');
    expect(all.data.every((e) => e.type.startsWith('payment_session.'))).toBe(true);
    const created = await events('?type=*.created&limit=3');
    expect(created.data.every((e) => e.type.endsWith('.created'))).toBe(true);
    expect(created.has_more).toBe(true);
    const next = await events(`?type=*.created&limit=3&starting_after=${created.data[2].id}`);
    expect(next.data.map((e) => e.id)).not.toContain(created.data[0].id);
    const back = await events(`?type=*.created&limit=3&ending_before=${next.data[0].id}`);
    expect(back.data.map((e) => e.id)).toEqual(created.data.map((e) => e.id));

    const t = created.data[0].created;
    expect((await events(`?created[gt]=${t}`)).total_count).toBe(0);
    expect((await events(`?created[gte]=${t}`)).total_count).toBeGreaterThan(0);
    expect((await events(`?created[lt]=${t - 3600}`)).total_count).toBe(0);
    // `created=<second>` (Stripe's form): exactly the events of that second
    const second = await events(`?created=${t}&limit=100`);
    expect(second.total_count).toBeGreaterThan(0);
    expect(second.data.every((e) => e.created === t)).toBe(true);
    expect(second.total_count).toBe((await events(`?created[gte]=${t}&created[lte]=${t}`)).total_count);
    expect((await events(`?created=${t + 1}`)).total_count).toBe(0);
    expect((await s.request('GET', '/events?created=1e400')).status).toBe(400);
    const bad = await s.request('GET', '/events?type=payment;drop');
    expect(bad.status).toBe(400);
    expect((await s.request('GET', '/events?created[gte]=1e400')).status).toBe(400);
  });

  it('counts from kept counters: total_count equals a full listing, and a type nobody recorded reads no event', async () => {
    await newSession(s);
    const listed = async (query: string) => {
      let n = 0;
      let after = '';
      for (;;) {
        const page = await events(`?limit=100${query}${after}`);
        n += page.data.length;
        if (!page.has_more) return n;
        after = `&starting_after=${page.data.at(-1).id}`;
      }
    };
    for (const q of [
      '',
      '&type=payment_session.created',
      '&type=payment*',
      '&type=*.created',
      '&type=customer.deleted',
    ]) {
      expect((await events(`?limit=1${q}`)).total_count, q).toBe(await listed(q));
    }
    const none = await statementsRun(() => events('?type=customer.deleted'));
    expect(none.result.total_count).toBe(0);
    expect(none.ran.filter((q) => /FROM events/.test(q))).toEqual([]);
    const some = await statementsRun(() => events('?type=payment_session.*&limit=2'));
    expect(some.result.data).toHaveLength(2);
    expect(some.ran.filter((q) => /COUNT\(\*\)/.test(q))).toEqual([]);
    // an unknown cursor is still an error, also when the filter matches nothing
    expect((await s.request('GET', '/events?type=customer.deleted&starting_after=evt_nope')).status).toBe(400);
  });

  it.runIf(onSqlite)(
    'reads a list filtered by type or time off the HTTP thread, with the same pages and totals',
    async () => {
      await newSession(s);
      await newSession(s);
      const everything: any[] = [];
      for (let after = ''; ;) {
        const page = await events(`?limit=100${after}`);
        everything.push(...page.data);
        if (!page.has_more) break;
        after = `&starting_after=${page.data.at(-1).id}`;
      }
      const t = everything[1].created;
      const cases: [string, (e: any) => boolean][] = [
        [`created[gte]=${t}`, (e) => e.created >= t],
        [`created[lt]=${t}`, (e) => e.created < t],
        [`created[lte]=${t}&type=payment_session.*`, (e) => e.created <= t && e.type.startsWith('payment_session.')],
        ['type=payment_session.created', (e) => e.type === 'payment_session.created'],
      ];
      for (const [query, keep] of cases) {
        const expected = everything.filter(keep);
        const first = await statementsRun(() => events(`?limit=2&${query}`));
        // no statement over the log ran on the HTTP thread's connection (the cursor's own lookup aside)
        expect(
          first.ran.filter((q) => /FROM events WHERE .*ORDER BY|COUNT\(\*\)/.test(q)),
          query,
        ).toEqual([]);
        expect(first.result.total_count, query).toBe(expected.length);
        expect(
          first.result.data.map((e) => e.id),
          query,
        ).toEqual(expected.slice(0, 2).map((e) => e.id));
        expect(first.result.has_more, query).toBe(expected.length > 2);
        if (expected.length > 2) {
          const next = await events(`?limit=2&${query}&starting_after=${first.result.data[1].id}`);
          expect(
            next.data.map((e) => e.id),
            query,
          ).toEqual(expected.slice(2, 4).map((e) => e.id));
        }
      }
      // without the reader (stopped, or failed) the same list is read on the HTTP thread, with the same answer
      const store = sqliteOf(s);
      await store.stopBackgroundReads();
      try {
        const [query, keep] = cases[2]!;
        const inline = await statementsRun(() => events(`?limit=2&${query}`));
        expect(inline.ran.filter((q) => /FROM events WHERE .*ORDER BY/.test(q))).toHaveLength(1);
        expect([inline.result.total_count, inline.result.data.map((e) => e.id)]).toEqual([
          everything.filter(keep).length,
          everything
            .filter(keep)
            .slice(0, 2)
            .map((e) => e.id),
        ]);
      } finally {
        store.readInBackground();
      }
    },
  );

  it.runIf(onSqlite)(
    "keeps a failed long read's SQLite code, so that a storage fault there is a 503 as on the HTTP thread",
    async () => {
      const { store } = s.server.services;
      await events('?limit=1&type=payment_session.created'); // the worker runs
      const failed = await store
        .readAway(new LongRead([{ sql: 'SELECT abs(-9223372036854775808)', params: [] }], (rows) => rows))
        .catch((err: unknown) => err);
      expect(failed).toBeInstanceOf(Error);
      expect([(failed as { code?: string }).code, (failed as Error).message]).toEqual([
        'SQLITE_ERROR',
        'long read failed: integer overflow',
      ]);
      expect(
        toServiceError(Object.assign(new Error('long read failed: disk I/O error'), { code: 'SQLITE_IOERR_READ' }))
          .status,
      ).toBe(503);
      // the worker still reads
      expect((await events('?limit=1&type=payment_session.created')).data).toHaveLength(1);
    },
  );

  it('shows an account only its own events', async () => {
    const keyB = (await s.server.services.accounts.createAccountWithKey()).api_key;
    const mine = await events('?limit=1');
    expect((await events('', keyB)).total_count).toBe(0);
    const r = await s.request('GET', `/events/${mine.data[0].id}`, { key: keyB });
    expect([r.status, r.body.error.code]).toEqual([404, 'resource_missing']);
    const cursor = await s.request('GET', `/events?starting_after=${mine.data[0].id}`, { key: keyB });
    expect(cursor.status).toBe(400);
  });
});

describe('the events of a capture', () => {
  /** The types of the events about the payment, its session and its journal entry, oldest first. */
  async function story(t: TestServer, paymentId: string, sessionId: string): Promise<string[]> {
    const r = await t.request('GET', '/events?limit=100');
    expect(r.body.has_more).toBe(false);
    return (r.body.data as any[])
      .reverse()
      .filter((e) => [paymentId, sessionId].includes(e.data.object.id) || e.data.object.payment_id === paymentId)
      .map((e) => e.type);
  }
  const CAPTURED = ['payment.captured', 'payment_session.succeeded', 'journal_entry.created'];

  it('are the payment’s, then the session’s, then the journal entry’s — however the payment was captured', async () => {
    const t = await startTestServer({ memory: true });
    try {
      const auto = await newSession(t);
      const a = await confirm(t, auto, { token_id: 'tok_visa' });
      expect(await story(t, a.body.id, auto.id)).toEqual(['payment_session.created', ...CAPTURED]);

      const manual = await newSession(t, { capture_method: 'manual' });
      const m = await confirm(t, manual, { token_id: 'tok_visa' });
      expect((await t.request('POST', `/capture-payment/${m.body.id}`, { body: {} })).status).toBe(200);
      expect(await story(t, m.body.id, manual.id)).toEqual([
        'payment_session.created',
        'payment.authorized',
        ...CAPTURED,
      ]);

      const threeds = await newSession(t);
      const d = await confirm(t, threeds, { token_id: 'tok_threeDSecureRequired' });
      expect(
        (await t.request('POST', `/threeds-authenticate/sessions/${threeds.id}/challenge-complete`, { body: {} }))
          .status,
      ).toBe(200);
      expect(await story(t, d.body.id, threeds.id)).toEqual([
        'payment_session.created',
        'payment.requires_action',
        ...CAPTURED,
      ]);

      const ba = (
        await t.request('POST', '/bank-accounts', {
          body: { account_number: '000123456789', routing_number: '110000000', holder_name: 'Jenny Rosen' },
        })
      ).body;
      await t.request('POST', `/bank-accounts/${ba.id}/initiate-microdeposits`);
      expect(
        (await t.request('POST', `/bank-accounts/${ba.id}/verify`, { body: { amounts: [45, 32] } })).body,
      ).toMatchObject({ verified: true });
      const ach = await newSession(t, { payment_method_types: ['bank_account'] });
      const b = await confirm(t, ach, { bank_account: { account_holder_name: 'Jenny Rosen', bank_account_id: ba.id } });
      expect(b.body.status).toBe('pending');
      await advance(t, 3 * 86400);
      expect(await story(t, b.body.id, ach.id)).toEqual(['payment_session.created', ...CAPTURED]);
    } finally {
      await t.close();
    }
  });
});

describe('payment session updates', () => {
  it('record payment_session.updated with the altered fields before the change, and nothing for an update that alters nothing', async () => {
    const session = await newSession(s, { amount: 1000, description: 'before' });
    const r = await s.request('PATCH', `/sessions/${session.id}`, { body: { amount: 1500, description: 'after' } });
    expect(r.status).toBe(200);
    const list = await events(`?object_id=${session.id}&type=payment_session.updated`);
    expect(list.data).toHaveLength(1);
    expect(list.data[0].data.object).toMatchObject({ id: session.id, amount: 1500, description: 'after' });
    expect(list.data[0].data.object).not.toHaveProperty('client_secret');
    expect(list.data[0].data.previous_attributes).toMatchObject({ amount: 1000, description: 'before' });
    expect(Object.keys(list.data[0].data.previous_attributes).sort()).toEqual(['amount', 'description', 'updated_at']);
    await s.request('PATCH', `/sessions/${session.id}`, { body: { amount: 1500 } });
    expect((await events(`?object_id=${session.id}&type=payment_session.updated`)).total_count).toBe(1);
  });
});

describe('the catalog', () => {
  it('docs/api.md lists every event type with the catalog’s description', async () => {
    const { readFileSync } = await import('node:fs');
    const { EVENT_TYPES, eventTypes } = await import('../../dist/lib/contract/events.js');
    const docs = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const missing = eventTypes.filter((t) => !docs.includes(`| \`${t}\` | ${EVENT_TYPES[t].when} |`));
    expect(missing).toEqual([]);
  });
});
