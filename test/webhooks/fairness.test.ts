// Deliveries as a shared service: endpoints that never answer cannot starve another account (or their own
// account's healthy endpoints), an answer cut short is a failed attempt, the server's own deliveries to its own
// pages leave /health and the pages to everyone else, and a saturating load loses or repeats no delivery.
import http from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, sqliteOf } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';
import { testClock } from '../helpers/clock.js';
import { advance, newSession } from '../payments/util.js';
import { startChild } from '../reliability/child.js';
import { startReceiver, until, type Receiver } from './receiver.js';
import { onSqlite } from '../helpers/engine.js';

async function endpoint(s: TestServer, url: string, key?: string, events = ['customer.created']) {
  const r = await s.request('POST', '/webhook-endpoints', { body: { url, enabled_events: events }, key });
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string };
}

async function customer(s: TestServer, key?: string): Promise<string> {
  const r = await s.request('POST', '/customers', { body: { email: 'x@example.com' }, key });
  expect(r.status, r.text).toBe(201);
  return r.body.id;
}

/** Milliseconds from each creation's answer until `rx` received its event (sequential creations). */
async function latencies(s: TestServer, rx: Receiver, key: string | undefined, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const before = rx.received.length;
    const id = await customer(s, key);
    const t0 = performance.now();
    await rx.waitFor(before + 1, 30_000);
    out.push(performance.now() - t0);
    expect(JSON.parse(rx.received[before]!.body).data.object.id).toBe(id);
  }
  return out;
}

describe('fair dispatch', () => {
  it("100 endpoints that never answer, across seven accounts: another account's deliveries, and the healthy endpoint among them, arrive at once", async () => {
    // The POST timeout stays the default 10 s: a delivery that had to wait for a dead endpoint's slot would take that
    // long.
    const s = await startTestServer();
    const dead = await startReceiver('hang');
    const healthyA = await startReceiver(200);
    const b = await startReceiver(200);
    try {
      const keysA: string[] = [];
      for (let i = 0; i < 7; i++) keysA.push((await s.server.services.accounts.createAccountWithKey()).api_key);
      for (const [i, key] of keysA.entries()) {
        for (let j = 0; j < (i < 6 ? 16 : 4); j++) await endpoint(s, `${dead.url}/${i}/${j}`, key);
      }
      await endpoint(s, healthyA.url, keysA[6]);
      // Every dead endpoint has deliveries due, and more keep coming.
      for (const key of keysA) for (let k = 0; k < 5; k++) await customer(s, key);
      await until(async () => (dead.received.length >= 100 ? true : undefined), 'a POST to each dead endpoint', 30_000);
      await endpoint(s, b.url);
      const lb = await latencies(s, b, undefined, 20);
      const la = await latencies(s, healthyA, keysA[6], 10);
      // Generous bounds (the machine may be busy), far below the 10 s a slot held by a dead endpoint would cost.
      expect(Math.max(...lb), JSON.stringify(lb)).toBeLessThan(5000);
      expect(Math.max(...la), JSON.stringify(la)).toBeLessThan(5000);
      // The dead endpoints hold at most one POST each.
      const open = dead.received.filter((r) => !r.closed);
      expect(open.length).toBeLessThanOrEqual(100);
    } finally {
      await s.close();
      await Promise.all([dead.close(), healthyA.close(), b.close()]);
    }
  }, 120_000);
});

describe('what counts as delivered', () => {
  it('an answer cut short (200 with Content-Length 100, 3 bytes, then closed) fails the attempt, which is retried', async () => {
    let truncate = true;
    const attempts: string[] = [];
    const server = net.createServer((socket) => {
      let buf = '';
      socket.on('data', (d) => {
        buf += d.toString('latin1');
        const head = buf.indexOf('\r\n\r\n');
        if (head < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buf.slice(0, head))?.[1] ?? 0);
        if (buf.length < head + 4 + length) return;
        attempts.push(truncate ? 'cut' : 'whole');
        if (truncate) socket.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc');
        else socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
        buf = '';
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const s = await startTestServer();
    try {
      const we = await endpoint(s, `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`);
      await customer(s);
      const d = await until(async () => {
        const row = (await s.request('GET', `/webhook-endpoints/${we.id}/deliveries`)).body.data[0];
        return row?.attempts === 1 ? row : undefined;
      }, 'the first attempt recorded');
      expect(d).toMatchObject({ status: 'pending', last_response_code: 200 });
      expect(d.last_error).toMatch(/cut short/);
      expect(d.next_attempt_at).not.toBeNull();
      truncate = false;
      await advance(s, 121);
      const done = await until(async () => {
        const row = (await s.request('GET', `/webhook-endpoints/${we.id}/deliveries`)).body.data[0];
        return row?.status === 'succeeded' ? row : undefined;
      }, 'the retry succeeded');
      expect(done).toMatchObject({ attempts: 2, last_response_code: 200, last_error: null });
      expect(attempts).toEqual(['cut', 'whole']);
    } finally {
      await s.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("the server's own deliveries", () => {
  it.runIf(onSqlite)(
    '16 endpoints at its own checkout action: /health and the hosted pages keep answering a local browser; the deliveries are limited in a bucket of their own',
    async () => {
      // the limiter reads the test's clock: the deliveries share one window however long they take
      const s = await startTestServer({ rateLimits: { perMinute: 150 }, rateLimitClock: testClock().now });
      try {
        const session = await newSession(s);
        for (let i = 0; i < 16; i++) await endpoint(s, `${s.baseUrl}/checkout/cks_x${i}/complete`);
        for (let i = 0; i < 15; i++) await customer(s); // 240 deliveries to the server itself, over its minute's 150
        // Every delivery attempted once (each answered: 400 or 404 from the action, or 429 from their own bucket).
        // (read from the database: polling the API would spend the key's own small budget)
        const codes = await until(
          async () => {
            const rows = sqliteOf(s)
              .db.prepare("SELECT json_extract(data, '$.last_response_code') AS code FROM webhook_deliveries")
              .all() as { code: number | null }[];
            return rows.length === 240 && rows.every((r) => r.code !== null) ? rows.map((r) => r.code) : undefined;
          },
          'every delivery attempted',
          60_000,
        );
        expect(codes.filter((c) => c === 429).length).toBeGreaterThan(0); // limited: no bypass
        // A local browser (same address, no key) is not limited by them.
        const health = await fetch(`${s.baseUrl}/health`);
        expect(health.status).toBe(200);
        const page = await fetch(session.fallback_url);
        expect(page.status).toBe(200);
      } finally {
        await s.close();
      }
    },
    120_000,
  );

  it('/health answers 200 whatever a local client does to its address bucket', async () => {
    // all in one window of the limiter's clock (the test's)
    const s = await startTestServer({ rateLimits: { perMinute: 20 }, rateLimitClock: testClock().now });
    try {
      const statuses = await Promise.all(
        Array.from({ length: 40 }, () => fetch(`${s.baseUrl}/health`).then((r) => r.status)),
      );
      expect(statuses.every((x) => x === 200)).toBe(true);
      // the public bucket itself still limits the other routes that take no credential
      const docs = await Promise.all(
        Array.from({ length: 25 }, () => fetch(`${s.baseUrl}/openapi.json`).then((r) => r.status)),
      );
      expect(docs.filter((x) => x === 429).length).toBeGreaterThan(0);
      expect((await fetch(`${s.baseUrl}/health`)).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('keeping pace under load', () => {
  // How far behind the receiver falls during such a load is a matter of CPU shares, which a shared machine does not
  // promise: measured by `node bench/webhooks-pace.js` (bench/README.md), not asserted here.
  it('a saturating write load with one endpoint: the receiver gets every event exactly once', async () => {
    const child = await startChild(tempDir());
    const rx = await startReceiver(200);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const post = (path: string, body: object) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          `${child.baseUrl}${path}`,
          {
            method: 'POST',
            agent,
            headers: { authorization: `Bearer ${child.apiKey}`, 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify(body));
      });
    try {
      expect(await post('/webhook-endpoints', { url: rx.url, enabled_events: ['customer.created'] })).toBe(201);
      // 12 clients, 2,000 creates: a fixed amount of work, however fast the machine does it
      let sent = 0;
      let created = 0;
      const refused: number[] = [];
      await Promise.all(
        Array.from({ length: 12 }, async () => {
          while (sent < 2000) {
            sent++;
            const status = await post('/customers', { email: 'load@example.com' });
            if (status === 201) created++;
            else refused.push(status);
          }
        }),
      );
      expect(refused).toEqual([]);
      expect(created).toBe(2000);
      await rx.waitFor(created, 60_000);
      expect(new Set(rx.eventIds()).size).toBe(created);
    } finally {
      agent.destroy();
      await child.stop();
      await rx.close();
    }
  }, 120_000);
});
