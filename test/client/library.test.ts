// The embedded client as a library (`import { Client, startServer } from 'payorch'`): typed resources over
// HTTP and in-process, ApiError fields, retries that reuse one Idempotency-Key (429 with Retry-After, 5xx,
// dropped connections), timeouts (issue 2, Client).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, Client, ConnectionError, InProcessTransport, openEmbedded, TimeoutError } from '../../dist/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';
import { closedPort, CLIENT_SECRET } from '../helpers/util.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
});
afterAll(() => s?.close());

/**
 * A proxy in front of the test server that records each request's Idempotency-Key and lets a test decide,
 * per attempt, to fault (status + headers, or drop the connection, or never answer) or pass it through.
 */
async function faultyProxy(
  faults: ('pass' | 'lose' | 'drop' | 'hang' | { status: number; headers?: Record<string, string> })[],
) {
  const seen: { method: string; url: string; key: string | undefined }[] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    seen.push({ method: req.method!, url: req.url!, key: req.headers['idempotency-key'] as string | undefined });
    const fault = faults.shift() ?? 'pass';
    if (fault === 'drop') return req.socket.destroy();
    if (fault === 'hang') return void hanging.push(res);
    if (fault !== 'pass' && fault !== 'lose') {
      res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
      return res.end(
        JSON.stringify({
          error: {
            type: fault.status === 429 ? 'invalid_request_error' : 'api_error',
            code: 'injected',
            message: 'injected fault',
            request_id: 'req_injected',
          },
        }),
      );
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && k !== 'host' && k !== 'connection' && k !== 'content-length') headers[k] = v;
    const up = await fetch(new URL(s.baseUrl).origin + req.url!, {
      method: req.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const body = Buffer.from(await up.arrayBuffer());
    if (fault === 'lose') return req.socket.destroy(); // the server did the work; its answer is lost on the way
    const out: Record<string, string> = {};
    up.headers.forEach((v, k) => {
      if (k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection' && k !== 'keep-alive') out[k] = v;
    });
    res.writeHead(up.status, out);
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/functions/v1`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        for (const h of hanging) h.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const fastRetries = { retryBaseMs: 20, maxRetryDelayMs: 5_000 };

describe('Client over HTTP', () => {
  it('creates, retrieves, updates, lists and cancels sessions with typed results', async () => {
    const client = new Client({ apiKey: s.apiKey, baseUrl: s.baseUrl });
    try {
      const created = await client.sessions.create({
        amount: 1999,
        currency: 'usd',
        external_id: 'lib',
        metadata: { a: '1' },
      });
      expect(created).toMatchObject({
        object: 'payment_session',
        amount: 1999,
        currency: 'USD',
        status: 'requires_payment_method',
      });
      expect(created.client_secret).toMatch(CLIENT_SECRET); // the library gets the real secret; only the CLI masks
      expect(await client.sessions.retrieve(created.id)).toEqual(created);
      expect((await client.sessions.update(created.id, { metadata: { a: '', b: '2' } })).metadata).toEqual({ b: '2' });
      const list = await client.sessions.list({ external_id: 'lib' });
      expect(list).toMatchObject({ object: 'list', total_count: 1, data: [{ id: created.id }] });
      expect((await client.sessions.cancel(created.id)).status).toBe('canceled');
      const all: string[] = [];
      for await (const x of client.sessions.listAll({ limit: 1 })) all.push(x.id);
      expect(all).toContain(created.id);
      expect(new Set(all).size).toBe(all.length);
    } finally {
      await client.close();
    }
  });

  it('raises ApiError with status, type, code, param and request id', async () => {
    const client = new Client({ apiKey: s.apiKey, baseUrl: s.baseUrl });
    try {
      const err = await client.sessions.create({ amount: 1, currency: 'nope' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({
        status: 400,
        type: 'validation_error',
        code: 'parameter_invalid',
        param: 'currency',
        requestId: expect.stringMatching(/^req_/),
      });
      const missing = await client.sessions.retrieve('0190a8b0-0000-7000-8000-000000000000').catch((e: unknown) => e);
      expect(missing).toMatchObject({ status: 404, code: 'resource_missing' });
      const bad = new Client({ apiKey: 'sk_test_nope', baseUrl: s.baseUrl });
      expect(await bad.sessions.list().catch((e: unknown) => e)).toMatchObject({
        status: 401,
        type: 'authentication_error',
        code: 'invalid_api_key',
      });
      await bad.close();
    } finally {
      await client.close();
    }
  });
});

describe('Client retries', () => {
  it('retries 503, 429 (Retry-After) and a dropped connection with the same Idempotency-Key; one session results', async () => {
    const proxy = await faultyProxy([
      { status: 503 },
      { status: 429, headers: { 'retry-after': '1' } },
      'drop',
      'pass',
    ]);
    const client = new Client({ apiKey: s.apiKey, baseUrl: proxy.baseUrl, maxRetries: 3, ...fastRetries });
    try {
      const created = await client.sessions.create({ amount: 555, currency: 'usd', external_id: 'retried' });
      expect(created.amount).toBe(555);
      expect(proxy.seen).toHaveLength(4);
      const keys = new Set(proxy.seen.map((x) => x.key));
      expect(keys.size).toBe(1);
      expect([...keys][0]).toMatch(/\S{8,}/);
      expect((await s.request('GET', '/sessions?external_id=retried')).body.total_count).toBe(1);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it('a create whose answer was lost is retried with the same key and replayed by the server, not created twice', async () => {
    const proxy = await faultyProxy(['lose', 'pass']);
    const client = new Client({ apiKey: s.apiKey, baseUrl: proxy.baseUrl, maxRetries: 2, ...fastRetries });
    try {
      const ext = `lost-${Date.now()}`;
      const created = await client.sessions.create({ amount: 1, currency: 'usd', external_id: ext });
      expect(proxy.seen).toHaveLength(2);
      expect(proxy.seen[1]!.key).toBe(proxy.seen[0]!.key);
      const list = (await s.request('GET', `/sessions?external_id=${ext}`)).body;
      expect(list.total_count).toBe(1);
      expect(list.data[0].id).toBe(created.id);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it('gives up after maxRetries with the last error; GETs carry no Idempotency-Key; 400s are not retried', async () => {
    const proxy = await faultyProxy([{ status: 500 }, { status: 500 }, { status: 500 }]);
    const client = new Client({ apiKey: s.apiKey, baseUrl: proxy.baseUrl, maxRetries: 2, ...fastRetries });
    try {
      const err = await client.sessions.list().catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 500, code: 'injected' });
      expect(proxy.seen).toHaveLength(3);
      expect(proxy.seen.every((x) => x.key === undefined)).toBe(true);
      proxy.seen.length = 0;
      await client.sessions.create({ amount: 1, currency: 'zzz' }).catch(() => undefined);
      expect(proxy.seen).toHaveLength(1);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it('a server that never answers → TimeoutError; a closed port → ConnectionError', async () => {
    const proxy = await faultyProxy(['hang']);
    const client = new Client({ apiKey: s.apiKey, baseUrl: proxy.baseUrl, maxRetries: 0, timeoutMs: 300 });
    const closed = new Client({
      apiKey: s.apiKey,
      baseUrl: `http://127.0.0.1:${await closedPort()}/functions/v1`,
      maxRetries: 1,
      ...fastRetries,
    });
    try {
      expect(await client.sessions.list().catch((e: unknown) => e)).toBeInstanceOf(TimeoutError);
      const err = await closed.sessions.list().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConnectionError);
      expect(err).not.toBeInstanceOf(TimeoutError);
    } finally {
      await client.close();
      await closed.close();
      await proxy.close();
    }
  });
});

describe('Client in-process (the CLI’s embedded default)', () => {
  it('goes through the same pipeline: auth, validation, idempotency and error bodies', async () => {
    const embedded = await openEmbedded(tempDir());
    const client = new Client({
      apiKey: embedded.apiKey,
      transport: new InProcessTransport(embedded.app, () => embedded.close()),
    });
    try {
      const created = await client.sessions.create({ amount: 10, currency: 'eur' }, { idempotencyKey: 'same' });
      expect(await client.sessions.create({ amount: 10, currency: 'eur' }, { idempotencyKey: 'same' })).toEqual(
        created,
      );
      expect(
        await client.sessions
          .create({ amount: 11, currency: 'eur' }, { idempotencyKey: 'same' })
          .catch((e: unknown) => e),
      ).toMatchObject({
        status: 400,
        code: 'idempotency_key_reused',
      });
      const raw = await client.raw('POST', '/create-session', { body: { amount: 1, currency: 'usd', extra: 1 } });
      expect(raw.status).toBe(400);
      expect(raw.body).toMatchObject({
        error: { code: 'parameter_unknown', param: 'extra', request_id: raw.headers['request-id'] },
      });
      const anon = await client.raw('GET', '/sessions', { bearer: 'sk_live_x' });
      expect(anon).toMatchObject({ status: 401, body: { error: { code: 'livemode_unavailable' } } });
      expect(raw.headers['x-ratelimit-limit']).toBe('1000');
    } finally {
      await client.close();
    }
  });
});

describe('the package', () => {
  it('is importable by name: `import { Client, startServer } from "payorch"` works in plain Node', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const script = `
      import { Client, startServer, ApiError } from 'payorch';
      const s = await startServer({ port: 0, memory: true });
      const c = new Client({ apiKey: s.apiKey, baseUrl: s.baseUrl });
      const made = await c.sessions.create({ amount: 42, currency: 'usd' });
      const err = await c.sessions.retrieve('nope').catch((e) => e);
      console.log(JSON.stringify({ amount: made.amount, api: err instanceof ApiError, code: err.code }));
      await c.close();
      await s.close();`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ amount: 42, api: true, code: 'resource_missing' });
  });

  it('ships the oclif manifest with every foundation command', () => {
    const manifest = JSON.parse(
      readFileSync(fileURLToPath(new URL('../../oclif.manifest.json', import.meta.url)), 'utf8'),
    );
    const names = Object.keys(manifest.commands);
    for (const c of [
      'api',
      'profiles:add',
      'profiles:list',
      'profiles:remove',
      'profiles:show',
      'profiles:use',
      'server:keys:create',
      'server:keys:list',
      'server:keys:revoke',
      'server:logs',
      'server:reset',
      'server:start',
      'server:status',
      'server:stop',
      'sessions:cancel',
      'sessions:create',
      'sessions:get',
      'sessions:list',
      'sessions:update',
    ]) {
      expect(names).toContain(c);
    }
    const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8'));
    expect(pkg.files).toContain('oclif.manifest.json');
    expect(pkg.bin).toEqual({ payorch: 'bin/run.js' });
  });
});
