// The scripted run of deterministic mode (docs/api.md "Deterministic mode"): sessions, confirms, a decline, refunds, a
// subscription over a clock advance, webhooks to a local receiver — everything a seeded server must answer with the
// same bytes each time (test/server/deterministic.test.ts), on either engine (test/postgres/seeded.test.ts).
import { request } from 'node:http';
import { expect } from 'vitest';
import type { RunningServer, ServerOptions } from '../../dist/index.js';
import { verifyWebhook } from '../../dist/webhooks.js';
import { startTestServer } from '../helpers/server.js';
import { ALL_VERIFY, verifications } from '../webhooks/verifiers.js';
import { until, type Received, type Receiver } from '../webhooks/receiver.js';

/** What the run needs of its server. */
type Served = Pick<RunningServer, 'baseUrl' | 'apiKey' | 'port' | 'close'>;

export interface Run {
  /** Every answer: status, Request-Id header and body, in request order. */
  answers: string[];
  events: string;
  /** Webhook POSTs as received: signature header, body, and the event id verifyWebhook returned. */
  webhooks: { signature: string; body: string; verifies: string }[];
  /** The run's start and end on the machine's clock (Unix seconds). */
  started: number;
  ended: number;
  apiKey: string;
  secret: string;
}

/**
 * A request on a connection of its own (the second run listens on the first one's port: a kept-alive connection to
 * the closed server must not be picked up).
 */
export function send(
  s: { baseUrl: string; apiKey: string },
  method: string,
  path: string,
  body: unknown,
  opts: { key?: string | null; headers?: Record<string, string> },
) {
  return new Promise<{ status: number; requestId: string; text: string }>((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = request(s.baseUrl + path, {
      method,
      agent: false,
      headers: {
        ...(opts.key === null ? {} : { authorization: `Bearer ${opts.key ?? s.apiKey}` }),
        ...(text ? { 'content-type': 'application/json' } : {}),
        ...opts.headers,
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let out = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (out += c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, requestId: String(res.headers['request-id']), text: out }),
      );
    });
    req.end(text);
  });
}

/**
 * Waits until the receiver has a webhook for each event of the log newer than the `before` already received, and
 * every delivery is recorded as succeeded; returns all received.
 */
async function settled(rx: Receiver, s: Served, endpoint: string, before: Received[] = []): Promise<Received[]> {
  const log = JSON.parse((await send(s, 'GET', '/events?limit=100', undefined, {})).text).data as { id: string }[];
  const fresh = log.filter((e) => !before.some((r) => r.headers['x-payorch-event-id'] === e.id));
  const got = await rx.waitFor(before.length + fresh.length);
  await until(
    async () =>
      (
        JSON.parse((await send(s, 'GET', `/webhook-endpoints/${endpoint}/deliveries?limit=100`, undefined, {})).text)
          .data as { status: string }[]
      ).every((d) => d.status === 'succeeded') || undefined,
    'deliveries recorded',
  );
  return got;
}

/**
 * The scripted run, its webhooks to `rx`, on a fresh in-memory server seeded with `seed` (on `port`: hosted-page links
 * carry it) — or on the server `start` makes of those options (another engine).
 */
export async function scriptedRun(
  rx: Receiver,
  seed: number,
  port = 0,
  start: (options: ServerOptions) => Promise<Served> = async (options) => (await startTestServer(options)).server,
): Promise<Run & { port: number }> {
  rx.received.length = 0;
  const started = Math.floor(Date.now() / 1000);
  const s = await start({ memory: true, seed, port, dueWorkIntervalMs: 0 });
  try {
    const answers: string[] = [];
    const call = async (
      method: string,
      path: string,
      body?: unknown,
      opts: { key?: string | null; headers?: Record<string, string> } = {},
    ) => {
      const r = await send(s, method, path, body, opts);
      answers.push(`${r.status} ${r.requestId} ${r.text}`);
      return r.text ? JSON.parse(r.text) : undefined;
    };
    const endpoint = await call('POST', '/webhook-endpoints', { url: rx.url });
    const a = await call(
      'POST',
      '/create-session',
      { amount: 5000, currency: 'usd' },
      { headers: { 'idempotency-key': 'order-1' } },
    );
    const paid = await call(
      'POST',
      `/confirm-payment/${a.id}`,
      { payment_method_type: 'card', token_id: 'tok_visa' },
      { key: a.client_secret },
    );
    await call('GET', `/sessions/${a.id}`);
    await call('POST', `/refund-payment/${paid.id}`, { amount: 1000 });
    await call('POST', `/refund-payment/${paid.id}`, { amount: 9000 }); // more than is left: an error body, with its request id
    const b = await call('POST', '/create-session', { amount: 700, currency: 'eur' });
    await call(
      'POST',
      `/confirm-payment/${b.id}`,
      { payment_method_type: 'card', token_id: 'tok_chargeDeclined' },
      { key: b.client_secret },
    );
    // A route without a credential (the test vault) takes its time from the seeded epoch too.
    const card = await call(
      'POST',
      '/vault/tokens',
      { number: '4242 4242 4242 4242', exp_month: 12, exp_year: 2030, cvc: '123' },
      { key: null },
    );
    expect(card.created_at).toBe('2025-01-01T00:00:00.000Z');
    const c = await call('POST', '/create-session', { amount: 1200, currency: 'usd' });
    await call(
      'POST',
      `/confirm-payment/${c.id}`,
      { payment_method_type: 'card', token_id: 'tok_threeDSecureRequired' },
      { key: c.client_secret },
    );
    const product = await call('POST', '/products', { name: 'Pro' });
    const price = await call('POST', '/prices', {
      product: product.id,
      currency: 'usd',
      unit_amount: 2500,
      recurring: { interval: 'month' },
    });
    const customer = await call('POST', '/customers', { email: 'jo@example.com', default_payment_method: 'tok_visa' });
    const sub = await call('POST', '/subscriptions', { customer: customer.id, items: [{ price: price.id }] });
    await call('GET', '/test-helpers/clock');
    // Every event so far reaches the receiver before the clock moves (past the events' retention: the advance removes
    // them), and every delivery is recorded: what happens on the advance must not depend on how fast the POSTs went.
    const before = await settled(rx, s, endpoint.id);
    await call('POST', '/test-helpers/advance-clock', { seconds: 31 * 86_400 });
    await call('GET', `/subscriptions/${sub.id}`);
    await call('GET', `/invoices?subscription=${sub.id}`);
    const events = await send(s, 'GET', '/events?limit=100', undefined, {});
    expect(events.status).toBe(200);
    const got = await settled(rx, s, endpoint.id, before);
    expect(got.length).toBeGreaterThan(20);
    // Each signed with the endpoint's secret at the attempt's real time: every verifier accepts it with its defaults
    // (Standard Webhooks' library has no option for another clock), though the bodies carry the seeded clock.
    for (const r of got) expect(verifications(r.body, r.headers, endpoint.secret)).toEqual(ALL_VERIFY);
    answers.push((await send(s, 'GET', `/webhook-endpoints/${endpoint.id}/deliveries?limit=100`, undefined, {})).text);
    return {
      answers,
      events: events.text,
      webhooks: got.map((r) => ({
        signature: String(r.headers['x-payorch-signature']),
        body: r.body,
        verifies: verifyWebhook(r.body, r.headers, endpoint.secret).id,
      })),
      started,
      ended: Math.floor(Date.now() / 1000),
      apiKey: s.apiKey,
      secret: endpoint.secret,
      port: s.port,
    };
  } finally {
    await s.close();
  }
}

/** Where two lists of texts first differ (with some context), or '' when they are the same. */
function difference(a: string[], b: string[]): string {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? '';
    const y = b[i] ?? '';
    if (x === y) continue;
    let at = 0;
    while (x[at] === y[at]) at++;
    return `#${i} at ${at}:\n  ${x.slice(Math.max(0, at - 200), at + 100)}\n  ${y.slice(Math.max(0, at - 200), at + 100)}`;
  }
  return '';
}

/** Asserts that run `b` gave the same bytes as run `a`: key, signing secret, answers, event log, webhook bodies. */
export function expectSameBytes(b: Run, a: Run): void {
  expect(b.apiKey).toBe(a.apiKey);
  expect(b.secret).toBe(a.secret);
  expect(difference(b.answers, a.answers)).toBe('');
  expect(difference([b.events], [a.events])).toBe('');
  expect(
    difference(
      b.webhooks.map((w) => w.body),
      a.webhooks.map((w) => w.body),
    ),
  ).toBe('');
  expect(b.webhooks.map((w) => w.verifies)).toEqual(a.webhooks.map((w) => w.verifies));
}
