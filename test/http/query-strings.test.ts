// One rule for query strings (issue 30: `GET /sessions/{id}?foo=1` answered 200 while `/payments?foo=1` answered
// 400): a query key a route does not take is 400 `parameter_unknown` on every route — retrieve, create, update,
// delete and action routes alike, not only lists (docs/api.md "Errors"). Every route of allRoutes is sent a
// request that its own schemas accept (path params, body and query sampled from them), plus one unknown query key.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../../dist/lib/server/routes/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { valid, type Schema } from '../reliability/arbitrary.js';
import { expectError } from '../helpers/util.js';

let s: TestServer;
let session: { id: string; client_secret: string };
beforeAll(async () => {
  s = await startTestServer({ memory: true });
  session = (await s.request('POST', '/create-session', { body: { amount: 100, currency: 'usd' } })).body;
});
afterAll(() => s?.close());

/** One value a schema accepts, the same on every run. */
const sample = (schema: Schema | undefined): any =>
  schema ? fc.sample(valid(schema), { numRuns: 1, seed: 30 })[0] : undefined;

function query(q: Record<string, unknown>): string {
  const usp = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined) continue;
    for (const x of Array.isArray(v) ? v : [v])
      usp.append(k, typeof x === 'object' && x !== null ? JSON.stringify(x) : String(x));
  }
  return `?${usp}`;
}

describe('an unknown query key', () => {
  it('is 400 parameter_unknown on the routes named in the issue', async () => {
    const customer = (await s.request('POST', '/customers', { body: { email: 'q@example.com' } })).body;
    const account = (
      await s.request('POST', '/ledger-accounts', { body: { name: 'Cash', account_type: 'asset', currency: 'usd' } })
    ).body;
    for (const path of [
      `/sessions/${session.id}`,
      `/customers/${customer.id}`,
      `/ledger-accounts/${account.id}`,
      '/subscriptions/sub_missing',
      '/products/prod_missing',
      '/payments',
    ]) {
      expectError(await s.request('GET', `${path}?foo=1`), 400, 'validation_error', 'parameter_unknown', 'foo');
    }
    expectError(
      await s.request('POST', '/create-session?foo=1', { body: { amount: 100, currency: 'usd' } }),
      400,
      'validation_error',
      'parameter_unknown',
      'foo',
    );
    expect((await s.request('GET', '/sessions?limit=1')).body.data).toHaveLength(1); // nothing was created
  });

  it('is 400 parameter_unknown on every route, before anything runs', async () => {
    const wrong: string[] = [];
    for (const route of allRoutes) {
      const secretOnly = route.auth === 'client_secret';
      const params: Record<string, unknown> = { ...sample(route.params as Schema | undefined) };
      if ('session_id' in params) params.session_id = session.id;
      const path = route.url.replace(/:([a-z_]+)/g, (_, name: string) => encodeURIComponent(String(params[name])));
      const body = route.body ? sample(route.body as Schema) : undefined;
      const q = { ...sample(route.query as Schema | undefined), zz_unknown: '1' };
      const res = await s.request(route.method, path + query(q), {
        body,
        key: route.auth === 'none' ? null : secretOnly ? session.client_secret : undefined,
      });
      if (
        res.status !== 400 ||
        res.body?.error?.code !== 'parameter_unknown' ||
        res.body.error.param !== 'zz_unknown'
      ) {
        wrong.push(`${route.method} ${route.url}: ${res.status} ${res.body?.error?.code ?? ''}`);
      }
    }
    expect(wrong).toEqual([]);
    // The session is as it was: no route ran.
    expect((await s.request('GET', `/sessions/${session.id}`)).body.status).toBe('requires_payment_method');
  });
});
