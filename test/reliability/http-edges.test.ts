// Requests that never reach a route (issue 6 fuzzing found these answered outside the contract): bytes Node's HTTP
// parser rejects, a URL that cannot be percent-decoded, a path parameter longer than the router's default 100
// characters. Each now gets the contract's error body with a Request-Id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { expectError } from '../helpers/util.js';
import { send, sendRaw } from './fuzz-driver.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
});
afterAll(() => s.close());

function asResult(a: { status: number; headers: Record<string, string | undefined>; text: string }) {
  return {
    status: a.status,
    headers: new Headers(a.headers as Record<string, string>),
    body: JSON.parse(a.text),
    text: a.text,
  };
}

describe('requests rejected before routing', () => {
  it('broken framing → 400 malformed_request with a Request-Id, and the connection closes', async () => {
    const { host, pathname } = new URL(s.baseUrl);
    const res = await sendRaw(
      s.baseUrl,
      `POST ${pathname}/create-session HTTP/1.1\r\nHost: ${host}\r\nContent-Length: abc\r\n\r\n{}`,
    );
    expect(res).not.toBeNull();
    expectError(asResult(res!), 400, 'invalid_request_error', 'malformed_request');
    expect(res!.headers.connection).toBe('close');
  });

  it('a request head over 16 KiB → 400 request_header_too_large', async () => {
    const { host, pathname } = new URL(s.baseUrl);
    const res = await sendRaw(
      s.baseUrl,
      `GET ${pathname}/sessions HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
    );
    expectError(asResult(res!), 400, 'invalid_request_error', 'request_header_too_large');
  });

  it('a path that is not valid percent-encoded UTF-8 → 400 invalid_url', async () => {
    const res = await send(s.baseUrl, {
      method: 'GET',
      path: '/sessions/%ED%A0%80',
      headers: { authorization: `Bearer ${s.apiKey}` },
    });
    expectError(asResult(res), 400, 'invalid_request_error', 'invalid_url');
  });

  it('a path parameter over 100 characters is validated by the route (no 414 from the router)', async () => {
    const long = await s.request('GET', `/sessions/${'a'.repeat(150)}`);
    expect(long.status).toBe(404);
    expectError(long, 404, 'invalid_request_error', 'resource_missing');
    const tooLong = await s.request('GET', `/ledger-accounts/${'a'.repeat(300)}`);
    expectError(tooLong, 400, 'validation_error', 'parameter_invalid', 'account_id');
    const huge = await s.request('GET', `/ledger-accounts/${'a'.repeat(3000)}`);
    expectError(huge, 400, 'invalid_request_error', 'invalid_url');
  });
});

describe('a client that half-closes its connection once its request is sent', () => {
  it('is answered, and the request log has the request (Node aborted it at the FIN: its write committed unanswered)', async () => {
    // shutdown(SHUT_WR) right behind the request, as `nc -N`, HTTP/1.0-style clients and some proxies do. The
    // latency keeps the answer back until the FIN has arrived (on PostgreSQL it needed none to show).
    const { host, pathname } = new URL(s.baseUrl);
    const email = `half-closed-${Date.now()}@example.test`;
    const body = JSON.stringify({ email });
    const res = await sendRaw(
      s.baseUrl,
      `POST ${pathname}/customers HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${s.apiKey}\r\n` +
        `Content-Type: application/json\r\nPayorch-Simulate: latency=300ms\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      { endAfterMs: 0 },
    );
    expect(res, 'no answer before the connection closed').not.toBeNull();
    expect(res!.status).toBe(201);
    const requestId = res!.headers['request-id']!;
    const made = JSON.parse(res!.text);
    expect(made).toMatchObject({ object: 'customer', email });
    // Its write once, and its entry in the request log (written off the request path on PostgreSQL: looked for again).
    expect((await s.request('GET', `/customers?email=${encodeURIComponent(email)}`)).body.data).toMatchObject([
      { id: made.id },
    ]);
    let entries: { request_id: string; status: number; method: string; path: string }[] = [];
    for (let i = 0; i < 100 && entries.length === 0; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 100));
      entries = (await s.request('GET', `/request-log?request_id=${requestId}`)).body.data;
    }
    expect(entries).toMatchObject([{ request_id: requestId, method: 'POST', path: '/customers', status: 201 }]);
  });
});

describe('a stop', () => {
  it('does not wait for a connection that never sent a byte', async () => {
    // A browser's preconnect, a load balancer's TCP probe: Node's server waited for such a connection until its
    // client dropped it, so the stop hung (a minute and more).
    const server = await startTestServer({ memory: true });
    const { hostname, port } = new URL(server.baseUrl);
    const silent = net.connect(Number(port), hostname);
    await new Promise<void>((resolve, reject) => silent.once('connect', resolve).once('error', reject));
    const dropped = new Promise<void>((resolve) => silent.once('close', () => resolve()));
    silent.on('error', () => {});
    expect((await server.request('GET', '/health')).status).toBe(200); // the server has accepted it by now
    await server.close(); // before: never resolved (the test's timeout)
    await dropped;
  });
});
