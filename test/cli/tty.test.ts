// On a terminal (a pseudo-terminal from util-linux `script`): missing flags are prompted for, live-key changes
// ask for confirmation, colour is used unless NO_COLOR (issue 2, CLI). Skipped where `script` is absent.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const hasScript = spawnSync('script', ['-V']).status === 0;

let s: TestServer;
let recorder: Server;
let recorderUrl = '';
const recorded: string[] = [];
beforeAll(async () => {
  if (!hasScript) return;
  s = await startTestServer({ memory: true });
  recorder = createServer((req, res) => {
    recorded.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        error: {
          type: 'authentication_error',
          code: 'livemode_unavailable',
          message: 'recorder',
          request_id: 'req_recorder',
        },
      }),
    );
  });
  await new Promise<void>((r) => recorder.listen(0, '127.0.0.1', () => r()));
  recorderUrl = `http://127.0.0.1:${(recorder.address() as { port: number }).port}/functions/v1`;
});
afterAll(async () => {
  await s?.close();
  await new Promise((r) => (recorder ? recorder.close(r) : r(undefined)));
});

const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/**
 * Runs the binary on a pseudo-terminal (`cols` wide, when given); each time the output shows `when`, types `input`.
 * Resolves with the exit code and the output (terminal escapes included).
 */
function onTty(
  args: string[],
  steps: { when: RegExp; input: string }[],
  env: Record<string, string> = {},
  cols?: number,
): Promise<{ code: number | null; out: string }> {
  const base: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('PAYORCH_') && k !== 'NO_COLOR' && k !== 'FORCE_COLOR') base[k] = v;
  const run = [process.execPath, BIN, ...args].map(quote).join(' ');
  const child = spawn('script', ['-qec', cols ? `stty cols ${cols} rows 24 && ${run}` : run, '/dev/null'], {
    env: { ...base, PAYORCH_HOME: tempDir(), TERM: 'xterm', ...env } as NodeJS.ProcessEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  const pending = [...steps];
  const onData = (d: Buffer) => {
    out += d.toString();
    const next = pending[0];
    if (next && next.when.test(out.replace(ANSI, ''))) {
      pending.shift();
      child.stdin.write(next.input);
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin.end();
      resolve({ code, out });
    }),
  );
}

describe.skipIf(!hasScript).concurrent('on a terminal', () => {
  it('prompts for a missing required flag and uses the answer', async () => {
    const ext = `tty-${Date.now()}`;
    const r = await onTty(
      ['sessions', 'create', '--currency', 'usd', '--external-id', ext, '--base-url', s.baseUrl, '--api-key', s.apiKey],
      [{ when: /Amount/, input: '1999\r' }],
    );
    expect(r.code, r.out).toBe(0);
    expect(r.out.replace(ANSI, '')).toMatch(/Payment session created/);
    expect(r.out).toMatch(/\x1b\[/); // colour on a terminal
    const list = await s.request('GET', `/sessions?external_id=${ext}`);
    expect(list.body.data.map((x: { amount: number }) => x.amount)).toEqual([1999]);
  });

  it('NO_COLOR turns colour off even on a terminal', async () => {
    const id = (await s.request('POST', '/create-session', { body: { amount: 5, currency: 'usd' } })).body.id;
    const r = await onTty(['sessions', 'get', id, '--base-url', s.baseUrl, '--api-key', s.apiKey], [], {
      NO_COLOR: '1',
    });
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(id);
    expect(r.out).not.toMatch(/\x1b\[[0-9;]*m/);
  });

  it('the first profile added with a live key becomes active only on "yes"', async () => {
    const live = 'sk_live_' + 'P'.repeat(28) + 'LAST';
    const question = /Make "prod" the active profile\?/;
    const homeNo = tempDir();
    const no = await onTty(['profiles', 'add', 'prod', '--api-key', live], [{ when: question, input: 'n\r' }], {
      PAYORCH_HOME: homeNo,
    });
    expect(no.code, no.out).toBe(0);
    expect(no.out.replace(ANSI, '')).toContain('Saved profile prod (LIVE sk_live_…LAST), not active');
    expect(JSON.parse(readFileSync(join(homeNo, 'config.json'), 'utf8')).active).toBeUndefined();
    const homeYes = tempDir();
    const yes = await onTty(['profiles', 'add', 'prod', '--api-key', live], [{ when: question, input: 'y\r' }], {
      PAYORCH_HOME: homeYes,
    });
    expect(yes.code, yes.out).toBe(0);
    expect(yes.out.replace(ANSI, '')).toContain('Saved profile prod (LIVE sk_live_…LAST), active.');
    expect(JSON.parse(readFileSync(join(homeYes, 'config.json'), 'utf8')).active).toBe('prod');
    expect(no.out + yes.out).not.toContain(live);
  });

  it('FORCE_COLOR=0 turns colour off on a terminal too (as chalk and Node read it)', async () => {
    const id = (await s.request('POST', '/create-session', { body: { amount: 5, currency: 'usd' } })).body.id;
    for (const value of ['0', 'false']) {
      const r = await onTty(['sessions', 'get', id, '--base-url', s.baseUrl, '--api-key', s.apiKey], [], {
        FORCE_COLOR: value,
      });
      expect(r.code, r.out).toBe(0);
      expect(r.out).toContain(id);
      expect(r.out, `FORCE_COLOR=${value}`).not.toMatch(/\x1b\[[0-9;]*m/);
    }
  });

  it('a table fits the terminal: 80 columns, rows cut to fit, ids whole', async () => {
    const name = 'Settlement reserve for the marketplace, held for chargebacks and refunds';
    const id = (
      await s.request('POST', '/ledger-accounts', {
        body: { name, account_type: 'liability', currency: 'usd', customer_id: 'cus_tty_fit' },
      })
    ).body.id;
    const r = await onTty(
      ['ledger', 'list', '--customer', 'cus_tty_fit', '--base-url', s.baseUrl, '--api-key', s.apiKey],
      [],
      { NO_COLOR: '1' },
      80,
    );
    expect(r.code, r.out).toBe(0);
    const rows = r.out
      .replace(ANSI, '')
      .split(/\r?\n/)
      .filter((l) => l.trim());
    expect(
      rows.find((l) => l.startsWith(id)),
      r.out,
    ).toMatch(/\sSettlement \S*…\s+active\s+0\.00 USD/);
    for (const row of rows) expect([...row].length, row).toBeLessThanOrEqual(80);
  });

  it('a live key asks before a change: "no" sends nothing, "yes" sends it', async () => {
    const live = 'sk_live_' + 'T'.repeat(28) + 'LAST';
    const args = [
      'sessions',
      'create',
      '--amount',
      '100',
      '--currency',
      'usd',
      '--base-url',
      recorderUrl,
      '--api-key',
      live,
    ];
    const no = await onTty(args, [{ when: /LIVE key\?/, input: 'n\r' }]);
    expect(no.out.replace(ANSI, '')).toMatch(/Aborted/);
    expect(no.code).not.toBe(0);
    expect(recorded).toEqual([]);
    const yes = await onTty(args, [{ when: /LIVE key\?/, input: 'y\r' }]);
    expect(yes.code, yes.out).toBe(3);
    expect(recorded).toEqual(['POST /functions/v1/create-session']);
    expect(no.out + yes.out).not.toContain(live);
  });
});
