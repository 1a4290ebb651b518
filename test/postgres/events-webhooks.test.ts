// The event log and the webhooks area on PostgreSQL: every port method answers as SQLite's does (one scripted
// sequence run on both engines, answers compared), and what several server processes on one database must not
// break — an account's events reach a cursor that follows the log however their transactions interleave; two
// processes claiming an endpoint's due deliveries at once never share one; an endpoint held by a process that
// stopped is taken over once its lease ran out.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteDatabase, type SqliteDatabase } from '../../dist/lib/server/adapters/sqlite/db.js';
import { sqlitePorts } from '../../dist/lib/server/adapters/sqlite/ports.js';
import { openPostgresDatabase, type PostgresDatabase } from '../../dist/lib/server/adapters/postgres/db.js';
import { migratePostgres } from '../../dist/lib/server/adapters/postgres/migrate.js';
import { pgEventLogStore } from '../../dist/lib/server/adapters/postgres/events.js';
import { CLAIM_LEASE_MS, pgWebhooksStore } from '../../dist/lib/server/adapters/postgres/webhooks.js';
import { ReadAway } from '../../dist/lib/server/store/seam.js';
import type { EventLogPort, LoggedEvent } from '../../dist/lib/server/domain/events.js';
import type { WebhooksPort } from '../../dist/lib/server/domain/webhooks/persistence.js';
import type { StoredEndpoint } from '../../dist/lib/server/domain/webhooks/endpoints.js';
import type { WebhookDelivery } from '../../dist/lib/contract/webhooks.js';
import type { EventType, ListEventsQuery } from '../../dist/lib/contract/events.js';
import { postgresServer } from '../helpers/postgres.js';

const pg = postgresServer();

const T0 = 1_700_000_000_000;
const TYPES = ['payment.captured', 'payment.failed', 'customer.created', 'payment_session.created'];

function logged(i: number, type = TYPES[i % 4]!, objectId = i % 3 === 0 ? '' : `obj_${i % 3}`): LoggedEvent {
  const id = `evt_${String(i).padStart(4, '0')}`;
  const createdMs = T0 + i * 700;
  const body = JSON.stringify({
    id,
    object: 'event',
    type,
    created: Math.floor(createdMs / 1000),
    livemode: false,
    data: { object: { id: objectId || 'x', object: 'thing' } },
  });
  return { id, type: type as EventType, objectId, createdMs, body };
}

function endpoint(id: string, enabled = true): StoredEndpoint {
  return {
    id,
    object: 'webhook_endpoint',
    url: `https://example.com/${id}`,
    enabled_events: ['*'],
    description: null,
    enabled,
    metadata: {},
    created: Math.floor(T0 / 1000),
    livemode: false,
    secret_sealed: 'sealed',
    rolled: [],
  } as unknown as StoredEndpoint;
}

function delivery(id: string, event: string, endpointId: string, at: number, status = 'pending'): WebhookDelivery {
  return {
    id,
    object: 'webhook_delivery',
    event,
    event_type: 'payment.captured',
    webhook_endpoint: endpointId,
    url: `https://example.com/${endpointId}`,
    status: status as WebhookDelivery['status'],
    attempts: 0,
    next_attempt_at: status === 'pending' ? new Date(at).toISOString() : null,
    last_response_code: null,
    last_error: null,
    created_at: new Date(T0).toISOString(),
    delivered_at: null,
  };
}

/** An answer or the error thrown, as plain JSON (an error by its contract fields and message). */
async function outcome(f: () => Promise<unknown>): Promise<unknown> {
  try {
    return JSON.parse(JSON.stringify({ ok: (await f()) ?? null }));
  } catch (e) {
    const err = e as { message?: string; status?: number; code?: string; type?: string; param?: string };
    return { error: { message: err.message, status: err.status, code: err.code, type: err.type, param: err.param } };
  }
}

interface Engine {
  events: EventLogPort;
  webhooks: WebhooksPort;
  tx<R>(fn: () => Promise<R>): Promise<R>;
  settle<R>(r: R | ReadAway<R>): Promise<R>;
  /** How many event bodies are kept for pending deliveries. */
  keptBodies(): Promise<number>;
}

/** The scripted sequence: every port method, its answers in order. */
async function script(e: Engine): Promise<unknown[]> {
  const out: unknown[] = [];
  const rec = async (label: string, f: () => Promise<unknown>) => out.push([label, await outcome(() => e.tx(f))]);
  const { events } = e;
  const { endpoints, outbox, listeners } = e.webhooks;
  const a0 = 'acct_0';
  const a1 = 'acct_1';
  const ev = (i: number) => logged(i).id;

  // ---- the event log
  await e.tx(async () => {
    for (let i = 0; i < 14; i++) await events.append(i % 2 ? a1 : a0, logged(i));
  });
  await rec('find', () => events.find(a0, ev(2)));
  await rec('find other account', () => events.find(a1, ev(2)));
  await rec('find missing', () => events.find(a0, 'evt_missing'));
  const s = Math.floor((T0 + 4 * 700) / 1000);
  const queries: ListEventsQuery[] = [
    {},
    { limit: 3 },
    { limit: 3, starting_after: ev(4) },
    { limit: 2, ending_before: ev(2) },
    { ending_before: ev(12) },
    { object_id: 'obj_1' },
    { object_id: 'obj_1', limit: 1, starting_after: ev(10) },
    { object_id: 'nothing' },
    { type: 'payment.captured' },
    { type: 'payment.*' },
    { type: 'payment_*' },
    { type: '*.created', limit: 1 },
    { type: 'nothing.here' },
    { created: s },
    { 'created[gt]': s },
    { 'created[gte]': s, 'created[lt]': s + 3 },
    { 'created[lte]': s },
    { type: 'payment.*', 'created[gte]': s, limit: 1, starting_after: ev(12) },
    { type: 'payment.*', limit: 1, ending_before: ev(0) },
    { starting_after: 'evt_missing' },
    { type: 'payment.*', starting_after: 'evt_missing' },
    { starting_after: ev(2), ending_before: ev(4) },
    { type: '*', starting_after: ev(2), ending_before: ev(4) },
  ] as ListEventsQuery[];
  for (const q of queries) {
    // A page read away is finished after the request's transaction, as the request pipeline does.
    for (const acct of [a0, a1])
      out.push([
        `page ${acct} ${JSON.stringify(q)}`,
        await outcome(async () => e.settle(await e.tx(() => events.page(acct, '/v1/events', q)))),
      ]);
  }
  await rec('oldestMs', () => events.oldestMs(a0));
  await rec('oldestMs none', () => events.oldestMs('acct_none'));
  await rec('accounts', async () => (await events.accounts()).sort());
  await rec('lastRecordedBy 2', () => events.lastRecordedBy(a0, T0 + 10 * 700, 2));
  await rec('lastRecordedBy all', () => events.lastRecordedBy(a0, T0 + 10 * 700, -1));
  await rec('lastRecordedBy none', () => events.lastRecordedBy(a0, T0 - 1, -1));
  // Many at once (a set of due work): in their order, counted, found, and paged as those appended one by one.
  const a2 = 'acct_2';
  await rec('appendAll none', () => events.appendAll(a2, []));
  await rec('appendAll one', () => events.appendAll(a2, [logged(100)]));
  await rec('appendAll', async () => {
    await events.appendAll(
      a2,
      Array.from({ length: 40 }, (_, i) => logged(101 + i, TYPES[i % 3], i % 2 ? 'obj_set' : '')),
    );
  });
  for (const q of [
    { limit: 100 },
    { limit: 5, starting_after: ev(120) },
    { object_id: 'obj_set' },
    { type: 'payment.*' },
  ])
    out.push([
      `page ${a2} ${JSON.stringify(q)}`,
      await outcome(async () => e.settle(await e.tx(() => events.page(a2, '/v1/events', q as ListEventsQuery)))),
    ]);
  await rec('find appended', () => events.find(a2, ev(133)));
  await rec('oldestMs appended', () => events.oldestMs(a2));

  // ---- endpoints and their cursors
  await e.tx(async () => {
    for (const [id, acct] of [
      ['we_1', a0],
      ['we_2', a0],
      ['we_3', a1],
    ] as const) {
      await endpoints.endpoints.insert(acct, endpoint(id));
      await endpoints.openCursor(id);
    }
  });
  await rec('count', () => endpoints.count(a0));
  await rec('count none', () => endpoints.count('acct_none'));
  await rec('ofAccount', () => endpoints.ofAccount(a0));
  await e.tx(async () => {
    for (let i = 14; i < 20; i++) await events.append(i % 2 ? a1 : a0, logged(i));
  });
  // A cursor is a place in its account's events: what it has not looked at yet is what must compare equal.
  const cursors = async (accountId?: string) => {
    const rows = await outbox.claimCursors(accountId);
    const withEvents = [];
    for (const c of rows)
      withEvents.push({
        endpointId: c.endpointId,
        accountId: c.accountId,
        endpoint: c.endpoint,
        ahead: (await outbox.eventsAfter(c.accountId, c.eventSeq, undefined, 100)).map((x) => x.id),
      });
    return withEvents;
  };
  await rec('claimCursors', async () => (await cursors()).sort((x, y) => (x.endpointId < y.endpointId ? -1 : 1)));
  await rec('claimCursors acct_0', () => cursors(a0));
  await rec('eventsAfter', () => outbox.eventsAfter(a0, 4, undefined, 3));
  await rec('eventsAfter upto', () => outbox.eventsAfter(a0, 4, 11, 100));
  await rec('eventsAfter nothing', () => outbox.eventsAfter(a0, 1000, undefined, 10));
  await rec('moveCursor', async () => {
    const [c] = (await outbox.claimCursors(a0)).filter((x) => x.endpointId === 'we_1');
    const [first] = await outbox.eventsAfter(a0, c!.eventSeq, undefined, 1);
    await outbox.moveCursor('we_1', first!.seq);
    return (await outbox.eventsAfter(a0, first!.seq, undefined, 100)).map((x) => x.id);
  });
  await rec('claimCursors after move', () => cursors(a0));
  await rec('allEndpoints', () => outbox.allEndpoints());

  // ---- the outbox
  await e.tx(async () => {
    await outbox.deliveries.insert(a0, delivery('whd_1', ev(0), 'we_1', T0));
    await outbox.deliveries.insert(a0, delivery('whd_2', ev(2), 'we_1', T0 + 5000));
    await outbox.deliveries.insert(a0, delivery('whd_3', ev(4), 'we_1', T0 + 100));
    await outbox.deliveries.insert(a0, delivery('whd_4', ev(6), 'we_1', T0, 'succeeded'));
    await outbox.deliveries.insert(a0, delivery('whd_5', ev(8), 'we_1', T0 + 200));
    await outbox.deliveries.insert(a0, delivery('whd_6', ev(4), 'we_2', T0));
    await outbox.deliveries.insert(a1, delivery('whd_7', ev(1), 'we_3', T0, 'failed'));
  });
  await rec('pendingOf', () => outbox.pendingOf(a0, 'we_1'));
  await rec('pendingOf none', () => outbox.pendingOf(a0, 'we_9'));
  await rec('outbox accounts', async () => (await outbox.accounts()).sort());
  await rec('oldestDone', () => outbox.oldestDone(a0, 10));
  await rec('oldestDone acct_1', () => outbox.oldestDone(a1, 1));
  await rec('nextRetry', () => outbox.nextRetry('we_1', T0 + 150));
  await rec('nextRetry none', () => outbox.nextRetry('we_1', T0 + 9000));
  await rec('claimDue', () => outbox.claimDue(a0, 'we_1', T0 + 1000, 2, 0));
  await rec('claimDue after', () => outbox.claimDue(a0, 'we_1', T0 + 1000, 10, 3));
  await rec('claimDue later', () => outbox.claimDue(a0, 'we_1', T0 + 9000, 10, 0));
  await rec('claimDue none due', () => outbox.claimDue(a0, 'we_1', T0 - 1, 10, 0));
  await rec('claimDue other endpoint', () => outbox.claimDue(a0, 'we_2', T0, 10, 0));
  // Bodies past retention: event 4 has pending deliveries (kept), event 6 none (not kept).
  await rec('keepBodyIfPending', async () => {
    await outbox.keepBodyIfPending(a0, ev(4), logged(4).body);
    await outbox.keepBodyIfPending(a0, ev(6), logged(6).body);
    return e.keptBodies();
  });
  await rec('prune', async () => events.prune(a0, 6, T0 + 6 * 700));
  await rec('find pruned', () => events.find(a0, ev(4)));
  await rec('claimDue kept and lost bodies', () => outbox.claimDue(a0, 'we_1', T0 + 9000, 10, 0));
  await rec('recordAttempt one of two', async () => {
    const d = (await outbox.deliveries.get(a0, 'whd_3'))!;
    await outbox.recordAttempt(a0, { ...d, status: 'succeeded', attempts: 1, next_attempt_at: null });
    return e.keptBodies();
  });
  await rec('recordAttempt pending', async () => {
    const d = (await outbox.deliveries.get(a0, 'whd_6'))!;
    return outbox.recordAttempt(a0, { ...d, attempts: 1, next_attempt_at: new Date(T0 + 120_000).toISOString() });
  });
  await rec('recordAttempt last', async () => {
    const d = (await outbox.deliveries.get(a0, 'whd_6'))!;
    await outbox.recordAttempt(a0, { ...d, status: 'failed', attempts: 5, next_attempt_at: null });
    return e.keptBodies();
  });
  await rec('pendingOf after', () => outbox.pendingOf(a0, 'we_1'));
  await rec('dropCursor', async () => {
    await endpoints.dropCursor('we_2');
    return (await outbox.claimCursors(a0)).map((c) => c.endpointId);
  });

  // ---- listeners and their queues
  await e.tx(async () => {
    await listeners.insert(a0, { id: 'evl_1', enabled_events: ['*'], created_ms: T0, seen_ms: 1000 });
    await listeners.insert(a0, { id: 'evl_2', enabled_events: ['payment.*'], created_ms: T0, seen_ms: 5000 });
    await listeners.insert(a1, { id: 'evl_3', enabled_events: ['*'], created_ms: T0, seen_ms: 5000 });
  });
  await rec('get', () => listeners.get(a0, 'evl_2'));
  await rec('get other account', () => listeners.get(a1, 'evl_2'));
  await rec('renew', async () => {
    await listeners.renew('evl_1', 6000);
    return listeners.get(a0, 'evl_1');
  });
  await rec('seenSince', () => listeners.seenSince(a0, 2000));
  await rec('seenSince none', () => listeners.seenSince(a0, 9000));
  await e.tx(async () => {
    await listeners.queue(
      a0,
      ev(10),
      [
        { id: 'evr_1', listener: 'evl_1' },
        { id: 'evr_2', listener: 'evl_2' },
      ],
      T0,
    );
    await listeners.queue(a0, ev(12), [{ id: 'evr_3', listener: 'evl_1' }], T0 + 10);
    await listeners.queue(a0, ev(2), [{ id: 'evr_4', listener: 'evl_1' }], T0 + 20); // pruned: left out
    await listeners.queue(a0, ev(14), [], T0 + 30);
    await listeners.queue(a0, ev(16), [{ id: 'evr_5', listener: 'evl_1' }], T0 + 40);
  });
  for (const q of [
    {},
    { limit: 1 },
    { limit: 1, starting_after: 'evr_5' },
    { ending_before: 'evr_1' },
    { ending_before: 'evr_3', limit: 1 },
    { starting_after: 'evr_2' },
    { starting_after: 'evr_1', ending_before: 'evr_3' },
  ])
    await rec(`resends ${JSON.stringify(q)}`, () => listeners.resends('evl_1', q));
  await rec('resends evl_2', () => listeners.resends('evl_2', {}));
  await rec('oldestResendMs', () => listeners.oldestResendMs(a0));
  await rec('oldestResendMs none', () => listeners.oldestResendMs(a1));
  await rec('pruneResends 1', () => listeners.pruneResends(T0 + 20, 1, a0));
  await rec('pruneResends all', () => listeners.pruneResends(T0 + 20, -1));
  await rec('resends after prune', () => listeners.resends('evl_1', {}));
  await rec('forgetSeenBefore', async () => {
    await listeners.forgetSeenBefore(a0, 5500);
    return [await listeners.get(a0, 'evl_1'), await listeners.get(a0, 'evl_2')];
  });
  await rec('remove', async () => {
    await listeners.remove('evl_1');
    return [await listeners.get(a0, 'evl_1'), await listeners.pruneResends(T0 + 1_000_000, -1)];
  });
  return out;
}

async function migrated(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await migratePostgres(sql);
  } finally {
    await sql.end();
  }
}

describe.skipIf(pg.missing !== '')(
  `events and webhooks on PostgreSQL${pg.missing ? ` (skipped: ${pg.missing})` : ''}`,
  () => {
    let lite: SqliteDatabase;
    const opened: PostgresDatabase[] = [];
    const sqls: postgres.Sql[] = [];
    /** A fresh migrated database: a store on it (a pool: one server process) per call of `open`, and plain SQL. */
    const database = async () => {
      const url = await pg.database();
      await migrated(url);
      const sql = postgres(url, { max: 2, onnotice: () => {} });
      sqls.push(sql);
      const open = () => {
        const s = openPostgresDatabase(url, { max: 3 });
        opened.push(s);
        return s;
      };
      return { open, sql };
    };

    beforeAll(() => {
      lite = openSqliteDatabase(':memory:');
    });

    afterAll(async () => {
      lite?.close();
      await Promise.all(opened.map((s) => s.end()));
      await Promise.all(sqls.map((s) => s.end()));
    });

    it('every port method answers as on SQLite', async () => {
      const { open } = await database();
      const store = open();
      const sqlite = sqlitePorts(lite);
      const expected = await script({
        events: sqlite.events,
        webhooks: sqlite.webhooks,
        tx: (fn) => lite.grouped(fn),
        settle: async (r) => (r instanceof ReadAway ? lite.readAway(r) : r),
        keptBodies: async () =>
          (lite.db.prepare('SELECT COUNT(*) AS n FROM webhook_event_bodies').get() as { n: number }).n,
      });
      const got = await script({
        events: pgEventLogStore(store),
        webhooks: pgWebhooksStore(store),
        tx: (fn) => store.grouped(fn),
        settle: async (r) => (r instanceof ReadAway ? store.readAway(r) : r),
        keptBodies: async () =>
          (await store.current()`SELECT COUNT(*)::int AS n FROM webhook_event_bodies`)[0]!.n as number,
      });
      expect(got).toEqual(expected);
      // the script reaches every kind of answer, errors included
      expect(JSON.stringify(expected)).toContain('resource_missing');
    }, 60_000);

    it("an account's events reach a cursor that follows its log, whatever order their transactions commit in", async () => {
      const { open, sql } = await database();
      const [a, b, r] = [open(), open(), open()];
      const logA = pgEventLogStore(a);
      const logB = pgEventLogStore(b);
      const reader = pgWebhooksStore(r).outbox;
      const acct = 'acct_race';
      let cursor = 0;
      const seen: string[] = [];
      /** The dispatcher's read of an endpoint's cursor: the account's events after it, the cursor moved past them. */
      const follow = async () => {
        for (const e of await r.read(() => reader.eventsAfter(acct, cursor, undefined, 100))) {
          seen.push(e.id);
          cursor = e.seq;
        }
      };
      await a.grouped(() => logA.append(acct, logged(0)));
      await follow();
      // Process A appends and holds its transaction open; process B appends to the same account meanwhile.
      let appended!: () => void;
      const inA = new Promise<void>((resolve) => (appended = resolve));
      let commitA!: () => void;
      const gate = new Promise<void>((resolve) => (commitA = resolve));
      const txA = a.grouped(async () => {
        await logA.append(acct, logged(1));
        appended();
        await gate;
      });
      await inA;
      const txB = b.grouped(() => logB.append(acct, logged(2)));
      // B either commits at once, or waits for A's turn on the account's log.
      const waitsForA = async () => {
        for (;;) {
          const [w] =
            await sql`SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`;
          if (w!.n > 0) return;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      };
      await Promise.race([txB, waitsForA()]);
      await follow(); // a cursor that read B's event here would pass over A's lower number
      commitA();
      await Promise.all([txA, txB]);
      await follow();
      // Numbered in commit order: an append is made at its transaction's COMMIT (db.ts `last`), so B, which did not
      // wait, committed first and has the lower number; the cursor saw each once.
      expect(seen).toEqual([logged(0).id, logged(2).id, logged(1).id]);
      const rows = await sql`SELECT id FROM events WHERE account_id = ${acct} ORDER BY seq`;
      expect(rows.map((x) => x.id)).toEqual(seen);
    }, 60_000);

    it('appends of many transactions at once, on two processes: a cursor following the log meanwhile sees each event once, in order', async () => {
      const { open } = await database();
      const stores = [open(), open()];
      const logs = stores.map((s) => pgEventLogStore(s));
      const reader = pgWebhooksStore(open()).outbox;
      const readerStore = opened.at(-1)!;
      const acct = 'acct_many';
      let cursor = 0;
      const seen: string[] = [];
      let writing = true;
      const following = (async () => {
        while (writing || seen.length < 60) {
          // Whether every write had committed before this read began: a read that began earlier may miss the last
          // commits, and must not end the following.
          const settled = !writing;
          const rows = await readerStore.read(() => reader.eventsAfter(acct, cursor, undefined, 100));
          for (const e of rows) {
            seen.push(e.id);
            cursor = e.seq;
          }
          if (settled && rows.length === 0) break;
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      // 60 events in 30 transactions of two events, half on each process, all at once.
      await Promise.all(
        Array.from({ length: 30 }, (_, t) =>
          stores[t % 2]!.grouped(async () => {
            await logs[t % 2]!.append(acct, logged(1000 + 2 * t));
            await new Promise((resolve) => setImmediate(resolve));
            await logs[t % 2]!.append(acct, logged(1001 + 2 * t));
          }),
        ),
      );
      writing = false;
      await following;
      expect(seen.length).toBe(60);
      expect(new Set(seen).size).toBe(60);
    }, 60_000);

    /** Endpoints with due deliveries, written through process `s`. */
    const withDue = async (s: PostgresDatabase, w: WebhooksPort, endpoints: string[], perEndpoint: number) => {
      await s.grouped(async () => {
        for (const [n, id] of endpoints.entries()) {
          const acct = `acct_${n % 2}`;
          await w.endpoints.endpoints.insert(acct, endpoint(id));
          await w.endpoints.openCursor(id);
          for (let i = 0; i < perEndpoint; i++)
            await w.outbox.deliveries.insert(acct, delivery(`whd_${id}_${i}`, `evt_${i}`, id, T0));
        }
      });
    };

    it('two processes claiming due deliveries at once never share one: each endpoint is served by one of them', async () => {
      const { open } = await database();
      const [a, b] = [open(), open()];
      const procs = [
        { name: 'a', store: a, w: pgWebhooksStore(a, { dispatcherId: 'proc_a' }) },
        { name: 'b', store: b, w: pgWebhooksStore(b, { dispatcherId: 'proc_b' }) },
      ];
      const endpoints = Array.from({ length: 8 }, (_, i) => `we_${i}`);
      await withDue(a, procs[0]!.w, endpoints, 5);
      const claimAll = () =>
        Promise.all(
          endpoints.flatMap((id, n) =>
            procs.map(async (p) => ({
              proc: p.name,
              endpoint: id,
              rows: await p.store.grouped(() => p.w.outbox.claimDue(`acct_${n % 2}`, id, T0, 100, 0)),
            })),
          ),
        );
      const first = await claimAll();
      const ids = first.flatMap((c) => c.rows.map((r) => r.id));
      expect(ids.length).toBe(40);
      expect(new Set(ids).size).toBe(40);
      const holder = new Map<string, string>();
      for (const id of endpoints) {
        const got = first.filter((c) => c.endpoint === id && c.rows.length > 0);
        expect(got.length, id).toBe(1);
        expect(got[0]!.rows.length, id).toBe(5);
        holder.set(id, got[0]!.proc);
      }
      // Again, both at once: each endpoint's holder reads its deliveries again (its dispatcher decides what it
      // handed on), the other still gets nothing.
      for (const c of await claimAll())
        expect(c.rows.length, `${c.proc} ${c.endpoint}`).toBe(holder.get(c.endpoint) === c.proc ? 5 : 0);
      // A claim must commit before its batch is sent: in a read-only transaction it fails.
      await expect(b.read(() => procs[1]!.w.outbox.claimDue('acct_0', 'we_0', T0, 100, 0))).rejects.toMatchObject({
        code: '25006',
      });
    }, 60_000);

    it('an endpoint held by a process that stopped is taken over once its lease ran out, not before', async () => {
      const { open, sql } = await database();
      const [a, b] = [open(), open()];
      const wa = pgWebhooksStore(a, { dispatcherId: 'proc_dead' });
      const wb = pgWebhooksStore(b, { dispatcherId: 'proc_live' });
      await withDue(a, wa, ['we_x'], 3);
      const claim = (s: PostgresDatabase, w: WebhooksPort) =>
        s.grouped(() => w.outbox.claimDue('acct_0', 'we_x', T0, 100, 0));
      expect((await claim(a, wa)).map((r) => r.id)).toEqual(['whd_we_x_0', 'whd_we_x_1', 'whd_we_x_2']);
      // Process A dies holding them (its POSTs in flight, never recorded).
      await a.end();
      expect(await claim(b, wb)).toEqual([]);
      // The lease passes (its time moved back on the database: no test waits for it). Claimed over a lease ago but
      // still beating: still A's.
      const ago = CLAIM_LEASE_MS + 1;
      await sql`UPDATE webhook_endpoint_claims SET claimed_ms = claimed_ms - ${ago} WHERE dispatcher = 'proc_dead'`;
      expect(await claim(b, wb)).toEqual([]);
      // …and no beat for a lease either: B takes the endpoint over, with every delivery A held.
      await sql`UPDATE webhook_dispatchers SET seen_ms = seen_ms - ${ago} WHERE id = 'proc_dead'`;
      expect((await claim(b, wb)).map((r) => r.id)).toEqual(['whd_we_x_0', 'whd_we_x_1', 'whd_we_x_2']);
      expect((await sql`SELECT dispatcher FROM webhook_endpoint_claims WHERE webhook_endpoint = 'we_x'`)[0]).toEqual({
        dispatcher: 'proc_live',
      });
      // Once B finds nothing due on a fresh turn, the endpoint is free again.
      await b.grouped(async () => {
        for (let i = 0; i < 3; i++) {
          const d = (await wb.outbox.deliveries.get('acct_0', `whd_we_x_${i}`))!;
          await wb.outbox.recordAttempt('acct_0', { ...d, status: 'succeeded', attempts: 1, next_attempt_at: null });
        }
      });
      expect(await claim(b, wb)).toEqual([]);
      expect((await sql`SELECT dispatcher FROM webhook_endpoint_claims WHERE webhook_endpoint = 'we_x'`)[0]).toEqual({
        dispatcher: null,
      });
    }, 60_000);
  },
);
