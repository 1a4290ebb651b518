// Rate limits over real HTTP (issue 2, docs/api.md "Rate limits"): per-minute and per-day windows with the three
// headers on every response, 429 with Retry-After, and the in-flight (concurrency) limit per key.
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type HttpResult, type TestServer } from '../helpers/server.js';
import { testClock } from '../helpers/clock.js';
import { expectError } from '../helpers/util.js';

const started: TestServer[] = [];
afterAll(() => Promise.all(started.map((x) => x.close())));
// The limiter reads this clock, not the machine's: every test's requests share one window, whatever the time.
const clock = testClock(Date.UTC(2030, 0, 15, 12, 0, 20, 500)); // 20.5 s into a minute
async function server(rateLimits: { perMinute?: number; perDay?: number; concurrency?: number }) {
  const s = await startTestServer({ memory: true, rateLimits, rateLimitClock: clock.now });
  started.push(s);
  return s;
}
const endOfMinute = () => (Math.floor(clock.now() / 60_000) + 1) * 60;
const endOfDay = () => (Math.floor(clock.now() / 86_400_000) + 1) * 86_400;

function rate(res: HttpResult) {
  return {
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    reset: res.headers.get('x-ratelimit-reset'),
  };
}

describe('per-minute limit', () => {
  it('counts down on every response (errors included) and answers the 6th request of 5/min with 429 + Retry-After', async () => {
    const s = await server({ perMinute: 5 });
    const reset = String(endOfMinute());
    const seen = [
      await s.request('POST', '/create-session', { body: { amount: 1, currency: 'usd' } }),
      await s.request('GET', '/sessions'),
      await s.request('GET', '/sessions/0190a8b0-0000-7000-8000-000000000000'), // 404 counts too
      await s.request('POST', '/create-session', { body: { amount: 'x' } }), // 400 counts too
      await s.request('GET', '/sessions'),
    ];
    expect(seen.map((r) => r.status)).toEqual([201, 200, 404, 400, 200]);
    expect(seen.map(rate)).toEqual([4, 3, 2, 1, 0].map((n) => ({ limit: '5', remaining: String(n), reset })));

    const over = await s.request('GET', '/sessions');
    expectError(over, 429, 'invalid_request_error', 'rate_limit_exceeded');
    expect(rate(over)).toEqual({ limit: '5', remaining: '0', reset });
    // Retry-After = whole seconds, rounded up, from the server's "now" (20.5 s into the minute) to the window's end
    expect(over.headers.get('retry-after')).toBe('40');

    // a refused request does not count; other keys have their own window
    const again = await s.request('POST', '/create-session', { body: { amount: 1, currency: 'usd' } });
    expectError(again, 429, 'invalid_request_error', 'rate_limit_exceeded');
    expect((await s.request('GET', '/sessions')).body.error.code).toBe('rate_limit_exceeded');
    const other = (await s.server.services.accounts.createAccountWithKey()).api_key;
    const fresh = await s.request('GET', '/sessions', { key: other });
    expect(fresh.status).toBe(200);
    expect(rate(fresh)).toEqual({ limit: '5', remaining: '4', reset });
  });

  it('the next UTC minute is a fresh window: the count starts over, Reset moves on a minute', async () => {
    const s = await server({ perMinute: 2 });
    const first = [await s.request('GET', '/sessions'), await s.request('GET', '/sessions')];
    expect(first.map((r) => rate(r).remaining)).toEqual(['1', '0']);
    expectError(await s.request('GET', '/sessions'), 429, 'invalid_request_error', 'rate_limit_exceeded');
    const reset = endOfMinute();
    clock.advance(reset * 1000 - clock.now() - 1); // the window's last millisecond: still refused
    const last = await s.request('GET', '/sessions');
    expectError(last, 429, 'invalid_request_error', 'rate_limit_exceeded');
    expect(last.headers.get('retry-after')).toBe('1');
    clock.advance(1);
    const next = await s.request('GET', '/sessions');
    expect(next.status).toBe(200);
    expect(rate(next)).toEqual({ limit: '2', remaining: '1', reset: String(reset + 60) });
  });

  it('unauthenticated calls are limited by client address, with the same headers', async () => {
    const s = await server({ perMinute: 2 });
    const a = await s.request('GET', '/openapi.json', { key: null });
    const b = await s.request('GET', '/openapi.json', { key: null });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect([rate(a).remaining, rate(b).remaining]).toEqual(['1', '0']);
    const c = await s.request('GET', '/openapi.json', { key: null });
    expectError(c, 429, 'invalid_request_error', 'rate_limit_exceeded');
    expect(c.headers.get('retry-after')).toMatch(/^\d+$/);
    // the health check is never limited (and does not count): it shows the bucket as it is
    const health = await s.request('GET', '/health', { key: null });
    expect(health.status).toBe(200);
    expect(rate(health).remaining).toBe('0');
    // the API key's own window is untouched
    const keyed = await s.request('GET', '/sessions');
    expect(keyed.status).toBe(200);
    expect(rate(keyed).remaining).toBe('1');
  });
});

describe('headers on every response', () => {
  it('404 route_not_found, 405, 401 and 413 answers carry the three headers too', async () => {
    const s = await server({ perMinute: 50 });
    const answers = [
      await s.request('GET', '/no-such-route'),
      await s.request('DELETE', '/sessions'),
      await s.request('GET', '/sessions', { key: null }),
      await s.request('POST', '/create-session', {
        rawBody: 'x'.repeat(1024 * 1024 + 1),
        headers: { 'content-type': 'application/json' },
      }),
      await s.request('GET', '/openapi.json', { key: null }),
    ];
    expect(answers.map((a) => a.status)).toEqual([404, 405, 401, 413, 200]);
    for (const a of answers) {
      expect(a.headers.get('x-ratelimit-limit')).toBe('50');
      expect(a.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(Number(a.headers.get('x-ratelimit-reset'))).toBe(endOfMinute());
    }
  });
});

describe('per-day limit', () => {
  it('shows the day window once it is the tighter one, and answers 429 daily_limit_exceeded', async () => {
    const s = await server({ perMinute: 100, perDay: 3 });
    const reset = String(endOfDay());
    const res = [
      await s.request('GET', '/sessions'),
      await s.request('GET', '/sessions'),
      await s.request('GET', '/sessions'),
    ];
    expect(res.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(res.map(rate)).toEqual([2, 1, 0].map((n) => ({ limit: '3', remaining: String(n), reset })));
    const over = await s.request('GET', '/sessions');
    expectError(over, 429, 'invalid_request_error', 'daily_limit_exceeded');
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
  });
});

describe('concurrency limit', () => {
  /**
   * Sends the headers and half the body of a create-session, then holds: the server has admitted the request
   * (it is in flight) but cannot finish it until `finish` sends the rest.
   */
  function hold(s: TestServer): { socket: Socket; finish(): Promise<{ status: number; text: string }> } {
    const url = new URL(s.baseUrl);
    const body = JSON.stringify({ amount: 100, currency: 'usd' });
    const socket = connect(Number(url.port), url.hostname);
    socket.write(
      `POST ${url.pathname}/create-session HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${s.apiKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
    );
    let data = '';
    socket.on('data', (d) => (data += d));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => undefined);
    return {
      socket,
      async finish() {
        socket.write(body.slice(10));
        await closed;
        return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1]), text: data };
      },
    };
  }

  /** Polls until a request is refused for concurrency (the held requests reached the server). */
  async function untilRefused(s: TestServer): Promise<HttpResult> {
    for (let i = 0; i < 200; i++) {
      const res = await s.request('GET', '/sessions');
      if (res.status === 429) return res;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('never refused');
  }
  async function untilAccepted(s: TestServer): Promise<HttpResult> {
    for (let i = 0; i < 200; i++) {
      const res = await s.request('GET', '/sessions');
      if (res.status === 200) return res;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('never accepted');
  }

  it('with 2 requests in flight the 3rd gets 429 concurrency_limit_exceeded; once they finish, requests pass again', async () => {
    const s = await server({ concurrency: 2 });
    const held = [hold(s), hold(s)];
    const refused = await untilRefused(s);
    expectError(refused, 429, 'invalid_request_error', 'concurrency_limit_exceeded');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('x-ratelimit-limit')).toBe('1000');
    const done = await Promise.all(held.map((h) => h.finish()));
    expect(done.map((d) => d.status)).toEqual([201, 201]);
    const after = await s.request('GET', '/sessions');
    expect(after.status).toBe(200);
    expect(after.body.total_count).toBe(2);
  });

  it('a client that hangs up mid-request gives its slot back', async () => {
    const s = await server({ concurrency: 1 });
    const held = hold(s);
    expectError(await untilRefused(s), 429, 'invalid_request_error', 'concurrency_limit_exceeded');
    held.socket.destroy();
    expect((await untilAccepted(s)).status).toBe(200);
    expect((await s.request('GET', '/sessions')).body.total_count).toBe(0);
  });
});
