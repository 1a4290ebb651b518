// The event log's retention and the dispatcher's cursors: when retention has emptied the log, SQLite numbers the
// next event from 1 again, below every endpoint's cursor — those events must still be delivered.
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';
import { advance, newSession } from '../payments/util.js';
import { startReceiver, until } from './receiver.js';

describe('deliveries after retention emptied the event log', () => {
  it('an event numbered below the cursor after the log started over is delivered', async () => {
    const s = await startTestServer();
    const rx = await startReceiver(200);
    try {
      const we = (await s.request('POST', '/webhook-endpoints', { body: { url: rx.url, enabled_events: ['payment_session.created'] } })).body;
      for (let i = 0; i < 3; i++) await newSession(s);
      await rx.waitFor(3);
      const seqBefore = s.server.services.store.db.prepare('SELECT event_seq FROM webhook_cursors WHERE webhook_endpoint = ?').get(we.id) as { event_seq: number };
      expect(seqBefore.event_seq).toBeGreaterThanOrEqual(3);
      await advance(s, 40 * 86_400); // past retention: every event of this (only) account goes
      expect((await s.request('GET', '/events?limit=1')).body.total_count).toBe(0);
      const session = await newSession(s);
      // the log started over: the new event's seq is at or below the cursor
      const seq = (s.server.services.store.db.prepare('SELECT MAX(seq) AS seq FROM events').get() as { seq: number }).seq;
      expect(seq).toBeLessThanOrEqual(seqBefore.event_seq);
      const got = await rx.waitFor(4);
      expect(JSON.parse(got[3]!.body).data.object.id).toBe(session.id);
      await until(async () => ((await s.request('GET', `/webhook-endpoints/${we.id}/deliveries?status=succeeded`)).body.total_count === 4 ? true : undefined), '4 deliveries');
    } finally {
      await s.close();
      await rx.close();
    }
  });
});
