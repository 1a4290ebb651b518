// The in-process server of a command (openInProcess, the CLI's default with no key and no server running)
// registers routes as the command's requests ask for them: every answer must be the one the app with every route
// gives — the route's own, 404 route_not_found, 405 with what is allowed — whatever paths come, in any order.
import FindMyWay from 'find-my-way';
import { describe, expect, it } from 'vitest';
import { Client, InProcessTransport, openEmbedded } from '../../dist/index.js';
import { appUrls, mayMatch } from '../../dist/lib/server/app.js';
import { openInProcess } from '../../dist/lib/server/embedded.js';
import { tempDir } from '../helpers/tmp.js';

describe('routes registered as asked for', { timeout: 120_000 }, () => {
  it('mayMatch is never false where the router (fastify’s options) finds the route', () => {
    const urls = appUrls();
    expect(urls.length).toBeGreaterThan(100);
    const router = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 2048 });
    urls.forEach((u, i) => router.on('GET', u, () => undefined, { i }));
    let checked = 0;
    for (const url of urls) {
      const filled = url.replace(/:[a-z_]+/g, 'obj_1%2Fx');
      const variants = [
        filled,
        `${filled}/`,
        filled.replace(/\//g, '//'),
        `${filled}?limit=3&x=/a/b`,
        filled.replace(/s/, '%73'),
      ];
      for (const path of variants) {
        const found = router.find('GET', path.split('?')[0]!);
        if (!found) continue;
        checked++;
        expect(mayMatch(urls[(found.store as { i: number }).i]!, path), `${url} for ${path}`).toBe(true);
      }
    }
    expect(checked).toBeGreaterThan(urls.length * 3);
    expect(mayMatch('/functions/v1/sessions/:id', '/functions/v1/sessions')).toBe(false);
    expect(mayMatch('/functions/v1/sessions', '/functions/v1/customers')).toBe(false);
  });

  it('answers as the app with every route does, path after path, including 404, 405 and a route asked for again', async () => {
    const dir = tempDir();
    const full = await openEmbedded(dir);
    const asFull = new Client({ apiKey: full.apiKey, transport: new InProcessTransport(full.app) });
    const created = await asFull.sessions.create({ amount: 1234, currency: 'usd' });
    const requests: [string, string, object?][] = [
      ['GET', `/sessions/${created.id}`],
      ['DELETE', '/sessions'],
      ['GET', '/sesions'],
      ['GET', '//sessions/'],
      ['POST', '/customers', { email: 'a@b.co' }],
      ['GET', `/sessions/${created.id}`],
      ['GET', '/customers?limit=1'],
      ['PATCH', `/sessions/${created.id}`, { description: 'x' }],
      ['GET', '/health'],
    ];
    const answers = async (client: Client) => {
      const out = [];
      for (const [method, path, body] of requests) {
        const r = await client.raw(method, path, body ? { body, idempotencyKey: `k-${method}-${path}` } : {});
        const b = r.body as {
          error?: { code?: string; message?: string };
          object?: string;
          id?: string;
          data?: unknown[];
        };
        out.push({
          status: r.status,
          allow: r.headers.allow,
          error: b.error && { code: b.error.code, message: b.error.message },
          object: b.object,
        });
      }
      return out;
    };
    const expected = await answers(asFull);
    await full.close();

    const lazy = await openInProcess(dir);
    const client = new Client({ apiKey: lazy.apiKey, transport: new InProcessTransport(lazy, () => lazy.close()) });
    try {
      expect(lazy.apiKey).toBe(full.apiKey);
      expect(await answers(client)).toEqual(expected);
      expect(expected.map((e) => e.status)).toEqual([200, 405, 404, 200, 201, 200, 200, 200, 200]);
    } finally {
      await client.close();
    }
  });

  it('requests sent at once get their answers (the app is built again for a new path, one build at a time)', async () => {
    const lazy = await openInProcess(tempDir());
    const client = new Client({ apiKey: lazy.apiKey, transport: new InProcessTransport(lazy, () => lazy.close()) });
    try {
      const rs = await Promise.all([
        client.raw('GET', '/sessions'),
        client.raw('GET', '/customers'),
        client.raw('GET', '/events'),
        client.raw('GET', '/sessions'),
      ]);
      expect(rs.map((r) => [r.status, (r.body as { object: string }).object])).toEqual([
        [200, 'list'],
        [200, 'list'],
        [200, 'list'],
        [200, 'list'],
      ]);
    } finally {
      await client.close();
    }
  });
});
