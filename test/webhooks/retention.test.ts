// The event log's retention and the dispatcher's cursors: when retention has emptied the log, the next event's
// number is still above every endpoint's cursor (numbers are never used twice), and it is delivered. The delivery log
// is kept as long as the events: 30 days from a delivery's creation, on the account's clock.
import { describe, expect, it } from 'vitest';
import { startTestServer, sqliteOf } from '../helpers/server.js';
import { advance, newSession } from '../payments/util.js';
import { startReceiver, until } from './receiver.js';
import { onSqlite } from '../helpers/engine.js';

describe('deliveries after retention emptied the event log', () => {
  it.runIf(onSqlite)(
    'after retention emptied the log, the next event is numbered above the cursor and delivered',
    async () => {
      const s = await startTestServer();
      const rx = await startReceiver(200);
      try {
        const we = (
          await s.request('POST', '/webhook-endpoints', {
            body: { url: rx.url, enabled_events: ['payment_session.created'] },
          })
        ).body;
        for (let i = 0; i < 3; i++) await newSession(s);
        await rx.waitFor(3);
        const seqBefore = sqliteOf(s)
          .db.prepare('SELECT event_seq FROM webhook_cursors WHERE webhook_endpoint = ?')
          .get(we.id) as { event_seq: number };
        expect(seqBefore.event_seq).toBeGreaterThanOrEqual(3);
        await advance(s, 40 * 86_400); // past retention: every event of this (only) account goes
        expect((await s.request('GET', '/events?limit=1')).body.total_count).toBe(0);
        const session = await newSession(s);
        // the log did not start over: the new event's number is past the cursor
        const seq = (sqliteOf(s).db.prepare('SELECT MAX(seq) AS seq FROM events').get() as { seq: number }).seq;
        expect(seq).toBeGreaterThan(seqBefore.event_seq);
        const got = await rx.waitFor(4);
        expect(JSON.parse(got[3]!.body).data.object.id).toBe(session.id);
        // the three older deliveries went with their events; the new one is logged
        await until(
          async () =>
            (await s.request('GET', `/webhook-endpoints/${we.id}/deliveries?status=succeeded`)).body.total_count === 1
              ? true
              : undefined,
          '1 delivery',
        );
      } finally {
        await s.close();
        await rx.close();
      }
    },
  );

  it("the delivery log keeps 30 days from each delivery: older ones go in the scheduler's steps, younger ones and pending ones stay", async () => {
    const s = await startTestServer();
    const ok = await startReceiver(200);
    const down = await startReceiver(500);
    try {
      const good = (
        await s.request('POST', '/webhook-endpoints', {
          body: { url: ok.url, enabled_events: ['payment_session.created'] },
        })
      ).body;
      await newSession(s);
      await ok.waitFor(1);
      const deliveries = async (endpoint: string, status = '') =>
        (
          await s.request(
            'GET',
            `/webhook-endpoints/${endpoint}/deliveries?limit=100${status ? `&status=${status}` : ''}`,
          )
        ).body;
      await until(
        async () => ((await deliveries(good.id, 'succeeded')).total_count === 1 ? true : undefined),
        'the first delivery',
      );
      await advance(s, 20 * 86_400);
      const bad = (
        await s.request('POST', '/webhook-endpoints', {
          body: { url: down.url, enabled_events: ['payment_session.created'] },
        })
      ).body;
      await newSession(s);
      await ok.waitFor(2);
      await down.waitFor(1);
      await until(
        async () => ((await deliveries(good.id, 'succeeded')).total_count === 2 ? true : undefined),
        'the second delivery',
      );
      const pending = (await deliveries(bad.id)).data;
      expect(pending.map((d: { status: string }) => d.status)).toEqual(['pending']); // waiting for its retry
      const [second, first] = (await deliveries(good.id)).data;
      // 31 days after the first delivery, 11 after the second: the first goes, the second stays
      expect((await s.request('PATCH', `/webhook-endpoints/${bad.id}`, { body: { enabled: false } })).status).toBe(200); // its retry waits (no POST meanwhile)
      await advance(s, 11 * 86_400);
      expect((await deliveries(good.id)).data.map((d: { id: string }) => d.id)).toEqual([second.id]);
      expect(first).toBeDefined();
      // past 30 days a delivery still pending (its endpoint disabled) is kept until it is sent or given up
      await advance(s, 25 * 86_400);
      expect((await deliveries(good.id)).total_count).toBe(0);
      expect((await deliveries(bad.id)).data.map((d: { id: string; status: string }) => [d.id, d.status])).toEqual([
        [pending[0].id, 'pending'],
      ]);
    } finally {
      await s.close();
      await ok.close();
      await down.close();
    }
  });
});
