// The outbox never skips: every committed event reaches every enabled endpoint that takes its type, whatever
// retention, clock advances, restarts and in-process writes happen in between. Retention used to free event
// numbers that were then used again, below the endpoints' cursors: those events were never delivered.
import { describe, expect, it } from 'vitest';
import { openEmbedded } from '../../dist/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';
import { advance } from '../payments/util.js';
import { startReceiver, until } from './receiver.js';
import { onSqlite } from '../helpers/engine.js';

const MONTH = 31 * 86_400;

async function customer(s: TestServer, n: number): Promise<string> {
  const r = await s.request('POST', '/customers', { body: { email: `c${n}@example.com` } });
  expect(r.status, r.text).toBe(201);
  return r.body.id;
}

/** The ids of the account's events, oldest first (all of them: at most 100 here). */
async function eventIds(s: TestServer): Promise<string[]> {
  return (await s.request('GET', '/events?limit=100')).body.data.map((e: { id: string }) => e.id).reverse();
}

describe('no delivery lost to retention', () => {
  it('a clock advance past retention and a trigger right after it: every event of the trigger is delivered', async () => {
    // No poll in between: only a scan after the trigger's commit can look at the log.
    const s = await startTestServer({ webhooks: { pollIntervalMs: 600_000 } });
    const rx = await startReceiver(200);
    try {
      expect((await s.request('POST', '/webhook-endpoints', { body: { url: rx.url } })).status).toBe(201);
      for (let i = 0; i < 3; i++) await customer(s, i);
      await rx.waitFor(3);
      for (let round = 0; round < 3; round++) {
        const before = rx.received.length;
        await advance(s, MONTH);
        const t = await s.request('POST', '/test-helpers/trigger', { body: { event_type: 'subscription.created' } });
        expect(t.status, t.text).toBe(200);
        const ids = t.body.events.map((e: { id: string }) => e.id);
        expect(ids.length).toBeGreaterThanOrEqual(4);
        // the advance itself may record events (the renewal of the last round's subscription): those come too
        await until(
          async () => (ids.every((id: string) => rx.eventIds().includes(id)) ? true : undefined),
          `the trigger's ${ids.length} events`,
        );
        const got = rx.eventIds().slice(before);
        expect(got.filter((id) => ids.includes(id))).toEqual(ids); // each once, in order
        expect(new Set(got).size).toBe(got.length);
      }
    } finally {
      await s.close();
      await rx.close();
    }
  });

  it.runIf(onSqlite)(
    'events written in process after a clock advance while no server ran: the next server delivers all of them',
    async () => {
      const dataDir = tempDir();
      const rx = await startReceiver(200);
      let s = await startTestServer({ dataDir });
      // A stop aborts the POSTs in flight, and their deliveries are sent again (at least once): a POST the receiver
      // has answered counts once its outcome is recorded, which is what is waited for before each stop.
      const recorded = (id: string) =>
        until(
          async () =>
            (await s.request('GET', `/webhook-endpoints/${id}/deliveries?status=pending`)).body.total_count === 0 ||
            undefined,
          'every delivery recorded',
        );
      try {
        const endpoint = await s.request('POST', '/webhook-endpoints', {
          body: { url: rx.url, enabled_events: ['customer.created'] },
        });
        expect(endpoint.status).toBe(201);
        for (let i = 0; i < 3; i++) await customer(s, i);
        await rx.waitFor(3);
        for (let round = 0; round < 3; round++) {
          await recorded(endpoint.body.id);
          await s.close();
          // The CLI's embedded default (no dispatcher): the clock moves past retention, then 8 customers.
          const embedded = await openEmbedded(dataDir);
          const created: string[] = [];
          try {
            const post = (url: string, payload: object) =>
              embedded.app.inject({
                method: 'POST',
                url: `/functions/v1${url}`,
                headers: { authorization: `Bearer ${embedded.apiKey}`, 'content-type': 'application/json' },
                payload,
              });
            expect((await post('/test-helpers/advance-clock', { seconds: MONTH })).statusCode).toBe(200);
            for (let i = 0; i < 8; i++)
              created.push((await post('/customers', { email: `r${round}-${i}@example.com` })).json().id);
          } finally {
            await embedded.close();
          }
          const before = rx.received.length;
          s = await startTestServer({ dataDir });
          await rx.waitFor(before + 8);
          const objects = rx.received.slice(before).map((r) => JSON.parse(r.body).data.object.id);
          expect(objects).toEqual(created);
        }
        // and nothing twice
        expect(new Set(rx.eventIds()).size).toBe(rx.received.length);
      } finally {
        await s.close();
        await rx.close();
      }
    },
  );

  it('an event past retention whose delivery is still pending is still sent, with the body it was recorded with; the log no longer lists it', async () => {
    const s = await startTestServer({ webhooks: { timeoutMs: 2000 } });
    let up = false;
    const rx = await startReceiver(() => (up ? 200 : 503));
    try {
      const we = (
        await s.request('POST', '/webhook-endpoints', { body: { url: rx.url, enabled_events: ['customer.created'] } })
      ).body;
      const id = await customer(s, 1);
      const [first] = await rx.waitFor(1);
      const event = JSON.parse(first!.body);
      await until(
        async () =>
          (await s.request('GET', `/webhook-endpoints/${we.id}/deliveries`)).body.data[0]?.attempts === 1
            ? true
            : undefined,
        'first attempt recorded',
      );
      // the endpoint is disabled, the clock goes past retention: the event leaves the log, its delivery waits
      expect((await s.request('PATCH', `/webhook-endpoints/${we.id}`, { body: { enabled: false } })).status).toBe(200);
      await advance(s, MONTH);
      expect(await eventIds(s)).not.toContain(event.id);
      expect((await s.request('GET', `/events/${event.id}`)).status).toBe(404);
      up = true;
      expect((await s.request('PATCH', `/webhook-endpoints/${we.id}`, { body: { enabled: true } })).status).toBe(200);
      const [, again] = await rx.waitFor(2);
      expect(again!.body).toBe(first!.body);
      expect(JSON.parse(again!.body).data.object.id).toBe(id);
      const d = await until(async () => {
        const row = (await s.request('GET', `/webhook-endpoints/${we.id}/deliveries`)).body.data[0];
        return row?.status === 'succeeded' ? row : undefined;
      }, 'the delivery succeeded');
      expect(d).toMatchObject({ event: event.id, attempts: 2, last_response_code: 200 });
    } finally {
      await s.close();
      await rx.close();
    }
  });
});
