// A real webhook receiver on loopback (node:http, port 0) for the webhook tests: it records every request (raw body,
// headers) and answers as told — a status, or never (a hanging receiver, whose open requests the test can inspect).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  url: string;
  /** The request's response, still open when the receiver hangs. */
  res: ServerResponse;
  /** Whether the client (the server's dispatcher) has closed the connection. */
  closed: boolean;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** How the next requests are answered: a status, or 'hang' (no answer at all); or a function of the request. */
  answer: Answer;
  /** Resolves once `n` requests in total have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  /** The requests' event ids, in arrival order. */
  eventIds(): string[];
  close(): Promise<void>;
}

type Answer = number | 'hang' | ((r: Received) => number | 'hang');

export async function startReceiver(answer: Answer = 200): Promise<Receiver> {
  const received: Received[] = [];
  let waiters: (() => void)[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        url: req.url ?? '',
        res,
        closed: false,
      };
      res.on('close', () => (r.closed = true));
      received.push(r);
      const w = waiters;
      waiters = [];
      for (const f of w) f();
      const a = typeof rx.answer === 'function' ? rx.answer(r) : rx.answer;
      if (a !== 'hang') res.writeHead(a, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const rx: Receiver = {
    url: `http://127.0.0.1:${port}/webhooks`,
    port,
    received,
    answer,
    async waitFor(n, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > deadline)
          throw new Error(`receiver: ${received.length} of ${n} requests after ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, 200);
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
      return received.slice(0, n);
    },
    eventIds: () => received.map((r) => String(r.headers['x-payorch-event-id'])),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return rx;
}

/** Polls `check` until it returns something other than undefined (at most `timeoutMs`: a bound, not a measurement). */
export async function until<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
