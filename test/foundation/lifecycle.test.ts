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
    const socket = connect(Number(url.port), url.hostname, () => socket.write(`${lines.join('\r\n')}\r\nConnection: close\r\n\r\n`));
    let text = '';
    socket.on('data', (d) => (text += d));
    socket.on('end', () => resolve({ status: Number(text.split(' ')[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) }));
    socket.on('error', reject);
  });
}

describe('authentication', () => {
  it('two Authorization headers are refused with 401, even when the first is a valid key', async () => {
    const path = `${new URL(s.baseUrl).pathname}/sessions?limit=1`;
    const one = await raw([`GET ${path} HTTP/1.1`, 'Host: x', `Authorization: Bearer ${s.apiKey}`]);
    expect(one.status).toBe(200);
    const two = await raw([`GET ${path} HTTP/1.1`, 'Host: x', `Authorization: Bearer ${s.apiKey}`, 'Authorization: Bearer sk_test_other']);
    expect(two.status).toBe(401);
    expect(JSON.parse(two.body).error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', message: expect.stringMatching(/more than one Authorization header/) });
  });
});
