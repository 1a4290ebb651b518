// `payorch logs tail` filters: method, request status, address, API key (by its id), request id, with the
// Stripe CLI's flag names as aliases — the real binary following a real server's log, each tail showing exactly
// the requests its filters pass; the server's GET /request-log checks them too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { against, runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { spawnCli } from './util.js';

let s: TestServer;
let key2: string;
let key1Id: string;
let key2Id: string;
beforeAll(async () => {
  s = await startTestServer();
  const accounts = s.server.services.accounts;
  const mine = (await accounts.listKeys()).find((k) => k.masked.endsWith(s.apiKey.slice(-4)))!;
  key1Id = mine.id;
  const made = await accounts.addKey(mine.account_id); // a second key of the same account
  key2 = made.api_key;
  key2Id = made.key.id;
});
afterAll(() => s.close());

const MISSING = '01a20000-0000-7000-8000-000000000000';
const entriesOf = (out: string) =>
  out
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('payorch logs tail filters', () => {
  it('each tail shows exactly what its filters pass; Stripe CLI names work; keys are named by id, never shown', async () => {
    const tails = {
      post: spawnCli(['logs', 'tail', '--filter-http-method', 'post', '--json', ...against(s)]),
      fourxx: spawnCli(['logs', 'tail', '--filter-status-code-type', '4XX', '--json', ...against(s)]),
      failedGets: spawnCli([
        'logs',
        'tail',
        '--filter-request-status',
        'FAILED',
        '--method',
        'GET',
        '--json',
        ...against(s),
      ]),
      key2Ok: spawnCli(['logs', 'tail', '--key-id', key2Id, '--request-status', 'succeeded', '--json', ...against(s)]),
      local: spawnCli([
        'logs',
        'tail',
        '--filter-ip-address',
        '10.1.2.3,127.0.0.1',
        '--filter-ip-address',
        '::1',
        '--filter-request-path',
        '/sessions',
        '--json',
        ...against(s),
      ]),
      elsewhere: spawnCli(['logs', 'tail', '--ip-address', '10.1.2.3', '--json', ...against(s)]),
    };
    const ids: Record<string, string> = {};
    try {
      await Promise.all(Object.values(tails).map((t) => t.waitFor('stderr', (x) => x.includes('Ready'))));
      const req = async (name: string, method: string, path: string, status: number, opts: any = {}) => {
        const r = await s.request(method, path, opts);
        expect(r.status, name).toBe(status);
        ids[name] = r.headers.get('request-id')!;
      };
      await req('r1', 'GET', '/sessions?limit=1', 200);
      await req('r2', 'POST', '/create-session', 400, { body: {} });
      await req('r3', 'GET', '/sessions?limit=1', 200, { key: key2 });
      await req('r4', 'GET', `/sessions/${MISSING}`, 404);
      await req('r5', 'POST', '/create-session', 201, { key: key2, body: { amount: 100, currency: 'usd' } });
      const shows = (t: (typeof tails)[keyof typeof tails], last: string) =>
        t.waitFor('stdout', (x) => x.includes(ids[last]!));
      await Promise.all([
        shows(tails.post, 'r5'),
        shows(tails.fourxx, 'r4'),
        shows(tails.failedGets, 'r4'),
        shows(tails.key2Ok, 'r5'),
        shows(tails.local, 'r4'),
      ]);
    } finally {
      for (const t of Object.values(tails)) expect(await t.stop('SIGINT')).toEqual({ code: 0, signal: null });
    }
    const seen = (t: (typeof tails)[keyof typeof tails]) =>
      entriesOf(t.stdout()).map((e) => Object.entries(ids).find(([, id]) => id === e.request_id)?.[0] ?? e.path);
    expect(seen(tails.post)).toEqual(['r2', 'r5']);
    expect(seen(tails.fourxx)).toEqual(['r2', 'r4']);
    expect(seen(tails.failedGets)).toEqual(['r4']);
    expect(seen(tails.key2Ok)).toEqual(['r3', 'r5']);
    expect(seen(tails.local)).toEqual(['r1', 'r3', 'r4']);
    expect(tails.elsewhere.stdout()).toBe('');
    expect(tails.elsewhere.stderr()).toContain('from 10.1.2.3');
    // entries name the key by its id and the client by its address; never the key itself
    const all = entriesOf(tails.local.stdout());
    expect(all.map((e) => e.api_key)).toEqual([key1Id, key2Id, key1Id]);
    for (const e of all) expect(e.ip_address).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
    const printed = Object.values(tails)
      .map((t) => t.stdout() + t.stderr())
      .join('');
    expect(printed).not.toContain(s.apiKey);
    expect(printed).not.toContain(key2);
  });

  it('GET /request-log takes the same filters; bad ones are 400 (server) or exit 2 (CLI) naming the flag', async () => {
    const made = await s.request('GET', '/sessions?limit=1');
    const id = made.headers.get('request-id')!;
    const one = await s.request('GET', `/request-log?request_id=${id}`);
    expect(one.body.data.map((e: any) => e.request_id)).toEqual([id]);
    expect((await s.request('GET', '/request-log?ip_address=10.9.9.9')).body.data).toEqual([]);
    const gets = (await s.request('GET', '/request-log?method=get,delete&status=2xx,404')).body.data;
    expect(gets.length).toBeGreaterThan(0);
    for (const e of gets)
      expect([e.method, e.status === 404 || (e.status >= 200 && e.status < 300)]).toEqual(['GET', true]);
    for (const q of ['request_status=maybe', 'method=G3T', 'status=2xx,', 'api_key=', 'request_id=']) {
      const r = await s.request('GET', `/request-log?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.type).toBe('validation_error');
    }
    for (const [args, flag] of [
      [['--request-status', 'maybe'], '--request-status'],
      [['--filter-http-method', 'G E T'], '--method'],
      [['--filter-status-code', '600'], '--status'],
      [['--key-id', ' '], '--key-id'],
    ] as const) {
      const r = await runCli(['logs', 'tail', ...args, ...against(s)]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(flag);
    }
  });
});
