// The DEFAULT limits of docs/api.md "Rate limits" (1,000 per UTC minute, 50 in flight per key), exercised at their real
// values. test/http/ratelimits.test.ts covers the mechanics with small configured limits (countdown order,
// refused requests not counted, other keys' windows, per-address limits for unauthenticated calls, the day window, a
// hung-up client giving its slot back); not repeated here.
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type HttpResult, type TestServer } from '../helpers/server.js';
import { testClock } from '../helpers/clock.js';
import { expectError } from '../helpers/util.js';

const started: TestServer[] = [];
afterAll(() => Promise.all(started.map((x) => x.close())));
// The limiter reads this clock, not the machine's: the 1,001 requests share one window however long they take.
const clock = testClock(Date.UTC(2030, 0, 15, 12, 0, 20, 500)); // 20.5 s into a minute
async function server(): Promise<TestServer> {
  const s = await startTestServer({ memory: true, rateLimitClock: clock.now }); // default limits
  started.push(s);
  return s;
}
const reset = String((Math.floor(clock.now() / 60_000) + 1) * 60);

function rate(res: HttpResult) {
  return {
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    reset: res.headers.get('x-ratelimit-reset'),
  };
}

describe('default limits (contract §5)', () => {
  it('1,000 requests in a minute pass with exact headers; the 1,001st → 429 rate_limit_exceeded with Retry-After', async () => {
    // One at a time, so that each answer's Remaining is exactly what is left after it.
    const s = await server();
    const seen: HttpResult[] = [];
    for (let i = 0; i < 1000; i++) seen.push(await s.request('GET', '/sessions?limit=1'));
    const over = await s.request('GET', '/sessions?limit=1');

    expect(seen.map((r) => r.status)).toEqual(Array(1000).fill(200));
    expect(new Set(seen.map((r) => r.headers.get('x-ratelimit-limit')))).toEqual(new Set(['1000']));
    expect(new Set(seen.map((r) => r.headers.get('x-ratelimit-reset')))).toEqual(new Set([reset]));
    // every response shows what is left after it: 999, 998, … 0
    expect(seen.map((r) => Number(r.headers.get('x-ratelimit-remaining')))).toEqual(
      Array.from({ length: 1000 }, (_, i) => 999 - i),
    );

    expectError(over, 429, 'invalid_request_error', 'rate_limit_exceeded');
    expect(rate(over)).toEqual({ limit: '1000', remaining: '0', reset });
    // Retry-After = whole seconds, rounded up, from the server's "now" (20.5 s into the minute) to the window's end
    expect(over.headers.get('retry-after')).toBe('40');
  });

  it('with 50 requests in flight (partial bodies) the 51st → 429 concurrency_limit_exceeded; all 50 then complete', async () => {
    const s = await server();
    const held = Array.from({ length: 50 }, (_, i) => hold(s, i));
    let refused: HttpResult | undefined;
    let admitted = 0; // polls that got in before all 50 held requests had arrived
    for (let i = 0; i < 300 && !refused; i++) {
      const r = await s.request('GET', '/sessions?limit=1');
      if (r.status === 429) refused = r;
      else {
        admitted++;
        await new Promise((res) => setTimeout(res, 10));
      }
    }
    expect(refused, 'the 51st request was refused').toBeDefined();
    expectError(refused!, 429, 'invalid_request_error', 'concurrency_limit_exceeded');
    expect(refused!.headers.get('retry-after')).toBe('1');
    expect(refused!.headers.get('x-ratelimit-limit')).toBe('1000');
    // a refused request is not counted: Remaining = 1,000 − the 50 held − the polls admitted before them
    expect(refused!.headers.get('x-ratelimit-remaining')).toBe(String(1000 - 50 - admitted));
    expect(refused!.headers.get('x-ratelimit-reset')).toBe(reset);
    const done = await Promise.all(held.map((h) => h.finish()));
    expect(done.map((d) => d.status)).toEqual(Array(50).fill(201));
    const after = await s.request('GET', '/sessions?limit=1');
    expect(after.status).toBe(200);
    expect(after.body.total_count).toBe(50);
  });
});

/** Headers and half the body of a create-session, then nothing until `finish`: the request is admitted and in flight. */
function hold(s: TestServer, i: number): { socket: Socket; finish(): Promise<{ status: number }> } {
  const url = new URL(s.baseUrl);
  const body = JSON.stringify({ amount: 100 + i, currency: 'usd' });
  const socket = connect(Number(url.port), url.hostname);
  socket.write(
    `POST ${url.pathname}/create-session HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${s.apiKey}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
  );
  let data = '';
  socket.on('data', (d) => (data += d));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return {
    socket,
    async finish() {
      socket.write(body.slice(10));
      await closed;
      return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1]) };
    },
  };
}
