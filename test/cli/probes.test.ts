// The CLI's promises probed by an adversarial user: ids that are dot segments, profile names that are
// Object.prototype properties, live-key confirmation on every state-changing command, and `api --include`
// headers on a terminal — through the real binary and through the commands' IO seam.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { cliConfig, runInProcess } from '../helpers/inprocess.js';

interface Seen {
  method: string;
  url: string;
}

/** A server that records every request and answers 404 in the contract's error body, with a hostile header. */
async function recorder(): Promise<{ server: Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    for await (const _ of req);
    seen.push({ method: req.method!, url: req.url! });
    // \u009b is the one-byte CSI: a header value may carry it (obs-text), a terminal may act on it.
    res.writeHead(404, { 'content-type': 'application/json', 'x-note': 'a\u009b2Jb' });
    res.end(JSON.stringify({ error: { type: 'invalid_request_error', code: 'route_not_found', message: 'recorder' } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, port: (server.address() as { port: number }).port, seen };
}

let r: Awaited<ReturnType<typeof recorder>>;
const base = () => `http://127.0.0.1:${r.port}/functions/v1`;
beforeAll(async () => {
  r = await recorder();
});
afterAll(async () => {
  await new Promise((done) => r?.server.close(done));
});

describe('an id that is a dot segment is refused before any request', () => {
  // A server or proxy that resolves dot segments (the WHATWG URL parser does, %2e included) would turn
  // /sessions/. into /sessions/ — a list — and /ledger-accounts/../unfreeze into /unfreeze.
  it('the real binary: `sessions get .` and `ledger unfreeze ..` exit 2 with a usage error', async () => {
    for (const args of [
      ['sessions', 'get', '.'],
      ['payments', 'get', '..'],
      ['ledger', 'unfreeze', '..', '--yes'],
      ['customers', 'delete', '.', '--yes'],
    ]) {
      const out = await runCli([...args, '--base-url', base(), '--api-key', 'sk_test_x', '--json']);
      expect(out.code, `${args.join(' ')}: ${out.stdout}${out.stderr}`).toBe(2);
      expect(out.json().error).toMatchObject({ code: 'usage_error' });
    }
    expect(r.seen).toEqual([]);
  });

  it('in process, every command with a required argument refuses "." and ".." without sending anything', async () => {
    const cfg = await cliConfig();
    const withArgs = cfg.commands.filter(
      (c) => Object.values(c.args ?? {}).some((a) => a.required) && !/^(server|profiles):/.test(c.id) && c.id !== 'api',
    );
    expect(withArgs.length).toBeGreaterThan(50);
    const failures: string[] = [];
    for (const dots of ['.', '..']) {
      for (const c of withArgs) {
        const required = Object.values(c.args).filter((a) => a.required);
        const argv = [...required.map(() => dots), '--base-url', base(), '--api-key', 'sk_test_x'];
        for (const [name, f] of Object.entries(c.flags))
          if (f.required) argv.push(`--${name}`, f.type === 'option' && f.options?.length ? f.options[0]! : '1');
        if ('yes' in c.flags) argv.push('--yes');
        const out = await runInProcess(c.id.split(':').join(' '), argv);
        if (out.code !== 2 || out.requests.length !== 0)
          failures.push(
            `${c.id} ${dots}: exit ${out.code}, ${out.requests.map((q) => q.path).join(' ')}, ${out.stderr.trim()}`,
          );
      }
    }
    expect(failures).toEqual([]);
    expect(r.seen).toEqual([]);
  });
});

describe('profile names that are Object.prototype properties are ordinary names', () => {
  it('`--profile toString` with no such profile is exit 3, not the embedded server', async () => {
    const home = tempDir();
    const out = await runCli(['sessions', 'list', '--profile', 'toString', '--json'], {
      home,
      env: { PAYORCH_DAEMON: '0' },
    });
    expect(out.code, out.stderr).toBe(3);
    expect(out.stderr).toContain('No profile named "toString"');
    expect(out.stderr).not.toContain('embedded');
  });

  it('`profiles use`, `show` and `remove` of an absent `valueOf` say it does not exist; `add constructor` works', async () => {
    const home = tempDir();
    const use = await runCli(['profiles', 'use', 'valueOf'], { home });
    expect(use.code, use.stderr).toBe(3);
    const show = await runCli(['profiles', 'show', 'valueOf'], { home });
    expect(show.code, show.stderr).toBe(3);
    expect(show.stderr).not.toContain('Cannot read properties');
    const remove = await runCli(['profiles', 'remove', 'hasOwnProperty'], { home });
    expect(remove.code, remove.stderr).toBe(3);
    const add = await runCli(
      ['profiles', 'add', 'constructor', '--api-key', 'sk_test_abcdefghijklmnop', '--base-url', base()],
      { home },
    );
    expect(add.code, add.stderr).toBe(0);
    const list = await runCli(['sessions', 'list', '--profile', 'constructor', '--json'], { home });
    expect(list.code).toBe(1); // the recorder's 404: the profile's key and base URL were used
    expect(r.seen.map((x) => x.url)).toEqual(['/functions/v1/sessions']);
    r.seen.length = 0;
  });

  it('an active profile named `toString` that is not in the file is exit 3', async () => {
    const home = tempDir();
    writeFileSync(join(home, 'config.json'), JSON.stringify({ active: 'toString', profiles: {} }));
    const out = await runCli(['sessions', 'list'], { home, env: { PAYORCH_DAEMON: '0' } });
    expect(out.code, out.stderr).toBe(3);
    expect(out.stderr).toContain('"toString" does not exist');
  });
});

describe('with a live key, every command that changes state asks (or refuses without a terminal and --yes)', () => {
  const live = 'sk_live_' + 'P'.repeat(32);
  const cases: [string, string[], string?][] = [
    ['identity-tokens create', ['--type', 'ssn'], '123456789'],
    ['events resend', ['evt_1']],
    ['threeds complete', ['00000000-0000-4000-8000-000000000000']],
    ['clock advance', ['30d']],
    ['trigger', ['payment.captured']],
  ];
  it('without a terminal and without --yes: exit 2, nothing sent', async () => {
    for (const [id, args, stdin] of cases) {
      const out = await runInProcess(id, [...args, '--base-url', base(), '--api-key', live], { stdin });
      expect(out.code, `${id}: ${out.stderr}`).toBe(2);
      expect(out.stderr, id).toContain('pass --yes');
      expect(
        out.requests.filter((q) => q.method !== 'GET'),
        id,
      ).toEqual([]);
    }
    expect(r.seen.filter((x) => x.method !== 'GET')).toEqual([]);
    r.seen.length = 0;
  });

  it('with --yes: the request is sent', async () => {
    for (const [id, args, stdin] of cases) {
      const out = await runInProcess(id, [...args, '--yes', '--base-url', base(), '--api-key', live], { stdin });
      expect(out.stderr, id).not.toMatch(/Nonexistent flag|not a flag of|not flags of/);
      expect(out.requests.length, id).toBeGreaterThan(0);
    }
    r.seen.length = 0;
  });
});

describe('`api --include` prints the headers escaped', () => {
  it('a header value holding a C1 control is shown as an escape', async () => {
    const out = await runCli(['api', 'GET', '/x', '--include', '--base-url', base(), '--api-key', 'sk_test_x']);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('x-note: a\\x9b2Jb');
    expect(out.stderr).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
    r.seen.length = 0;
  });
});

describe('`api` with a query string in PATH and --query', () => {
  it('the parameters are joined with "&", not a second "?"', async () => {
    const out = await runCli([
      'api',
      'GET',
      '/sessions?limit=2',
      '--query',
      'status=succeeded',
      '--query',
      'x=a&b',
      '--base-url',
      base(),
      '--api-key',
      'sk_test_x',
    ]);
    expect(out.code).toBe(1);
    expect(r.seen.map((x) => x.url)).toEqual(['/functions/v1/sessions?limit=2&status=succeeded&x=a%26b']);
    r.seen.length = 0;
  });
});

describe('a request node:http could not send is a usage error, found before anything is sent', () => {
  it('a line break in --idempotency-key or a path character to encode exits 2, one in the key exits 3; nothing reaches the server', async () => {
    const common = ['--base-url', base(), '--yes'];
    const key = await runCli([
      'api',
      'POST',
      '/sessions',
      '--idempotency-key',
      'a\r\nX-Injected: 1',
      '--api-key',
      'sk_test_x',
      ...common,
    ]);
    expect([key.code, key.stderr]).toEqual([2, expect.stringContaining('Idempotency-Key holds a line break')]);
    const path = await runCli(['api', 'GET', '/x\u2028y', '--api-key', 'sk_test_x', ...common]);
    expect([path.code, path.stderr]).toEqual([2, expect.stringContaining('percent-encode')]);
    const apiKey = await runCli(['api', 'GET', '/sessions', '--api-key', 'sk_test_x\r\nX-Injected: 1', ...common]);
    expect([apiKey.code, apiKey.stderr]).toEqual([3, expect.stringContaining('The API key holds a line break')]);
    expect(apiKey.stderr).not.toContain('sk_test_x');
    const json = await runCli(['api', 'GET', '/x\u2028y', '--api-key', 'sk_test_x', '--json', ...common]);
    expect([json.code, JSON.parse(json.stdout).error.type]).toEqual([2, 'invalid_request_error']);
    expect(r.seen).toEqual([]);
  });
});
