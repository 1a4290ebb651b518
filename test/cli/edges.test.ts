// The CLI at its edges (issue 13): requests only to the configured origin, blank ids, terminal escapes,
// configuration problems, --timeout, exit codes and messages, the --json secret rule, help and suggestions,
// the contract's bodies — through the real binary against real servers, plus in-process sweeps through the
// commands' IO seam.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { against, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { cliConfig, runInProcess } from '../helpers/inprocess.js';
import { hasPty, runPty } from '../ledger/pty.js';
import { API_BASE_PATH } from '../../dist/lib/client/url.js';
import { API_PREFIX } from '../../dist/lib/contract/common.js';
import { KYC_TEST_VALUES } from '../../dist/lib/server/domain/identity/kyc.js';

interface Seen {
  method: string;
  url: string;
  host: string;
  auth?: string;
  body: string;
}

/** A listening HTTP server that records every request and answers 404 in the contract's error body. */
async function recorder(): Promise<{ server: Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    let body = '';
    for await (const c of req) body += c;
    seen.push({
      method: req.method!,
      url: req.url!,
      host: req.headers.host ?? '',
      auth: req.headers.authorization,
      body,
    });
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { type: 'invalid_request_error', code: 'route_not_found', message: 'recorder' } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, port: (server.address() as { port: number }).port, seen };
}

let s: TestServer;
let r1: Awaited<ReturnType<typeof recorder>>;
let r2: Awaited<ReturnType<typeof recorder>>;
beforeAll(async () => {
  [s, r1, r2] = await Promise.all([startTestServer({ memory: true }), recorder(), recorder()]);
});
afterAll(async () => {
  await s?.close();
  for (const r of [r1, r2]) await new Promise((done) => r?.server.close(done));
});

describe('requests go only to the configured origin (finding 1)', () => {
  it('the path of `payorch api` is appended to the base path: /127.0.0.1:PORT2/x never reaches PORT2', async () => {
    const key = 'sk_test_' + 'K'.repeat(32);
    for (const base of [
      `http://127.0.0.1:${r1.port}`,
      `http://127.0.0.1:${r1.port}/`,
      `http://127.0.0.1:${r1.port}/functions/v1`,
    ]) {
      for (const path of [`/127.0.0.1:${r2.port}/x`, `//127.0.0.1:${r2.port}/x`, `http://127.0.0.1:${r2.port}/x`]) {
        const r = await runCli(['api', 'GET', path, '--base-url', base, '--api-key', key]);
        expect(r.code, `${base} ${path}: ${r.stderr}`).toBe(1); // the recorder's 404
      }
    }
    expect(r2.seen).toEqual([]);
    const paths = [`/127.0.0.1:${r2.port}/x`, `//127.0.0.1:${r2.port}/x`, `/http://127.0.0.1:${r2.port}/x`];
    expect(r1.seen.map((x) => x.url)).toEqual([...paths, ...paths, ...paths.map((p) => `/functions/v1${p}`)]);
    expect(r1.seen.every((x) => x.host === `127.0.0.1:${r1.port}` && x.auth === `Bearer ${key}`)).toBe(true);
    r1.seen.length = 0;
  });

  it('a base URL without a path sends to its own host (not to a host named `sessions`), with a warning', async () => {
    const r = await runCli(['sessions', 'list', '--base-url', `http://127.0.0.1:${r1.port}`, '--api-key', 'sk_test_x']);
    expect(r.stderr).not.toMatch(/ENOTFOUND|EAI_AGAIN/);
    expect(r.stderr).toContain(`does not end in /functions/v1`);
    expect(r1.seen.map((x) => `${x.method} ${x.host}${x.url}`)).toEqual([`GET 127.0.0.1:${r1.port}/sessions`]);
    r1.seen.length = 0;
    // with the path: no warning
    const ok = await runCli(['sessions', 'list', ...against(s)]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).not.toContain('does not end in');
  });

  it('base URLs are validated: http or https with a host, no credentials or query (exit 2 from the flag, 3 from env)', async () => {
    for (const bad of [
      'ftp://127.0.0.1/functions/v1',
      'not a url',
      'http://user:pw@127.0.0.1:1/functions/v1',
      `http://127.0.0.1:${r1.port}/functions/v1?x=1`,
      'file:///etc/passwd',
    ]) {
      const r = await runCli(['sessions', 'list', '--base-url', bad, '--api-key', 'sk_test_x', '--json']);
      expect(r.code, `${bad}: ${r.stderr}`).toBe(2);
      expect(r.json().error.message).toMatch(/Invalid base URL/);
    }
    const env = await runCli(['sessions', 'list'], {
      env: { PAYORCH_BASE_URL: 'gopher://x', PAYORCH_API_KEY: 'sk_test_x' },
    });
    expect(env.code).toBe(3);
    expect(env.stderr).toContain('PAYORCH_BASE_URL');
    expect(r1.seen).toEqual([]);
    // profiles add uses the same rule
    const p = await runCli(['profiles', 'add', 'x', '--api-key', 'sk_test_abc', '--base-url', 'javascript:alert(1)']);
    expect(p.code).toBe(2);
    expect(API_BASE_PATH).toBe(API_PREFIX);
  });
});

describe('blank ids and blank required values exit 2 before any request (finding 2)', () => {
  it('the real binary: `sessions get ""` and `customers get " "` exit 2 with a usage error', async () => {
    for (const args of [
      ['sessions', 'get', ''],
      ['customers', 'get', ' '],
      ['payments', 'get', ''],
      ['ledger', 'get', '\t'],
    ]) {
      const r = await runCli([
        ...args,
        '--base-url',
        `http://127.0.0.1:${r1.port}/functions/v1`,
        '--api-key',
        'sk_test_x',
        '--json',
      ]);
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(2);
      expect(r.json().error).toMatchObject({ code: 'usage_error' });
    }
    expect(r1.seen).toEqual([]);
  });

  it('in process, every command with a required argument refuses a blank one without sending anything', async () => {
    const cfg = await cliConfig();
    const withArgs = cfg.commands.filter(
      (c) => Object.values(c.args ?? {}).some((a) => a.required) && !c.id.startsWith('server:'),
    );
    expect(withArgs.length).toBeGreaterThan(50);
    const failures: string[] = [];
    for (const c of withArgs) {
      const required = Object.values(c.args).filter((a) => a.required);
      const argv = [
        ...required.map(() => ''),
        '--base-url',
        `http://127.0.0.1:${r1.port}/functions/v1`,
        '--api-key',
        'sk_test_x',
      ];
      // required flags get a plausible value so that only the blank argument is wrong
      for (const [name, f] of Object.entries(c.flags))
        if (f.required) argv.push(`--${name}`, f.type === 'option' && f.options?.length ? f.options[0]! : '1');
      const r = await runInProcess(c.id.split(':').join(' '), argv);
      if (r.code !== 2 || r.requests.length !== 0)
        failures.push(`${c.id}: exit ${r.code}, ${r.requests.length} requests, ${r.stderr.trim()}`);
    }
    expect(failures).toEqual([]);
    expect(r1.seen).toEqual([]);
  });

  it('a blank required flag is refused too', async () => {
    const r = await runInProcess('bank-accounts verify', ['ba_1', '--amounts', ' ', ...against(s)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--amounts is blank');
    expect(r.requests).toEqual([]);
  });
});

describe('control characters are escaped in human views; --json stays exact (finding 3)', () => {
  it('a hostile customer name and description cannot drive the terminal', async () => {
    const name = 'Evil\x1b[2J\x1b]0;pwned\x07\u009b31m\u202e';
    const c = await s.request('POST', '/customers', {
      body: { name, email: 'evil@example.com', description: 'line\n\x1b[31mred' },
    });
    expect(c.status, c.text).toBe(201);
    const list = await runCli(['customers', 'list', ...against(s)]);
    const get = await runCli(['customers', 'get', c.body.id, ...against(s)]);
    for (const r of [list, get]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/);
      expect(r.stdout).toContain('Evil\\x1b[2J\\x1b]0;pwned\\x07\\x9b31m\\u202e');
    }
    expect(get.stdout).toContain('line\\n\\x1b[31mred');
    const json = await runCli(['customers', 'get', c.body.id, '--json', ...against(s)]);
    expect(json.json().name).toBe(name);
    expect(json.json().description).toBe('line\n\x1b[31mred');
    expect(json.stdout).not.toMatch(/[\x7f-\x9f\u202e]/); // written as \u escapes, parsed back exactly
  });

  it('error messages are escaped too', async () => {
    const r = await runCli(['sessions', 'get', 'x\x1b]0;pwned\x07', ...against(s)]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/[\x00-\x09\x0b-\x1f]/);
  });
});

describe('configuration problems exit 3 naming the file and the fix (finding 7)', () => {
  it('a truncated or binary config.json: exit 3 naming it; --api-key with --base-url does not read it', async () => {
    for (const content of ['{"active": "lo', Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x89])]) {
      const home = tempDir();
      writeFileSync(join(home, 'config.json'), content);
      const r = await runCli(['sessions', 'list', '--json'], { home });
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toContain(join(home, 'config.json'));
      expect(r.stderr).toMatch(/Fix or remove it/);
      expect(r.json().error.code).toBe('configuration_error');
      const ok = await runCli(['sessions', 'list', ...against(s)], { home });
      expect(ok.code, ok.stderr).toBe(0);
    }
  });

  it('PAYORCH_HOME under a file, a data directory that is a file: exit 3 naming the path', async () => {
    const r = await runCli(['sessions', 'list'], { home: '/dev/null/x' });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('/dev/null/x');
    expect(r.stderr).not.toMatch(/^\s+at /m);
    const d = await runCli(['server', 'start', '--data-dir', '/etc/passwd', '--port', '0']);
    expect(d.code, d.stderr).toBe(3);
    expect(d.stderr).toContain('/etc/passwd');
    expect(d.stderr).toMatch(/not a directory/);
  });

  it('an active profile that no longer exists is an error, not a silent switch to the embedded server', async () => {
    const home = tempDir();
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({ active: 'gone', profiles: { other: { api_key: 'sk_test_abc' } } }),
    );
    const r = await runCli(['sessions', 'list'], { home });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('"gone" does not exist');
    expect(r.stderr).not.toContain('embedded');
  });
});

describe('--timeout and PAYORCH_TIMEOUT (finding 8)', () => {
  let silent: TcpServer;
  const sockets = new Set<import('node:net').Socket>();
  let connections = 0;
  let url = '';
  beforeAll(async () => {
    silent = createTcpServer((sock) => {
      connections++;
      sockets.add(sock);
      sock.on('error', () => undefined); // accepts and never answers
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(silent.address() as { port: number }).port}/functions/v1`;
  });
  afterAll(() => {
    for (const sock of sockets) sock.destroy();
    return new Promise<void>((r) => silent.close(() => r()));
  });

  it('a server that never answers: one attempt within the budget, then exit 4 (no retries past it)', async () => {
    connections = 0;
    const r = await runCli(
      ['sessions', 'list', '--base-url', url, '--api-key', 'sk_test_x', '--timeout', '1', '--json'],
      { timeoutMs: 15_000 },
    );
    expect(r.code, r.stderr).toBe(4);
    expect(r.json().error.code).toBe('timeout');
    expect(r.stderr).toMatch(/within \d+ ms \(after 1 attempt\)/);
    expect(connections).toBe(1);
    const env = await runCli(['sessions', 'list', '--base-url', url, '--api-key', 'sk_test_x'], {
      env: { PAYORCH_TIMEOUT: '1500ms' },
      timeoutMs: 15_000,
    });
    expect(env.code).toBe(4);
    expect(env.stderr).toMatch(/within 1[45]\d\d ms/);
  });

  it('the default budget is 30 s in all; bad values are refused', async () => {
    const { commandTimeoutMs } = await import('../../dist/lib/cli/base.js');
    expect(commandTimeoutMs(undefined, {})).toBe(30_000);
    expect(commandTimeoutMs('2.5', {})).toBe(2500);
    expect(commandTimeoutMs(undefined, { PAYORCH_TIMEOUT: '7s' })).toBe(7000);
    const bad = await runCli(['sessions', 'list', '--timeout', 'soon', ...against(s)]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--timeout takes seconds');
    // The client gives each attempt what is left of one deadline: three attempts cannot take 3 × the budget.
    const { Client } = await import('../../dist/lib/client/client.js');
    connections = 0;
    const client = new Client({ baseUrl: url, apiKey: 'sk_test_x', timeoutMs: 400, deadlineMs: 400, retryBaseMs: 1 });
    await expect(client.sessions.list()).rejects.toMatchObject({ name: 'TimeoutError' });
    await client.close();
    expect(connections).toBe(1);
  });
});

describe('exit codes and messages (finding 9)', () => {
  it('a failed 3DS authentication exits 1; a successful one 0', async () => {
    const fail = (await s.request('POST', '/create-session', { body: { amount: 500, currency: 'usd' } })).body;
    const c = await runCli(['sessions', 'confirm', fail.id, '--token', 'tok_threeDSecureFail', ...against(s)]);
    expect(c.code, c.stderr).toBe(0);
    const r = await runCli(['threeds', 'complete', fail.id, ...against(s)]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/status\s+failed/);
    const ok = (await s.request('POST', '/create-session', { body: { amount: 500, currency: 'usd' } })).body;
    await runCli(['sessions', 'confirm', ok.id, '--token', 'tok_threeDSecureRequired', ...against(s)]);
    expect((await runCli(['threeds', 'complete', ok.id, ...against(s)])).code).toBe(0);
  });

  it('"try again later" exits 75 (a 503 or a 429 after the retries), apart from a bad id (1)', async () => {
    // A server whose answers to /customers/* say "not now": 503 to every attempt, or 429 asking for 30 s.
    const busy = await startTestServer({
      memory: true,
      faults: [
        { fault: 'status=503', method: 'GET', path: '/customers/*' },
        { fault: 'status=429;retry_after=30', method: 'DELETE', path: '/customers/*' },
      ],
    });
    try {
      const made = await runCli(['customers', 'create', '--email', 'later@example.test', '--json', ...against(busy)]);
      expect(made.code, made.stderr).toBe(0);
      const unavailable = await runCli(['customers', 'get', made.json().id, ...against(busy)]);
      expect(unavailable.code, unavailable.stderr).toBe(75);
      expect(unavailable.stderr).toMatch(/service_unavailable.*Try again later; exit 75\./);
      const json = await runCli(['customers', 'get', made.json().id, '--json', ...against(busy)]);
      expect(json.code).toBe(75);
      expect(json.json().error).toMatchObject({ type: 'api_error', code: 'service_unavailable' }); // the API's body
      const limited = await runCli([
        'customers',
        'delete',
        made.json().id,
        '--yes',
        '--timeout',
        '5',
        ...against(busy),
      ]);
      expect(limited.code, limited.stderr).toBe(75);
      expect(limited.stderr).toContain('Try again later (the server asks for 30 s); exit 75.');
      const missing = await runCli(['customers', 'update', 'cus_nonexistent', '--name', 'x', ...against(busy)]);
      expect(missing.code, missing.stderr).toBe(1);
      expect(missing.stderr).not.toContain('Try again later');
    } finally {
      await busy.close();
    }
  });

  it('a declined confirm names the payment in text mode', async () => {
    const sess = (await s.request('POST', '/create-session', { body: { amount: 500, currency: 'usd' } })).body;
    const r = await runCli(['sessions', 'confirm', sess.id, '--token', 'tok_chargeDeclined', ...against(s)]);
    expect(r.code).toBe(1);
    const payments = await s.request('GET', `/payments?session_id=${sess.id}`);
    const pid = payments.body.data?.[0]?.id as string | undefined;
    expect(r.stderr).toMatch(/payment [0-9a-f-]{36}/);
    if (pid) expect(r.stderr).toContain(`payment ${pid}`);
  });

  it('--json gives the real reason for not asking; "no" is exit 2; Ctrl-C is 130 (in process, prompts answered)', async () => {
    const live = 'sk_live_' + 'Z'.repeat(32);
    const args = [
      '--amount',
      '100',
      '--currency',
      'usd',
      '--base-url',
      `http://127.0.0.1:${r1.port}/functions/v1`,
      '--api-key',
      live,
    ];
    const json = await runInProcess('sessions create', [...args, '--json'], { tty: true });
    expect(json.code).toBe(2);
    expect(json.stdout).toContain('--json never asks');
    expect(json.stdout).not.toContain('no terminal');
    const no = await runInProcess('sessions create', args, { tty: true, answers: [false] });
    expect(no.code).toBe(2);
    expect(no.stderr).toContain('Aborted; nothing was changed.');
    expect(no.requests).toEqual([]);
    expect(r1.seen).toEqual([]);
  });
});

describe('exit codes on a terminal (finding 9)', () => {
  const live = 'sk_live_' + 'Q'.repeat(32);
  const args = () => [
    'sessions',
    'create',
    '--amount',
    '100',
    '--currency',
    'usd',
    '--base-url',
    `http://127.0.0.1:${r1.port}/functions/v1`,
    '--api-key',
    live,
  ];

  it.skipIf(!hasPty)('"n" at a confirmation exits 2, Ctrl-C exits 130; nothing is sent', async () => {
    const no = runPty(args());
    await no.waitFor('LIVE key?');
    no.type('n\r');
    const n = await no.done;
    expect(n.code, n.output).toBe(2);
    expect(n.output).toContain('Aborted; nothing was changed.');
    const ctrlC = runPty(args());
    await ctrlC.waitFor('LIVE key?');
    ctrlC.type('\x03');
    const c = await ctrlC.done;
    expect(c.code, c.output).toBe(130);
    expect(c.output).toContain('Interrupted; nothing was changed.');
    expect(r1.seen).toEqual([]);
  });

  it.skipIf(!hasPty)('--json on a terminal refuses with the real reason, not "no terminal to ask on"', async () => {
    const r = await runPty([...args(), '--json']).done;
    expect(r.code).toBe(2);
    expect(r.output).toContain('--json never asks');
    expect(r.output).not.toContain('no terminal to ask on');
    expect(r1.seen).toEqual([]);
  });
});

describe('validation messages name the field and the rule (finding 9)', () => {
  it('a URL field says it must be an http(s) URL; a long metadata key says it is the key', async () => {
    const url = await runCli([
      'api',
      'POST',
      '/create-session',
      '--data',
      '{"amount":100,"currency":"usd","success_url":"not-a-url"}',
      '--json',
      ...against(s),
    ]);
    expect(url.json().error).toMatchObject({
      param: 'success_url',
      message: 'Invalid success_url: must be an absolute http or https URL (https://…).',
    });
    const key = 'k'.repeat(41);
    const r = await runCli([
      'sessions',
      'create',
      '--amount',
      '100',
      '--currency',
      'usd',
      '--metadata',
      `${key}=v`,
      ...against(s),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Invalid metadata: key "${key}" is too long: keys must be at most 40 characters.`);
    const cur = await s.request('POST', '/create-session', { body: { amount: 100, currency: 'u$d' } });
    expect(cur.body.error.message).toBe('Invalid currency: must be a three-letter ISO 4217 currency code.');
  });
});

describe('the --json secret rule (finding 10)', () => {
  it('--json prints the client secret exactly, as `payorch api` does; the human view masks it', async () => {
    const created = await runCli([
      'sessions',
      'create',
      '--amount',
      '700',
      '--currency',
      'usd',
      '--json',
      ...against(s),
    ]);
    const out = created.json();
    const stored = (await s.request('GET', `/sessions/${out.id}`)).body;
    expect(out.client_secret).toBe(stored.client_secret);
    const raw = await runCli(['api', 'GET', `/sessions/${out.id}`, ...against(s)]);
    expect(JSON.parse(raw.stdout).client_secret).toBe(stored.client_secret);
    const human = await runCli(['sessions', 'get', out.id, ...against(s)]);
    expect(human.stdout).not.toContain(stored.client_secret);
    expect(human.stdout).toContain(`cs_…${stored.client_secret.slice(-4)}`);
  });
});

describe('discoverability (finding 11)', () => {
  it('help, help TOPIC, -h', async () => {
    const root = await runCli(['help']);
    expect(root.code, root.stderr).toBe(0);
    expect(root.stdout).toMatch(/TOPICS[\s\S]*sessions/);
    const topic = await runCli(['help', 'sessions']);
    expect(topic.code).toBe(0);
    expect(topic.stdout).toContain('sessions create');
    const cmd = await runCli(['help', 'sessions', 'create']);
    expect(cmd.stdout).toMatch(/USAGE[\s\S]*sessions create/);
    const h = await runCli(['sessions', 'get', '-h']);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/USAGE[\s\S]*sessions get ID/);
    expect((await runCli(['help', 'nope'])).code).toBe(2);
  });

  it('a typo gets a suggestion with spaces, exit 2', async () => {
    const r = await runCli(['sesions', 'list']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Did you mean `payorch sessions list`?');
    expect(r.stderr).not.toContain('sesions:list');
    const j = await runCli(['sessions', 'lst', '--json']);
    expect(j.code).toBe(2);
    expect(j.json().error.code).toBe('unknown_command');
    expect(j.json().error.message).toContain('Did you mean `payorch sessions list`?');
  });

  it('a topic typed alone with a typo gets a suggestion too, exit 2', async () => {
    const [topic, nested] = await Promise.all([runCli(['sesions']), runCli(['server', 'kyes'])]);
    expect([topic.code, topic.stderr]).toEqual([
      2,
      'Error: `sesions` is not a payorch command. Did you mean `payorch sessions`? `payorch help` lists the commands.\n',
    ]);
    expect([nested.code, nested.stderr]).toEqual([
      2,
      'Error: `server kyes` is not a payorch command. Did you mean `payorch server keys`? `payorch help` lists the commands.\n',
    ]);
  });

  it("a flag typo gets a suggestion in the CLI's words (no usage dump), exit 2; with --json the usage_error body", async () => {
    const one = await runCli(['sessions', 'list', '--jsno']);
    expect([one.code, one.stdout, one.stderr]).toEqual([
      2,
      '',
      'Error: `--jsno` is not a flag of `payorch sessions list`. Did you mean `--json`? `payorch sessions list --help` lists its flags.\n',
    ]);
    const several = await runCli(['sessions', 'get', 'x', '--jsno', '--timout=5', '-q', '--json']);
    expect(several.code).toBe(2);
    expect(several.json()).toEqual({
      error: {
        type: 'invalid_request_error',
        code: 'usage_error',
        message:
          '`--jsno` (did you mean `--json`?), `--timout=5` (did you mean `--timeout`?), `-q` are not flags of `payorch sessions get`. `payorch sessions get --help` lists its flags.',
      },
    });
    expect(several.stderr).not.toMatch(/USAGE|Nonexistent/);
  });

  it('shell completion: `payorch completion bash` completes topics, commands and flags in bash', async () => {
    const script = await runCli(['completion', 'bash']);
    expect(script.code, script.stderr).toBe(0);
    const file = join(tempDir(), 'payorch.bash');
    writeFileSync(file, script.stdout);
    const complete = (...words: string[]) =>
      execFileSync(
        'bash',
        [
          '-c',
          `source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 )); _payorch; echo "\${COMPREPLY[*]}"`,
          file,
          'payorch',
          ...words,
        ],
        { encoding: 'utf8' },
      ).trim();
    expect(complete('ses')).toBe('sessions');
    expect(complete('sessions', '').split(' ')).toEqual([
      'cancel',
      'confirm',
      'create',
      'get',
      'list',
      'open',
      'update',
    ]);
    expect(complete('ledger', 'holds', 'c')).toBe('capture create');
    expect(complete('sessions', 'get', 'ID', '--ti')).toBe('--timeout');
    expect((await runCli(['autocomplete', 'zsh'])).stdout).toContain('bashcompinit');
  });

  it('sessions confirm: the usage line shows one way to pay, --exp and --cvc as options of --card (not as if --exp were required)', async () => {
    const help = await runCli(['sessions', 'confirm', '--help']);
    expect(help.code).toBe(0);
    const usage = help.stdout
      .slice(help.stdout.indexOf('USAGE'), help.stdout.indexOf('ARGUMENTS'))
      .replace(/\s+/g, ' ');
    expect(usage).toContain(
      'sessions confirm ID (--token TOK | --card NUMBER [--exp MM/YY] [--cvc CVC] | --wallet TYPE --wallet-token TOKEN | --bank-account BA_ID [--holder-name NAME])',
    );
    expect(usage).not.toMatch(/--exp <value> --card/);
    // Written by hand: every flag of the command is in it.
    const manifest = JSON.parse(readFileSync(new URL('../../oclif.manifest.json', import.meta.url), 'utf8')) as {
      commands: Record<string, { flags: Record<string, { hidden?: boolean; char?: string }> }>;
    };
    for (const [name, flag] of Object.entries(manifest.commands['sessions:confirm']!.flags)) {
      if (!flag.hidden) expect(usage, name).toMatch(new RegExp(`--${name}\\b${flag.char ? `|-${flag.char}\\b` : ''}`));
    }
  });

  it('completion --help does not offer --json (its output is the script), and autocomplete is not listed as a second command', async () => {
    const help = await runCli(['completion', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).not.toContain('--json');
    expect(help.stdout).not.toContain('API object');
    expect(help.stdout).not.toMatch(/ALIASES|autocomplete/);
    const root = await runCli(['--help']);
    expect(root.stdout).toMatch(/^ {2}completion /m);
    expect(root.stdout).not.toMatch(/^ {2}autocomplete /m);
    // Commands that are not API commands do not describe --json as printing an API object.
    const profiles = await runCli(['profiles', 'list', '--help']);
    expect(profiles.stdout).toContain('--json');
    expect(profiles.stdout).not.toContain('API object');
    expect((await runCli(['sessions', 'list', '--help'])).stdout).toMatch(/--json\s+Print exactly the API object/);
  });

  it('every command has an example', async () => {
    const manifest = JSON.parse(readFileSync(new URL('../../oclif.manifest.json', import.meta.url), 'utf8')) as {
      commands: Record<string, { examples?: string[] }>;
    };
    const missing = Object.entries(manifest.commands)
      .filter(([, c]) => !c.examples?.length)
      .map(([id]) => id);
    expect(missing).toEqual([]);
  });

  it('test-cards shows every kind of test value, KYC values from the server code included', async () => {
    const r = await runCli(['test-cards', ...against(s)]);
    expect(r.code, r.stderr).toBe(0);
    for (const text of [
      'tok_visa',
      'wallet_declined',
      '000222222227',
      'Micro-deposit amounts: 32 and 45',
      ...Object.values(KYC_TEST_VALUES),
    ])
      expect(r.stdout).toContain(text);
  });
});

describe('commands send exactly the contract body (finding 12)', () => {
  it('ledger unfreeze sends no body unless --reason/--actor', async () => {
    const acct = (
      await s.request('POST', '/ledger-accounts', { body: { name: 'w', account_type: 'liability', currency: 'usd' } })
    ).body;
    const freeze = () => s.request('POST', `/ledger-accounts/${acct.id}/freeze`, { body: { reason: 'check' } });
    expect((await freeze()).status).toBe(200);
    const bare = await runInProcess('ledger unfreeze', [acct.id, '--yes', ...against(s)]);
    expect(bare.code, bare.stderr).toBe(0);
    const post = bare.requests.filter((r) => r.method === 'POST');
    expect(post).toHaveLength(1);
    expect(post[0]!.body).toBeUndefined();
    expect(post[0]!.headers['content-type']).toBeUndefined();
    expect((bare.result as { status: string }).status).toBe('active');
    await freeze();
    const withReason = await runInProcess('ledger unfreeze', [acct.id, '--yes', '--reason', 'cleared', ...against(s)]);
    expect(JSON.parse(withReason.requests.find((r) => r.method === 'POST')!.body!)).toMatchObject({
      reason: 'cleared',
    });
  });
});

describe('flag → request mapping, in process', () => {
  it('sessions create, list and get map their flags to the request', async () => {
    const c = await runInProcess('sessions create', [
      '--amount',
      '1999',
      '--currency',
      'eur',
      '--metadata',
      'order=42',
      '--idempotency-key',
      'idem-map-1',
      '--json',
      ...against(s),
    ]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.requests).toHaveLength(1);
    expect(c.requests[0]).toMatchObject({ method: 'POST', path: '/create-session' });
    expect(c.requests[0]!.headers['idempotency-key']).toBe('idem-map-1');
    expect(JSON.parse(c.requests[0]!.body!)).toMatchObject({
      amount: 1999,
      currency: 'eur',
      metadata: { order: '42' },
    });
    expect(JSON.parse(c.stdout)).toEqual(c.result);
    const l = await runInProcess('sessions list', [
      '--limit',
      '3',
      '--status',
      'requires_payment_method',
      ...against(s),
    ]);
    expect(l.requests[0]!.path).toMatch(/^\/sessions\?/);
    expect(new URLSearchParams(l.requests[0]!.path.split('?')[1])).toEqual(
      new URLSearchParams({ limit: '3', status: 'requires_payment_method' }),
    );
    const g = await runInProcess('sessions get', [(c.result as { id: string }).id, ...against(s)]);
    expect(g.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /sessions/${(c.result as { id: string }).id}`,
    ]);
    expect(g.stdout).toMatch(/Payment session/);
  });

  it('payments refund and customers update send what the flags say', async () => {
    const cust = await runInProcess('customers update', ['cus_missing', '--name', 'New', '--json', ...against(s)]);
    const req = cust.requests[0]!;
    expect(`${req.method} ${req.path}`).toMatch(/^(POST|PATCH) \/customers\/cus_missing$/);
    expect(JSON.parse(req.body!)).toEqual({ name: 'New' });
    expect(cust.code).toBe(1); // 404 from the real server
    const refund = await runInProcess('payments refund', ['pay_missing', '--amount', '250', '--json', ...against(s)]);
    expect(refund.requests[0]!.path).toBe('/refund-payment/pay_missing');
    expect(JSON.parse(refund.requests[0]!.body!)).toMatchObject({ amount: 250 });
  });
});
