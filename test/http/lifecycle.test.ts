// The request lifecycle's edges: who is calling (http/auth.ts).
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
});
afterAll(() => s.close());

/** A raw HTTP/1.1 request (headers exactly as given, duplicates included); resolves with status and body. */
function raw(lines: string[]): Promise<{ status: number; body: string }> {
  const url = new URL(s.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () =>
      socket.write(`${lines.join('\r\n')}\r\nConnection: close\r\n\r\n`),
    );
    let text = '';
    socket.on('data', (d) => (text += d));
    socket.on('end', () =>
      resolve({ status: Number(text.split(' ')[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) }),
    );
    socket.on('error', reject);
  });
}

describe('authentication', () => {
  it('two Authorization headers are refused with 401, even when the first is a valid key', async () => {
    const path = `${new URL(s.baseUrl).pathname}/sessions?limit=1`;
    const one = await raw([`GET ${path} HTTP/1.1`, 'Host: x', `Authorization: Bearer ${s.apiKey}`]);
    expect(one.status).toBe(200);
    const two = await raw([
      `GET ${path} HTTP/1.1`,
      'Host: x',
      `Authorization: Bearer ${s.apiKey}`,
      'Authorization: Bearer sk_test_other',
    ]);
    expect(two.status).toBe(401);
    expect(JSON.parse(two.body).error).toMatchObject({
      type: 'authentication_error',
      code: 'invalid_api_key',
      message: expect.stringMatching(/more than one Authorization header/),
    });
  });
});

describe('browsers on other origins (the live service SDK runs in a merchant page)', () => {
  it('a preflight of a known path answers 204 with its methods and the headers the API reads; every answer allows any origin', async () => {
    const pre = await fetch(`${s.baseUrl}/confirm-payment`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/Idempotency-Key/);

    const get = await s.request('GET', '/sessions?limit=1', { headers: { origin: 'https://shop.example' } });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBe('*');
    expect(get.headers.get('access-control-expose-headers')).toContain('Request-Id');
    const denied = await s.request('GET', '/sessions', { key: null, headers: { origin: 'https://shop.example' } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe('*'); // so the page can read the error

    const unknown = await fetch(`${s.baseUrl}/no-such-route`, { method: 'OPTIONS' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
  });
});
