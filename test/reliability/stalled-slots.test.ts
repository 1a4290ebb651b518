// A stalled request holds one in-flight slot of its key or address until its 408 — never longer (docs/api.md
// "Timeouts"). The clients here never close their side: one never reads at all (a paused socket), one reads the
// 408 and stays half-open. The server must give the slot back when it answers, not when the client hangs up.
// Verdicts depend on order (held → 429, answered → 200 again), not on speed: each wait has a generous bound.
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type HttpResult, type TestServer } from '../helpers/server.js';
import { expectError } from '../helpers/util.js';

// Long enough for the first poll to see the held slots even on a busy machine, short enough for a quick test.
const TIMEOUTS = { headersMs: 1_000, requestMs: 3_000 };
/** How long after a stalled request's deadline its slot may still be held before the test calls it a leak. */
const GRACE_MS = 10_000;

const started: TestServer[] = [];
const sockets: Socket[] = [];
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(started.map((x) => x.close()));
});

async function server(timeouts = TIMEOUTS): Promise<TestServer> {
  const s = await startTestServer({ memory: true, timeouts, rateLimits: { concurrency: 2 } });
  started.push(s);
  return s;
}

interface Stalled {
  socket: Socket;
  /** What the server has sent so far (nothing is read while the socket is paused). */
  received(): string;
  /** Resolves when the server's side of the connection has ended (FIN seen), with what it sent. */
  ended: Promise<string>;
}

/**
 * Writes `head` (the request line and headers, no blank line) plus `rest`, then nothing more and never ends its
 * side. `read: false` pauses the socket (nothing is ever read); `read: true` reads and stays half-open.
 */
function stall(s: TestServer, head: string, rest: string, read: boolean): Stalled {
  const url = new URL(s.baseUrl);
  const socket = connect({ port: Number(url.port), host: url.hostname, allowHalfOpen: true });
  sockets.push(socket);
  socket.on('error', () => undefined);
  let data = '';
  socket.on('data', (d) => (data += d));
  const ended = new Promise<string>((resolve) => {
    socket.once('end', () => resolve(data));
    socket.once('close', () => resolve(data));
  });
  if (!read) socket.pause();
  socket.write(`${head.replaceAll('{prefix}', url.pathname).replace('{host}', url.host)}\r\n\r\n${rest}`);
  return { socket, received: () => data, ended };
}

const BODY = JSON.stringify({ amount: 100, currency: 'usd' });
/** A create-session with a valid key, Content-Length of the whole body, and half the body. */
const keyedHalfBody = (s: TestServer, read: boolean) =>
  stall(
    s,
    `POST {prefix}/create-session HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer ${s.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${BODY.length}`,
    BODY.slice(0, 10),
    read,
  );
/** A hosted invoice page's pay action (no credential: the address's public bucket, like /openapi.json), half a body. */
const keylessHalfBody = (s: TestServer, read: boolean) =>
  stall(
    s,
    `POST {prefix}/invoice/in_0000000000000000/pay HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: ${BODY.length}`,
    BODY.slice(0, 10),
    read,
  );

/** Polls until `until` holds, at most until `deadline` (epoch ms); returns every status seen, in order. */
async function pollUntil(
  send: () => Promise<HttpResult>,
  until: (r: HttpResult) => boolean,
  deadline: number,
): Promise<{ last: HttpResult; statuses: number[] }> {
  const statuses: number[] = [];
  for (;;) {
    const last = await send();
    statuses.push(last.status);
    if (until(last)) return { last, statuses };
    if (Date.now() > deadline)
      throw new Error(`not reached by the deadline; statuses seen in order: ${runs(statuses)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `429×40, 200×1`: a poll's statuses, run by run. */
function runs(statuses: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < statuses.length;) {
    let j = i;
    while (j < statuses.length && statuses[j] === statuses[i]) j++;
    out.push(`${statuses[i]}×${j - i}`);
    i = j;
  }
  return out.join(', ');
}

/** Statuses of the form 429…429 200 (any number of 429s, maybe none): still held, then given back. */
function expectHeldThenFreed(statuses: number[]): void {
  expect(statuses.at(-1)).toBe(200);
  expect(statuses.slice(0, -1).filter((x) => x !== 429)).toEqual([]);
}

function expect408(text: string): void {
  expect(text).toMatch(/^HTTP\/1\.1 408 /);
  expect(text).toMatch(/\r\nConnection: close\r\n/i);
  const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
  expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'request_timeout' });
}

describe('a stalled request gives its in-flight slot back with its 408, whatever the client does next', () => {
  it("keyed: two clients that never read nor close hold the key's 2 slots until their 408, then the key gets 200", async () => {
    const s = await server();
    const start = Date.now();
    const stalled = [keyedHalfBody(s, false), keyedHalfBody(s, false)];
    const listSessions = () => s.request('GET', '/sessions');
    // held: the key has no slot left while the bodies are missing
    const held = await pollUntil(listSessions, (r) => r.status === 429, start + TIMEOUTS.requestMs + GRACE_MS);
    expectError(held.last, 429, 'invalid_request_error', 'concurrency_limit_exceeded');
    // once the 408 deadline has passed, the slots come back although neither client has read or closed anything
    const freed = await pollUntil(listSessions, (r) => r.status !== 429, start + TIMEOUTS.requestMs + GRACE_MS);
    expectHeldThenFreed(freed.statuses);
    expect(Date.now() - start).toBeGreaterThanOrEqual(TIMEOUTS.requestMs - 100); // not before the deadline
    expect(freed.last.body.total_count).toBe(0); // nothing of the stalled requests was written
    // each client, once it reads, finds exactly its 408, then the end of a connection the server closed
    for (const x of stalled) {
      x.socket.resume();
      expect408(await x.ended);
      expect(x.received().match(/HTTP\/1\.1 /g)).toHaveLength(1);
    }
  }, 60_000);

  it("keyless: two stalled hosted-page actions hold the address's 2 slots until their 408, then /openapi.json gets 200 (/health all along)", async () => {
    const s = await server();
    const start = Date.now();
    keylessHalfBody(s, false);
    keylessHalfBody(s, false);
    const openapi = () => s.request('GET', '/openapi.json', { key: null });
    const held = await pollUntil(openapi, (r) => r.status === 429, start + TIMEOUTS.requestMs + GRACE_MS);
    expectError(held.last, 429, 'invalid_request_error', 'concurrency_limit_exceeded');
    // the health check is never limited, even while the address's slots are held
    expect((await s.request('GET', '/health', { key: null })).status).toBe(200);
    const freed = await pollUntil(openapi, (r) => r.status !== 429, start + TIMEOUTS.requestMs + GRACE_MS);
    expectHeldThenFreed(freed.statuses);
  }, 60_000);

  it('half-open: clients that read their 408 and never close their side do not keep the slots', async () => {
    const s = await server();
    const start = Date.now();
    const stalled = [keyedHalfBody(s, true), keyedHalfBody(s, true)];
    const listSessions = () => s.request('GET', '/sessions');
    const held = await pollUntil(listSessions, (r) => r.status === 429, start + TIMEOUTS.requestMs + GRACE_MS);
    expectError(held.last, 429, 'invalid_request_error', 'concurrency_limit_exceeded');
    for (const x of stalled) expect408(await x.ended); // the 408 and the server's FIN arrived; the client stays open
    expect(stalled.map((x) => x.socket.writable)).toEqual([true, true]);
    const freed = await pollUntil(listSessions, (r) => r.status !== 429, Date.now() + GRACE_MS);
    expectHeldThenFreed(freed.statuses);
  }, 60_000);

  it('a body Node cannot parse (broken chunk framing) after admitted headers: its 400 gives the slot back too', async () => {
    const s = await server({ headersMs: 60_000, requestMs: 60_000 }); // no 408 can come first
    const start = Date.now();
    const head = `POST {prefix}/create-session HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer ${s.apiKey}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked`;
    const stalled = [stall(s, head, '', false), stall(s, head, '', false)];
    const listSessions = () => s.request('GET', '/sessions');
    const held = await pollUntil(listSessions, (r) => r.status === 429, start + TIMEOUTS.requestMs + GRACE_MS);
    expectError(held.last, 429, 'invalid_request_error', 'concurrency_limit_exceeded');
    for (const x of stalled) x.socket.write('zz\r\n{}\r\n'); // not a chunk size: 400 malformed_request
    const freed = await pollUntil(listSessions, (r) => r.status !== 429, Date.now() + GRACE_MS);
    expectHeldThenFreed(freed.statuses);
    for (const x of stalled) {
      x.socket.resume();
      const text = await x.ended;
      expect(text).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).error).toMatchObject({ code: 'malformed_request' });
    }
  }, 60_000);
});
