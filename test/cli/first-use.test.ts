// What a new user runs into first, tried as one would, with the real binary against a real server: blank keys and
// URLs, the live-key guard on the write itself, errors for unreachable remote hosts, the LIVE label, tables that fit
// a terminal (COLUMNS included) without cutting an id, flag and argument errors in the CLI's own words, a command
// typed without its topic, and an event past its retention.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { against, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { hasPty, runPty } from '../ledger/pty.js';
import { startReceiver, until, type Receiver } from '../webhooks/receiver.js';

const LIVE = 'sk_live_' + 'N'.repeat(28) + 'WXYZ';

let s: TestServer;
let receiver: Receiver;
/**
 * A loopback stand-in for a live service: it records each request (method and path) and passes it on to the test
 * server with the live key swapped for the server's test key (the server refuses live keys).
 */
let proxy: Server;
let proxyUrl: string;
const seen: string[] = [];
beforeAll(async () => {
  [s, receiver] = await Promise.all([startTestServer(), startReceiver()]);
  proxy = createServer((req, res) => void relay(req, res));
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}/functions/v1`;
});
afterAll(async () => {
  await Promise.all([s?.close(), receiver?.close(), new Promise((r) => (proxy ? proxy.close(r) : r(undefined)))]);
});

async function relay(req: IncomingMessage, res: ServerResponse): Promise<void> {
  seen.push(`${req.method} ${req.url}`);
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
  if (headers.authorization === `Bearer ${LIVE}`) headers.authorization = `Bearer ${s.apiKey}`;
  const upstream = await fetch(new URL(s.baseUrl).origin + req.url, {
    method: req.method,
    headers,
    body: chunks.length ? Buffer.concat(chunks) : undefined,
  });
  res
    .writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' })
    .end(Buffer.from(await upstream.arrayBuffer()));
}

/** A home whose active profile holds a live key for the proxy (made active with `profiles use`, as a user would). */
async function liveHome(): Promise<string> {
  const home = tempDir();
  expect((await runCli(['profiles', 'add', 'prod', '--api-key', LIVE, '--base-url', proxyUrl], { home })).code).toBe(0);
  expect((await runCli(['profiles', 'use', 'prod'], { home })).code).toBe(0);
  return home;
}

describe('a blank key, URL or profile is a usage error, never "no key configured"', () => {
  it('from a flag or the environment: exit 2 naming it, nothing sent, no local server used', async () => {
    const home = await liveHome();
    const before = seen.length;
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['--api-key', ''], {}, /--api-key is blank/],
      [['--api-key', '  '], {}, /--api-key is blank/],
      [['--base-url', ''], {}, /--base-url is blank/],
      [['--profile', ''], {}, /--profile is blank/],
      [[], { PAYORCH_API_KEY: '' }, /PAYORCH_API_KEY is set but blank/],
      [[], { PAYORCH_BASE_URL: ' ' }, /PAYORCH_BASE_URL is set but blank/],
      [[], { PAYORCH_PROFILE: '' }, /PAYORCH_PROFILE is set but blank/],
    ];
    const runs = await Promise.all(
      cases.map(([flags, env]) =>
        runCli(['sessions', 'list', ...flags, '--json'], { home, env: { PAYORCH_DAEMON: '0', ...env } }),
      ),
    );
    runs.forEach((r, i) => {
      const [, , message] = cases[i]!;
      expect(r.code, `${cases[i]![0].join(' ')} ${JSON.stringify(cases[i]![1])}: ${r.stderr}`).toBe(2);
      expect(r.json().error).toMatchObject({ code: 'usage_error', message: expect.stringMatching(message) });
      expect(r.stderr).not.toContain('no API key configured');
    });
    expect(seen.length).toBe(before);
  });
});

describe('the live-key guard covers the write itself', () => {
  it('`ledger unfreeze` with a live key asks even when the account is not frozen: refused without a terminal, sent with --yes', async () => {
    const acct = await s.request('POST', '/ledger-accounts', {
      body: { name: 'Wallet', account_type: 'liability', currency: 'usd' },
    });
    expect(acct.status, acct.text).toBe(201);
    const id = acct.body.id as string;
    const home = await liveHome();
    const posts = () => seen.filter((l) => l.startsWith('POST ') && l.includes(`/${id}/unfreeze`));
    const refused = await runCli(['ledger', 'unfreeze', id], { home });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect(refused.stderr).toContain('LIVE');
    expect(posts()).toEqual([]);
    const json = await runCli(['ledger', 'unfreeze', id, '--json'], { home });
    expect(json.code).toBe(2);
    expect(posts()).toEqual([]);
    // With --yes the request goes out; the account is active, so the server answers 409.
    const sent = await runCli(['ledger', 'unfreeze', id, '--yes'], { home });
    expect(sent.code).toBe(1);
    expect(sent.stderr).toContain('ledger_account_unexpected_state');
    expect(posts()).toHaveLength(1);
  });
});

describe.skipIf(!hasPty)('on a terminal', () => {
  it('a live `ledger unfreeze` of an active account asks for the id first; a wrong answer sends nothing', async () => {
    const acct = await s.request('POST', '/ledger-accounts', {
      body: { name: 'Wallet', account_type: 'liability', currency: 'usd' },
    });
    const id = acct.body.id as string;
    const home = await liveHome();
    const p = runPty(['ledger', 'unfreeze', id], { home });
    const screen = await p.waitFor(`Type ${id} to confirm`);
    expect(screen).toContain(`LIVE unfreeze ledger account ${id}`);
    expect(screen).toMatch(/status\s+active/);
    p.type('y\r');
    const { code, output } = await p.done;
    expect(code, output).toBe(2);
    expect(output).toContain('Aborted; nothing was changed.');
    expect(seen.filter((l) => l.startsWith('POST ') && l.includes(`/${id}/unfreeze`))).toEqual([]);
  });

  it('the amount prompt answers 19.99 with the words --amount uses', async () => {
    const p = runPty(['sessions', 'create', '--currency', 'usd', ...against(s)]);
    await p.waitFor('Amount in minor units (1999 for 19.99)');
    p.type('19.99\r');
    await p.waitFor('a whole number of minor units (1999 for 19.99), 1 or more');
    p.type('\x03');
    expect((await p.done).code).toBe(130);
  });
});

describe('a connection error says what failed and what to check', () => {
  // The binary resolves `api.payorch.example` to loopback (a preloaded dns.lookup, nothing else changed): a remote
  // host as the CLI sees it, refused on a closed port, without leaving this machine.
  const preload = `import dns from 'node:dns'; const lookup = dns.lookup; dns.lookup = (h, o, cb) => lookup(h === 'api.payorch.example' ? '127.0.0.1' : h, o, cb);`;
  const env = { NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(preload)}` };

  it('a remote host: the host and the error, and a hint at the base URL, not at `payorch server start`', async () => {
    const r = await runCli(
      ['sessions', 'list', '--base-url', 'http://api.payorch.example:1/functions/v1', '--api-key', 'sk_test_x'],
      { env },
    );
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('cannot reach http://api.payorch.example:1/functions/v1 (ECONNREFUSED)');
    expect(r.stderr).toContain('Is api.payorch.example the right host');
    expect(r.stderr).toContain('PAYORCH_BASE_URL');
    expect(r.stderr).not.toContain('payorch server start');
  });

  it('the local server: the hint to start it stays', async () => {
    const r = await runCli(['sessions', 'list', '--base-url', 'http://127.0.0.1:1/functions/v1', '--api-key', 'sk_x']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('Is the server running? (`payorch server start`)');
  });
});

describe('`profiles use` labels a live profile', () => {
  it('LIVE and the masked key, as `profiles add` shows them; --json says live', async () => {
    const home = tempDir();
    await runCli(['profiles', 'add', 'prod', '--api-key', LIVE, '--base-url', proxyUrl], { home });
    await runCli(['profiles', 'add', 'local', '--api-key', s.apiKey, '--base-url', s.baseUrl], { home });
    const live = await runCli(['profiles', 'use', 'prod'], { home });
    expect(live.code, live.stderr).toBe(0);
    expect(live.stdout).toMatch(/^Active profile: prod \(LIVE sk_live_…WXYZ\)\. .*LIVE key/);
    expect((await runCli(['profiles', 'use', 'prod', '--json'], { home })).json()).toEqual({
      active: 'prod',
      live: true,
    });
    const test = await runCli(['profiles', 'use', 'local'], { home });
    expect(test.stdout).toBe(`Active profile: local (sk_test_…${s.apiKey.slice(-4)}).\n`);
  });
});

describe.skipIf(!hasPty)('deliveries on an 80-column terminal', () => {
  it('`events deliveries` and `webhooks deliveries` fit COLUMNS=80 (a terminal of no size) with every id whole', async () => {
    const we = await s.request('POST', '/webhook-endpoints', {
      body: { url: receiver.url, enabled_events: ['payment_session.created'] },
    });
    expect(we.status, we.text).toBe(201);
    const session = await s.request('POST', '/create-session', { body: { amount: 1999, currency: 'usd' } });
    const event = await until(async () => {
      const r = await s.request('GET', `/events?type=payment_session.created&limit=100`);
      return r.body.data.find((e: any) => e.data.object.id === session.body.id);
    }, 'the event');
    await until(async () => {
      const r = await s.request('GET', `/events/${event.id}/deliveries`);
      return r.body.data.length > 0 ? true : undefined;
    }, 'the delivery');
    const run = async (args: string[]) => {
      const p = runPty([...args, ...against(s)], { env: { COLUMNS: '80' } });
      const { code, output } = await p.done;
      expect(code, output).toBe(0);
      return output.split(/\r?\n/).filter((l) => l.trim());
    };
    const byEvent = await run(['events', 'deliveries', event.id]);
    expect(byEvent[0]).toMatch(/^ENDPOINT\s+STATUS\s+ATTEMPTS/);
    expect(byEvent.find((l) => l.startsWith(we.body.id))).toBeDefined();
    const byEndpoint = await run(['webhooks', 'deliveries', we.body.id]);
    expect(byEndpoint[0]).toMatch(/^EVENT\s+TYPE\s+STATUS/);
    expect(byEndpoint.find((l) => l.startsWith(`${event.id} `))).toBeDefined();
    for (const row of [...byEvent, ...byEndpoint]) expect([...row].length, row).toBeLessThanOrEqual(80);
  });
});

describe("flag and argument errors in the CLI's own words", () => {
  it('an amount of 19.99 says minor units, as the prompt does; other bad values name the flag; no oclif `›` lines', async () => {
    const [decimal, zero, limit, choice, exclusive] = await Promise.all([
      runCli(['sessions', 'create', '--amount', '19.99', '--currency', 'usd', ...against(s)]),
      runCli(['payments', 'refund', 'x', '--amount', '0', '--json', ...against(s)]),
      runCli(['sessions', 'list', '--limit', 'abc', ...against(s)]),
      runCli(['sessions', 'list', '--status', 'bogus', ...against(s)]),
      runCli(['coupons', 'create', '--percent-off', '5', '--amount-off', '5', ...against(s)]),
    ]);
    expect([decimal.code, decimal.stderr]).toEqual([
      2,
      'Error: --amount takes a whole number of minor units (1999 for 19.99), 1 or more; got "19.99".\n',
    ]);
    expect(zero.code).toBe(2);
    expect(zero.json().error).toEqual({
      type: 'invalid_request_error',
      code: 'usage_error',
      message: '--amount takes a whole number of minor units (1999 for 19.99), 1 or more; got "0".',
    });
    expect(limit.stderr).toBe(
      'Error: --limit takes a whole number; got "abc". `payorch sessions list --help` shows its usage.\n',
    );
    expect(choice.stderr).toMatch(/^Error: --status takes one of .*succeeded.*; got "bogus"\./);
    expect(exclusive.stderr).toMatch(/^Error: --amount-off cannot also be provided when using --percent-off/);
    for (const r of [decimal, zero, limit, choice, exclusive]) {
      expect(r.code).toBe(2);
      expect(r.stderr).not.toMatch(/›|See more help|USAGE/);
    }
  });

  it('arguments a command does not take are named (exit 2), not an unknown command', async () => {
    const [none, several, one] = await Promise.all([
      runCli(['ledger', 'list', 'extra-arg']),
      runCli(['ledger', 'list', 'extra-arg', 'more', '--json']),
      runCli(['sessions', 'get', 'a', 'b']),
    ]);
    expect([none.code, none.stderr]).toEqual([
      2,
      'Error: `payorch ledger list` takes no arguments; got `extra-arg`. `payorch ledger list --help` shows its usage.\n',
    ]);
    expect(several.code).toBe(2);
    expect(several.json().error).toMatchObject({
      code: 'usage_error',
      message: expect.stringContaining('takes no arguments; got `extra-arg` and `more`.'),
    });
    expect([one.code, one.stderr]).toEqual([
      2,
      'Error: `payorch sessions get` takes one argument, ID; also got `b`. `payorch sessions get --help` shows its usage.\n',
    ]);
  });

  it('a command typed without its topic is found: `unfreeze` → `ledger unfreeze`; `capture` names both', async () => {
    const [unfreeze, typo, capture] = await Promise.all([
      runCli(['unfreeze', 'la_1']),
      runCli(['unfreez']),
      runCli(['capture']),
    ]);
    for (const r of [unfreeze, typo, capture]) expect(r.code).toBe(2);
    expect(unfreeze.stderr).toContain('Did you mean `payorch ledger unfreeze`?');
    expect(typo.stderr).toContain('Did you mean `payorch ledger unfreeze`?');
    expect(capture.stderr).toContain('Did you mean `payorch ledger holds capture` or `payorch payments capture`?');
  });
});

describe('an event past its retention', () => {
  it('`events resend` and `events get` name the 30-day retention; --json keeps the API body', async () => {
    const s2 = await startTestServer({ memory: true });
    try {
      await s2.request('POST', '/create-session', { body: { amount: 100, currency: 'usd' } });
      const old = (await s2.request('GET', '/events?limit=1')).body.data[0].id as string;
      const adv = await s2.request('POST', '/test-helpers/advance-clock', { body: { seconds: 31 * 86_400 } });
      expect(adv.status, adv.text).toBe(200);
      await until(
        async () => ((await s2.request('GET', `/events/${old}`)).status === 404 ? true : undefined),
        'retention',
      );
      const [resend, get, json] = await Promise.all([
        runCli(['events', 'resend', old, '--yes', ...against(s2)]),
        runCli(['events', 'get', old, ...against(s2)]),
        runCli(['events', 'get', old, '--json', ...against(s2)]),
      ]);
      for (const r of [resend, get]) {
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr).toContain(`No such event: '${old}'`);
        expect(r.stderr).toContain(
          "Events are kept 30 days (on the account's clock); an older one is no longer there.",
        );
      }
      expect(json.code).toBe(1);
      expect(json.json().error).toMatchObject({ code: 'resource_missing', param: 'event_id' });
      expect(json.json().error.message).not.toContain('30 days');
    } finally {
      await s2.close();
    }
  });
});
