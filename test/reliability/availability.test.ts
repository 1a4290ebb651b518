// Availability for local users while one client misbehaves (issue 11): stalled request bodies are answered 408
// and give their in-flight slot back (header/request timeouts), and unauthenticated or failed-auth traffic is
// limited per address in its own bucket, so that it cannot take /health and the hosted pages down with it; a
// list that must read through a whole event log runs off the HTTP thread.
import { connect } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type HttpResult, type TestServer } from '../helpers/server.js';
import { expectError } from '../helpers/util.js';
import { tempDir } from '../helpers/tmp.js';
import { testClock } from '../helpers/clock.js';
import { startChild } from './child.js';

const started: TestServer[] = [];
afterAll(() => Promise.all(started.map((x) => x.close())));
async function server(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const s = await startTestServer({ memory: true, ...options });
  started.push(s);
  return s;
}

interface Stalled {
  destroy(): void;
  /** Resolves with what the server sent once it closed the connection. */
  answered: Promise<string>;
}

/** Sends the headers and part of the body of a POST, then nothing more. */
function stall(s: TestServer, path: string, key: string | null): Stalled {
  const url = new URL(s.baseUrl);
  const body = JSON.stringify({ amount: 100, currency: 'usd' });
  const socket = connect(Number(url.port), url.hostname);
  socket.write(
    `POST ${url.pathname}${path} HTTP/1.1\r\nHost: ${url.host}\r\n${key ? `Authorization: Bearer ${key}\r\n` : ''}` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
  );
  let data = '';
  socket.on('data', (d) => (data += d));
  socket.on('error', () => undefined);
  const answered = new Promise<string>((resolve) => socket.on('close', () => resolve(data)));
  return { destroy: () => socket.destroy(), answered };
}

async function poll(s: TestServer, until: (r: HttpResult) => boolean, path = '/sessions'): Promise<HttpResult> {
  let last: HttpResult | undefined;
  for (let i = 0; i < 500; i++) {
    last = await s.request('GET', path);
    if (until(last)) return last;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`never reached: last status ${last?.status}`);
}

describe('request timeouts', () => {
  it('50 stalled bodies hold every slot of their key, yet /health, /openapi.json and a hosted page answer 200', async () => {
    const s = await server(); // default timeouts: nothing expires during this test
    const session = (await s.request('POST', '/create-session', { body: { amount: 100, currency: 'usd' } })).body;
    const keyed = Array.from({ length: 50 }, () => stall(s, '/create-session', s.apiKey));
    const unrouted = Array.from({ length: 50 }, () => stall(s, '/no-such-route', null));
    // the stalled requests were admitted: the key has no slot left
    expectError(await poll(s, (r) => r.status === 429), 429, 'invalid_request_error', 'concurrency_limit_exceeded');
    expect((await s.request('GET', '/health', { key: null })).status).toBe(200);
    expect((await s.request('GET', '/openapi.json', { key: null })).status).toBe(200);
    const page = await fetch(`${s.baseUrl}/pay/${session.id}`);
    expect(page.status).toBe(200);
    for (const x of [...keyed, ...unrouted]) x.destroy();
    await Promise.all([...keyed, ...unrouted].map((x) => x.answered));
  });

  it('a stalled body is answered 408 request_timeout in the contract body, and its slot is given back', async () => {
    const s = await server({ timeouts: { headersMs: 300, requestMs: 600 } });
    const keyed = Array.from({ length: 50 }, () => stall(s, '/create-session', s.apiKey));
    const answers = await Promise.all(keyed.map((x) => x.answered));
    for (const text of answers) {
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
      const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
      expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'request_timeout' });
      expect(body.error.request_id).toMatch(/\S/);
    }
    // every slot came back: the key's requests pass, and nothing of the stalled ones was written
    const after = await poll(s, (r) => r.status === 200);
    expect(after.body.total_count).toBe(0);
    expect((await s.request('GET', '/health', { key: null })).status).toBe(200);
  });
});

describe('per-address buckets', () => {
  it('1,000 bad-key requests in a minute: the next is 429, but /health and the hosted pages still answer', async () => {
    // The limiter reads a clock of the test's: the 1,000 requests share one window however long they take.
    const s = await server({ rateLimitClock: testClock().now }); // default limits: 1,000 a minute, 50 in flight
    const session = (await s.request('POST', '/create-session', { body: { amount: 100, currency: 'usd' } })).body;
    const statuses: number[] = [];
    for (let i = 0; i < 1000; i += 25) {
      const batch = await Promise.all(
        Array.from({ length: 25 }, () => s.request('GET', '/sessions', { key: 'sk_test_guessed' })),
      );
      statuses.push(...batch.map((r) => r.status));
    }
    const over = await s.request('GET', '/sessions', { key: 'sk_test_guessed' });
    const missing = await s.request('GET', '/sessions', { key: null });
    const health = await s.request('GET', '/health', { key: null });
    const pay = await fetch(`${s.baseUrl}/pay/${session.id}`);
    const invoice = await fetch(`${s.baseUrl}/invoice/in_0000000000000000`);
    const portal = await fetch(`${s.baseUrl}/portal/bps_0000000000000000`);
    const openapi = await s.request('GET', '/openapi.json', { key: null });
    const keyed = await s.request('GET', '/sessions');
    expect(statuses).toEqual(Array(1000).fill(401));
    expectError(over, 429, 'invalid_request_error', 'rate_limit_exceeded'); // guessing stays throttled
    expectError(missing, 429, 'invalid_request_error', 'rate_limit_exceeded'); // so does calling without a key
    expect(health.status).toBe(200);
    expect(pay.status).toBe(200);
    expect([invoice.status, portal.status]).toEqual([404, 404]); // an answer, not 429
    expect(openapi.status).toBe(200);
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get('x-ratelimit-remaining')).toBe('998'); // the key's own window is untouched
  });
});

describe('hosted pages: CSP', () => {
  it("allows only the page's own scripts: a fresh nonce per response on every <script>, no 'unsafe-inline' for scripts", async () => {
    const s = await server();
    const session = (await s.request('POST', '/create-session', { body: { amount: 100, currency: 'usd' } })).body;
    const nonces: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${s.baseUrl}/pay/${session.id}`);
      const html = await res.text();
      const csp = res.headers.get('content-security-policy')!;
      const scriptSrc = /script-src ([^;]*)/.exec(csp)![1]!;
      expect(scriptSrc).not.toContain('unsafe-inline');
      const nonce = /^'nonce-([A-Za-z0-9+/=]{22,})'$/.exec(scriptSrc.trim())![1]!;
      const tags = html.match(/<script[^>]*>/g) ?? [];
      expect(tags.length).toBeGreaterThan(0);
      for (const tag of tags) expect(tag).toBe(`<script nonce="${nonce}">`);
      nonces.push(nonce);
    }
    expect(nonces[0]).not.toBe(nonces[1]);
  });
});

describe('long reads', () => {
  it('a list that reads through a 300k-event log does not hold up other clients', async () => {
    const dataDir = tempDir();
    const first = await startChild(dataDir);
    const key = { authorization: `Bearer ${first.apiKey}` };
    await fetch(`${first.baseUrl}/customers`, {
      method: 'POST',
      headers: { ...key, 'content-type': 'application/json' },
      body: '{}',
    });
    await first.stop();
    // 300k events of a day ago, written straight into the file (through the API this would take minutes)
    const db = new Database(join(dataDir, 'payorch.db'));
    const { account_id } = db.prepare('SELECT account_id FROM events LIMIT 1').get() as { account_id: string };
    const dayAgo = Date.now() - 86_400_000;
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000)
       INSERT INTO events (id, account_id, type, object_id, created_ms, body) SELECT 'evt_fill' || i, ?, 'customer.updated', 'cus_fill', ?, '{}' FROM n`,
    ).run(account_id, dayAgo);
    db.close();

    const child = await startChild(dataDir);
    try {
      const headers = { authorization: `Bearer ${child.apiKey}` };
      // nothing matches a filter on a month ago: the list looks at every event of the account
      const monthAgo = Math.floor((Date.now() - 30 * 86_400_000) / 1000);
      const order: string[] = [];
      const long = fetch(`${child.baseUrl}/events?created[lt]=${monthAgo}`, { headers }).then(async (r) => {
        order.push('list');
        return [r.status, ((await r.json()) as { total_count: number }).total_count];
      });
      await new Promise((r) => setTimeout(r, 50));
      const health = await fetch(`${child.baseUrl}/health`);
      order.push('health');
      expect(health.status).toBe(200);
      expect(await long).toEqual([200, 0]);
      expect(order).toEqual(['health', 'list']);
      // and the long read answers what the log holds
      const recent = await fetch(`${child.baseUrl}/events?created[gte]=${Math.floor(dayAgo / 1000)}&limit=2`, {
        headers,
      });
      const page = (await recent.json()) as { total_count: number; data: unknown[] };
      expect([recent.status, page.total_count, page.data.length]).toEqual([200, 300_001, 2]);
    } finally {
      await child.stop();
    }
  }, 60_000);
});
