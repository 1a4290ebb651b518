// Fault rules on webhook deliveries (docs/api.md "Fault injection"): the server simulates the receiver failing —
// `reset` (the POST is sent, its answer lost: the receiver gets the same event again at the retry), `status=NNN`
// (answered for the receiver, which is not called), `drop` (never sent), `latency` (sent late) — and the
// dispatcher's retry schedule runs on the account's clock. A local node:http receiver sees what a real one would.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { advance, newSession } from '../payments/util.js';
import { startReceiver, until, type Receiver } from '../webhooks/receiver.js';

let s: TestServer;
let rx: Receiver;
let we: { id: string };
beforeAll(async () => {
  s = await startTestServer({ memory: true });
  rx = await startReceiver(200);
  const r = await s.request('POST', '/webhook-endpoints', {
    body: { url: rx.url, enabled_events: ['payment_session.created'] },
  });
  expect(r.status).toBe(201);
  we = r.body;
});
afterAll(async () => {
  await s?.close();
  await rx?.close();
});
beforeEach(async () => {
  await s.request('DELETE', '/test-helpers/faults');
});

const rule = async (body: Record<string, unknown>) => {
  const r = await s.request('POST', '/test-helpers/faults', { body });
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string };
};

/** A new payment_session.created event's id. */
async function newEvent(): Promise<string> {
  const session = await newSession(s);
  return (await s.request('GET', `/events?object_id=${session.id}&type=payment_session.created`)).body.data[0].id;
}

async function delivery(eventId: string) {
  return until(
    async () =>
      (await s.request('GET', `/webhook-endpoints/${we.id}/deliveries?limit=100`)).body.data.find(
        (d: { event: string; attempts: number }) => d.event === eventId && d.attempts > 0,
      ),
    `a recorded attempt of ${eventId}`,
  );
}

/** Makes the delivery's next attempt due (its retry waits on the account's clock). */
async function retryNow(eventId: string) {
  const d = (await s.request('GET', `/webhook-endpoints/${we.id}/deliveries?limit=100`)).body.data.find(
    (x: { event: string }) => x.event === eventId,
  );
  const clock = Date.parse((await s.request('GET', '/test-helpers/clock')).body.now_iso);
  await advance(s, Math.max(1, Math.ceil((Date.parse(d.next_attempt_at) - clock) / 1000)));
}

const receivedOf = (eventId: string) => rx.received.filter((r) => r.headers['x-payorch-event-id'] === eventId).length;

describe('webhook delivery faults', () => {
  it('reset: the receiver gets the event, the answer is lost, the retry delivers it again — a duplicate with the same event id', async () => {
    await rule({ fault: 'reset', webhook_endpoint: we.id, count: 1 });
    const ev = await newEvent();
    const first = await delivery(ev);
    expect(first).toMatchObject({ status: 'pending', attempts: 1 });
    expect(first.last_error).toMatch(
      /^simulated \(fault "reset"\): the POST was sent \(the endpoint answered 200\) and its answer lost/,
    );
    expect(receivedOf(ev)).toBe(1);
    await retryNow(ev);
    const done = await until(async () => {
      const d = await delivery(ev);
      return d.status === 'succeeded' ? d : undefined;
    }, 'the retry');
    expect(done.attempts).toBe(2);
    expect(receivedOf(ev)).toBe(2);
    const [a, b] = rx.received.filter((r) => r.headers['x-payorch-event-id'] === ev);
    expect(a!.body).toBe(b!.body);
  });

  it('status=503: answered for the receiver, which is not called until the retry (once); the rule is spent after its count', async () => {
    const r = await rule({ fault: 'status=503', webhook_endpoint: '*', count: 1 });
    const ev = await newEvent();
    const first = await delivery(ev);
    expect(first).toMatchObject({ status: 'pending', attempts: 1, last_response_code: 503 });
    expect(first.last_error).toMatch(/^simulated \(fault "status=503"\): the endpoint was not called/);
    expect(receivedOf(ev)).toBe(0);
    await retryNow(ev);
    await until(async () => ((await delivery(ev)).status === 'succeeded' ? true : undefined), 'the retry');
    expect(receivedOf(ev)).toBe(1);
    const listed = (await s.request('GET', '/test-helpers/faults')).body.data.find(
      (x: { id: string }) => x.id === r.id,
    );
    expect(listed).toMatchObject({ target: 'webhook', webhook_endpoint: '*', matched: 1, injected: 1, remaining: 0 });
    // spent: the next event goes straight through
    const ev2 = await newEvent();
    expect(
      await until(async () => ((await delivery(ev2)).status === 'succeeded' ? true : undefined), 'the next delivery'),
    ).toBe(true);
    expect(receivedOf(ev2)).toBe(1);
  });

  it('drop: never sent, retried on schedule; latency: sent after the wait', async () => {
    await rule({ fault: 'drop', webhook_endpoint: we.id, count: 1 });
    const ev = await newEvent();
    expect((await delivery(ev)).last_error).toMatch(/the POST was dropped, never sent/);
    expect(receivedOf(ev)).toBe(0);
    await retryNow(ev);
    await until(async () => ((await delivery(ev)).status === 'succeeded' ? true : undefined), 'the retry');
    expect(receivedOf(ev)).toBe(1);

    await s.request('DELETE', '/test-helpers/faults');
    await rule({ fault: 'latency=300ms', webhook_endpoint: we.id, count: 1 });
    const t = Date.now();
    const ev2 = await newEvent();
    await rx.waitFor(rx.received.length + 1);
    expect(Date.now() - t).toBeGreaterThanOrEqual(290);
    expect((await delivery(ev2)).status).toBe('succeeded');
  });

  it('a rate on deliveries: every other attempt fails, deterministically', async () => {
    await rule({ fault: 'status=500', webhook_endpoint: we.id, rate: 0.5, count: 2 });
    const events = [];
    for (let i = 0; i < 4; i++) {
      events.push(await newEvent());
      await delivery(events[i]!);
    }
    const firsts = await Promise.all(events.map(delivery));
    expect(firsts.map((d) => d.last_response_code)).toEqual([200, 500, 200, 500]);
  });
});
