// Failing receivers: a 500, one that hangs past the POST timeout, one that refuses connections. Each delivery is
// retried on the account's clock (60 s × 2^n after attempt n: advancing the test clock makes the next attempt
// due at once), given up after 5 attempts; a retry not yet due never holds back later events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { advance, newSession } from '../payments/util.js';
import { closedPort } from '../helpers/util.js';
import { startReceiver, until, type Receiver } from './receiver.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ webhooks: { timeoutMs: 300 } });
});
afterAll(() => s.close());

async function endpoint(url: string) {
  const r = await s.request('POST', '/webhook-endpoints', {
    body: { url, enabled_events: ['payment_session.created'] },
  });
  expect(r.status).toBe(201);
  return r.body as { id: string; secret: string };
}

/** The endpoint's deliveries of the event. */
async function deliveries(endpointId: string, eventId: string) {
  return (await s.request('GET', `/webhook-endpoints/${endpointId}/deliveries?limit=100`)).body.data.filter(
    (d: { event: string }) => d.event === eventId,
  );
}

/** The endpoint's delivery of the event (asserting there is exactly one). */
async function delivery(endpointId: string, eventId: string) {
  const list = await deliveries(endpointId, eventId);
  expect(list).toHaveLength(1);
  return list[0];
}

/**
 * The delivery once its attempt `n` is recorded. Its row is written by the dispatcher after the event's commit, so
 * it may not exist yet when this starts polling; there is never more than one.
 */
async function attemptRecorded(endpointId: string, eventId: string, n: number) {
  return until(async () => {
    const list = await deliveries(endpointId, eventId);
    expect(list.length).toBeLessThanOrEqual(1);
    return list[0]?.attempts === n ? list[0] : undefined;
  }, `attempt ${n} recorded`);
}

async function clockMs(): Promise<number> {
  return Date.parse((await s.request('GET', '/test-helpers/clock')).body.now_iso);
}

/** A new payment_session.created event; its id. */
async function newEvent(): Promise<string> {
  const session = await newSession(s);
  const e = (await s.request('GET', `/events?object_id=${session.id}&type=payment_session.created`)).body.data[0];
  return e.id;
}

const WAITS = [120, 240, 480, 960]; // seconds after attempts 1..4

/**
 * Drives one failing delivery through its five attempts on the test clock: after each attempt, the next is due
 * exactly WAITS[n] later — a new event sent to the same endpoint 1 s before shows that the retry was not yet
 * due (it would have gone first: one POST at a time, the earliest due first) and was not holding it back.
 */
async function throughFiveAttempts(
  rx: Receiver,
  weId: string,
  firstEvent: string,
  attempted: (n: number) => Promise<{ last_error: string | null; last_response_code: number | null }>,
) {
  for (let n = 1; n <= 5; n++) {
    const d = await attempted(n);
    if (n === 5) break;
    const wait = WAITS[n - 1]!;
    const t = await clockMs();
    const row = await delivery(weId, firstEvent);
    // on the account's clock: the attempt was recorded at or before `t`, so the next is due by t + wait
    expect(Date.parse(row.next_attempt_at)).toBeLessThanOrEqual(t + wait * 1000);
    expect(Date.parse(row.next_attempt_at)).toBeGreaterThan(t + (wait - 60) * 1000);
    expect(d).toBeTruthy();
    await advance(s, Math.floor((Date.parse(row.next_attempt_at) - t) / 1000) - 1);
    if (rx) {
      const before = rx.received.length;
      const barrier = await newEvent();
      await rx.waitFor(before + 1);
      expect(
        rx.received[before]!.headers['x-payorch-event-id'],
        JSON.stringify({ n, barrier, ids: rx.eventIds() }),
      ).toBe(barrier);
    }
    await advance(s, 2);
  }
  const failed = await delivery(weId, firstEvent);
  expect(failed).toMatchObject({ status: 'failed', attempts: 5, next_attempt_at: null, delivered_at: null });
  return failed;
}

describe('retries on the clock, then given up', () => {
  it('an endpoint answering 500: five attempts 2, 4, 8, 16 minutes apart, then failed; later events still flow', async () => {
    let failing = '';
    // Until the failing event's id is known (the dispatcher may send it before newEvent answers), every request
    // is its: the endpoint was made just before it, and has no other event.
    const rx = await startReceiver((r) => (failing === '' || r.headers['x-payorch-event-id'] === failing ? 500 : 200));
    try {
      const we = await endpoint(rx.url);
      failing = await newEvent();
      const attemptsSeen = (eventId: string) =>
        rx.received.filter((r) => r.headers['x-payorch-event-id'] === eventId).length;
      const failed = await throughFiveAttempts(rx, we.id, failing, async (n) => {
        await until(async () => (attemptsSeen(failing) >= n ? true : undefined), `attempt ${n}`);
        const d = await attemptRecorded(we.id, failing, n);
        expect(d).toMatchObject({ last_response_code: 500, last_error: 'the endpoint answered 500' });
        return d;
      });
      expect(failed.last_response_code).toBe(500);
      expect(attemptsSeen(failing)).toBe(5);
      // given up: a month later nothing more is sent for it, while a new event is
      await advance(s, 86_400);
      const before = rx.received.length;
      const after = await newEvent();
      await rx.waitFor(before + 1);
      expect(rx.received[before]!.headers['x-payorch-event-id']).toBe(after);
      expect(attemptsSeen(failing)).toBe(5);
    } finally {
      await rx.close();
    }
  });

  it('an endpoint that hangs past the timeout: the attempt fails as timed out and is retried', async () => {
    let hanging = '';
    // As above: a request before the hanging event's id is known is that event's.
    const rx = await startReceiver((r) =>
      hanging === '' || r.headers['x-payorch-event-id'] === hanging ? 'hang' : 200,
    );
    try {
      const we = await endpoint(rx.url);
      hanging = await newEvent();
      await throughFiveAttempts(rx, we.id, hanging, async (n) => {
        const d = await attemptRecorded(we.id, hanging, n);
        expect(d).toMatchObject({ last_response_code: null, last_error: 'timed out after 300 ms' });
        return d;
      });
      // each attempt's connection was closed by the server when it gave up on it
      const attempts = rx.received.filter((r) => r.headers['x-payorch-event-id'] === hanging);
      expect(attempts).toHaveLength(5);
      await until(async () => (attempts.every((r) => r.closed) ? true : undefined), 'hanging attempts closed');
    } finally {
      await rx.close();
    }
  });

  it('an endpoint that refuses connections: retried the same way, then failed with the connection error', async () => {
    const port = await closedPort();
    const we = await endpoint(`http://127.0.0.1:${port}/hook`);
    const refused = await newEvent();
    const failed = await throughFiveAttempts(undefined as unknown as Receiver, we.id, refused, async (n) => {
      const d = await attemptRecorded(we.id, refused, n);
      expect(d.last_response_code).toBeNull();
      expect(d.last_error).toMatch(/ECONNREFUSED/);
      return d;
    });
    expect(failed.last_error).toMatch(/ECONNREFUSED/);
  });
});
