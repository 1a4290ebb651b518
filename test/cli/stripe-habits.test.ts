// What a Stripe CLI user types, through the real binary against a real server (issue 45, item 3): `-d` of a GET or
// DELETE is its query string, `get|post|delete PATH` and `fixtures FILE` point at payorch's own words for them
// (`api METHOD PATH`, `fixtures run FILE`), and `listen -f` is `--forward-to`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { against, runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';
import { eventually, receiver, spawnCli } from '../cli-events/util.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
  for (const name of ['Basic', 'Pro', 'Team'])
    expect((await s.request('POST', '/products', { body: { name } })).status).toBe(201);
});
afterAll(() => s?.close());

const cli = (args: string[], opts: Parameters<typeof runCli>[1] = {}) => runCli([...args, ...against(s)], opts);

describe('payorch api: -d of a GET or DELETE is the query string, as the Stripe CLI sends it', () => {
  it('`api get /products -d limit=1` answers one product; the pairs join a query already in the path', async () => {
    const [one, joined] = await Promise.all([
      cli(['api', 'get', '/products', '-d', 'limit=1', '--json']),
      cli(['api', 'GET', '/products?limit=2', '-d', 'active=true', '-d', 'expand[]=prices', '--json']),
    ]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.json()).toMatchObject({ object: 'list', has_more: true, total_count: 3 });
    expect(one.json().data).toHaveLength(1);
    expect(joined.code, joined.stderr).toBe(0);
    expect(joined.json().data).toHaveLength(2);
    expect(joined.json().data[0].prices).toEqual([]); // expand[]=prices reached the server
  });

  it('a DELETE sends them as its query too (the server names the unknown one); JSON on a GET is exit 2', async () => {
    const product = (await s.request('POST', '/products', { body: { name: 'Gone' } })).body as { id: string };
    const [del, json] = await Promise.all([
      cli(['api', 'delete', `/products/${product.id}`, '-d', 'bogus=1', '--yes', '--json']),
      cli(['api', 'get', '/products', '-d', '{"limit":1}', '--json']),
    ]);
    expect(del.code).toBe(1);
    expect(del.json().error).toMatchObject({ code: 'parameter_unknown', param: 'bogus' });
    expect((await s.request('GET', `/products/${product.id}`)).status).toBe(200);
    expect(json.code).toBe(2);
    expect(json.json().error.message).toMatch(/A GET request has no body: its -d takes key=value pairs/);
  });
});

describe('a Stripe CLI command is answered with the payorch one', () => {
  it('`get /products`, `post /v1/customers -d …`, `delete PATH`: `payorch api METHOD PATH`, the rest kept; exit 2', async () => {
    const [get, post, del] = await Promise.all([
      runCli(['get', '/products']),
      runCli(['post', '/v1/customers', '-d', 'email=a@example.com', '-d', 'name=Jenny Rosen']),
      runCli(['delete', '/customers/cus_1']),
    ]);
    for (const r of [get, post, del]) {
      expect(r.code).toBe(2);
      expect(r.stderr).not.toContain('ledger post');
    }
    expect(get.stderr).toContain('Did you mean `payorch api get /products`?');
    // Stripe's /v1 prefix is dropped: payorch's base URL ends in /functions/v1
    expect(post.stderr).toContain(
      "Did you mean `payorch api post /customers -d email=a@example.com -d 'name=Jenny Rosen'`?",
    );
    expect(del.stderr).toContain('Did you mean `payorch api delete /customers/cus_1`?');
    // and the suggestion works as printed
    const meant = await cli(['api', 'get', '/products', '--json']);
    expect(meant.json().object).toBe('list');
  });

  it('`fixtures seed.json` points at `fixtures run seed.json`; a typo of a fixtures command still gets that command', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'seed'), '{}');
    const [file, bare, typo] = await Promise.all([
      runCli(['fixtures', 'seed.json', '--fresh']),
      runCli(['fixtures', join(dir, 'seed')]), // an existing file without an extension
      runCli(['fixtures', 'lst']),
    ]);
    expect(file.code).toBe(2);
    expect(file.stderr).toContain('Did you mean `payorch fixtures run seed.json --fresh`?');
    expect(bare.stderr).toContain(`Did you mean \`payorch fixtures run ${join(dir, 'seed')}\`?`);
    expect(typo.stderr).toContain('Did you mean `payorch fixtures list`?');
  });
});

describe('payorch listen -f', () => {
  it('is --forward-to, as in the Stripe CLI: the events reach the target', async () => {
    const rx = await receiver();
    const listen = spawnCli(['listen', '-f', `127.0.0.1:${rx.port}/hooks`, ...against(s)]);
    try {
      await listen.waitFor('stderr', (t) => t.includes('Ready: listening'));
      const customer = (await s.request('POST', '/customers', { body: { email: 'f@example.com' } })).body as {
        id: string;
      };
      const got = await eventually(() => rx.received.find((r) => JSON.parse(r.body).data.object.id === customer.id));
      expect(got.headers['x-payorch-event-type']).toBe('customer.created');
    } finally {
      const end = await listen.stop('SIGINT');
      await rx.close();
      expect(end.code).toBe(0);
    }
  });
});
