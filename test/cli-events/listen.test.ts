// `payorch listen`: the real binary following a real server's event log from "now", forwarding each event to a
// real local receiver signed with the listener's secret (checked here with the signature module and the secret
// `--print-secret` printed), `--json` lines, `--events` filters, Ctrl-C / SIGTERM, and targets that fail.
import { statSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { timingSafeEqual } from 'node:crypto';
import { createServer as createNetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeSignature, parseSignatureHeader } from '../../dist/lib/webhooks/signature.js';
import { against, runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';
import { confirm, newSession } from '../payments/util.js';
import { eventually, receiver, spawnCli, type Received } from './util.js';
import { ALL_VERIFY, noneVerify, verifications } from '../webhooks/verifiers.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const ready = (t: string) => t.includes('Ready: listening');

function verified(r: Received, secret: string): boolean {
  const parsed = parseSignatureHeader(String(r.headers['x-payorch-signature'] ?? ''));
  if (!parsed) return false;
  const expected = Buffer.from(computeSignature(r.body, secret, parsed.timestamp), 'hex');
  return parsed.signatures.some((sig) => timingSafeEqual(Buffer.from(sig, 'hex'), expected));
}

async function paidSession(amount = 1999) {
  const session = await newSession(s, { amount });
  const paid = await confirm(s, session, { payment_method_type: 'card', token_id: 'tok_visa' });
  expect(paid.status).toBe(200);
  return { session, payment: paid.body as { id: string } };
}

describe('payorch listen --forward-to', () => {
  it('forwards each new event, in order, signed with the secret --print-secret prints; nothing from before it started; Ctrl-C exits 0', async () => {
    const home = tempDir();
    const printed = await runCli(['listen', '--print-secret', ...against(s)], { home });
    expect(printed.code).toBe(0);
    const secret = printed.stdout.trim();
    expect(printed.stdout).toBe(`${secret}\n`);
    expect(secret).toMatch(/^whsec_[0-9a-f]{48}$/);
    // Stable across runs (a .env keeps working), stored 0600.
    expect((await runCli(['listen', '--print-secret', ...against(s)], { home })).stdout).toBe(`${secret}\n`);
    expect(statSync(join(home, 'config.json')).mode & 0o777).toBe(0o600);

    const before = await paidSession(111); // recorded before listen starts: never forwarded
    const anchor = (await s.request('GET', '/events?limit=1')).body.data[0].id;
    const rx = await receiver();
    const listen = spawnCli(['listen', '--forward-to', `127.0.0.1:${rx.port}/webhooks`, ...against(s)], { home });
    try {
      await listen.waitFor('stderr', ready);
      const { session, payment } = await paidSession(2500);
      // Forwarded: exactly the events recorded since it started, in the log's order (other areas may record some
      // for the same change, e.g. the ledger's posting of the payment).
      const since = async () =>
        ((await s.request('GET', `/events?ending_before=${anchor}&limit=100`)).body.data as { id: string }[])
          .reverse()
          .map((e) => e.id);
      await eventually(
        async () =>
          rx.received.some((r) => r.headers['x-payorch-event-type'] === 'payment_session.succeeded') &&
          rx.received.length === (await since()).length,
      );
      expect(rx.received.map((r) => r.headers['x-payorch-event-id'])).toEqual(await since());
      const types = rx.received.map((r) => String(r.headers['x-payorch-event-type']));
      expect(
        types.filter((t) => ['payment_session.created', 'payment.captured', 'payment_session.succeeded'].includes(t)),
      ).toEqual(['payment_session.created', 'payment.captured', 'payment_session.succeeded']);
      for (const r of rx.received) {
        expect(verified(r, secret)).toBe(true);
        // both header sets, the one secret: Standard Webhooks' library and verifyWebhook, each with its defaults
        expect(verifications(r.body, r.headers, secret)).toEqual(ALL_VERIFY);
        const event = JSON.parse(r.body);
        expect(verified({ ...r, body: r.body.replace(event.id, `${event.id}x`) }, secret)).toBe(false); // tampered
        expect(verified(r, 'whsec_' + '0'.repeat(48))).toBe(false); // another secret
        expect(noneVerify(r.body, r.headers, 'whsec_' + '0'.repeat(48))).toBe(true);
        expect(r.headers['x-payorch-event-id']).toBe(event.id);
        expect(r.headers['x-payorch-test-mode']).toBe('true');
        expect(r.headers['content-type']).toBe('application/json');
        expect(r.headers['user-agent']).toMatch(/^payorch\//);
        // the API key goes to the configured server only
        expect(r.headers.authorization).toBeUndefined();
        expect(r.body).not.toContain(s.apiKey);
        expect(JSON.stringify(r.headers)).not.toContain(s.apiKey);
        expect(r.body).not.toContain(before.session.id);
        expect(r.body).not.toContain(before.payment.id);
      }
      await listen.waitFor(
        'stdout',
        (t) => (t.match(/--> 200 POST http:\/\/127\.0\.0\.1:\d+\/webhooks/g) ?? []).length === rx.received.length,
      );
      expect(rx.received.map((r) => JSON.parse(r.body).data.object.id)).toEqual(
        expect.arrayContaining([session.id, payment.id]),
      );
      expect(listen.stdout()).toMatch(/payment\.captured\s+evt_\w+\s+/);
      expect(listen.stdout()).toContain(payment.id);
    } finally {
      const end = await listen.stop('SIGINT');
      await rx.close();
      expect(end).toEqual({ code: 0, signal: null });
    }
    expect(listen.stderr()).not.toMatch(/at .*\.js:\d+|Error/);
    // the secret is never shown whole except by --print-secret
    expect(listen.stdout() + listen.stderr()).not.toContain(secret);
    expect(listen.stdout() + listen.stderr()).not.toContain(s.apiKey);
  });

  it('keeps going past a target that refuses, fails or hangs (each forward has a timeout), and SIGTERM exits 0', async () => {
    let n = 0;
    const rx = await receiver(() => (++n === 1 ? 'hang' : 500));
    const listen = spawnCli([
      'listen',
      '--forward-to',
      `http://127.0.0.1:${rx.port}/hook`,
      '--forward-timeout',
      '1',
      '--events',
      'payment_session.created',
      ...against(s),
    ]);
    const closed = await receiver();
    const closedPort = closed.port;
    await closed.close();
    const refused = spawnCli([
      'listen',
      '--forward-to',
      `localhost:${closedPort}/x`,
      '--events',
      'payment_session.created',
      ...against(s),
    ]);
    try {
      await Promise.all([listen.waitFor('stderr', ready), refused.waitFor('stderr', ready)]);
      await newSession(s);
      await newSession(s);
      // first: no answer within 1 s; second: 500 — both reported, the listener still running
      await listen.waitFor(
        'stdout',
        (t) => /--> ERR POST http:\/\/127\.0\.0\.1:\d+\/hook no answer within 1 s/.test(t) && /--> 500 POST/.test(t),
      );
      await refused.waitFor(
        'stdout',
        (t) => (t.match(/--> ERR POST http:\/\/localhost:\d+\/x ECONNREFUSED/g) ?? []).length === 2,
      );
      expect(rx.received).toHaveLength(2);
    } finally {
      const ends = await Promise.all([listen.stop('SIGTERM'), refused.stop('SIGINT')]);
      await rx.close();
      expect(ends).toEqual([
        { code: 0, signal: null },
        { code: 0, signal: null },
      ]);
    }
  });

  it('Ctrl-C while a forward hangs ends at once, exit 0 (the forward is abandoned)', async () => {
    const rx = await receiver(() => 'hang');
    const listen = spawnCli([
      'listen',
      '--forward-to',
      `127.0.0.1:${rx.port}/hook`,
      '--forward-timeout',
      '300',
      ...against(s),
    ]);
    try {
      await listen.waitFor('stderr', ready);
      await newSession(s);
      await eventually(() => rx.received.length > 0);
    } finally {
      const end = await listen.stop('SIGINT');
      await rx.close();
      expect(end).toEqual({ code: 0, signal: null });
    }
    expect(listen.stdout()).toContain('--> ERR POST');
  });
});

describe('payorch listen and a server that never answers', () => {
  it('Ctrl-C during the first read ends it with exit 0 (not a timeout, exit 4)', async () => {
    const sockets: import('node:net').Socket[] = [];
    const silent = createNetServer((sock) => sockets.push(sock));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as import('node:net').AddressInfo).port;
    const listen = spawnCli([
      'listen',
      '--api-key',
      'sk_test_x',
      '--base-url',
      `http://127.0.0.1:${port}/functions/v1`,
    ]);
    try {
      await eventually(() => sockets.length > 0); // its request is waiting for an answer
    } finally {
      const end = await listen.stop('SIGINT');
      sockets.forEach((x) => x.destroy());
      silent.close();
      expect(end).toEqual({ code: 0, signal: null });
    }
    expect(listen.stderr()).not.toContain('Error');
  });
});

describe('payorch listen across a server restart', () => {
  it('says the server is unreachable, keeps trying, and goes on from where it was once the server is back', async () => {
    const first = await startTestServer();
    const port = Number(new URL(first.baseUrl).port);
    const dataDir = first.dataDir!;
    const listen = spawnCli(['listen', '--json', ...against(first)]);
    let second: TestServer | undefined;
    try {
      await listen.waitFor('stderr', ready);
      const a = await newSession(first);
      await listen.waitFor('stdout', (t) => t.includes(a.id));
      await first.close();
      await listen.waitFor('stderr', (t) => t.includes('trying again'));
      second = await startTestServer({ dataDir, port });
      const c = await newSession(second);
      await listen.waitFor('stdout', (t) => t.includes(c.id));
      await listen.waitFor('stderr', (t) => t.includes('Reconnected.'));
      const ids = listen
        .stdout()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).data.object.id);
      expect(ids).toEqual([a.id, c.id]);
    } finally {
      expect(await listen.stop('SIGINT')).toEqual({ code: 0, signal: null });
      await second?.close();
    }
  });
});

describe('payorch listen --json and --events', () => {
  it('prints one JSON event per line and nothing else on stdout (forward results go to stderr); --events keeps only the matching types', async () => {
    const rx = await receiver();
    const listen = spawnCli([
      'listen',
      '--json',
      '--events',
      'payment.*,payment_session.succeeded',
      '--forward-to',
      `127.0.0.1:${rx.port}/h`,
      ...against(s),
    ]);
    try {
      await listen.waitFor('stderr', ready);
      expect(listen.stderr()).toContain('Ready: listening for payment.*, payment_session.succeeded events on ');
      await paidSession();
      await listen.waitFor('stdout', (t) => t.includes('"payment_session.succeeded"'));
      await listen.waitFor('stderr', (t) => (t.match(/--> 200 POST/g) ?? []).length === 2);
    } finally {
      expect(await listen.stop('SIGINT')).toEqual({ code: 0, signal: null });
      await rx.close();
    }
    expect(rx.received.map((r) => r.headers['x-payorch-event-type'])).toEqual([
      'payment.captured',
      'payment_session.succeeded',
    ]);
    const lines = listen.stdout().trimEnd().split('\n');
    const events = lines.map((l) => JSON.parse(l));
    expect(events.map((e) => e.type)).toEqual(['payment.captured', 'payment_session.succeeded']);
    for (const e of events) {
      expect(e).toMatchObject({ object: 'event', livemode: false });
      expect(e.id).toMatch(/^evt_/);
    }
    // exactly the API's event
    expect(events[0]).toEqual((await s.request('GET', `/events/${events[0].id}`)).body);
  });

  it('refuses an unknown type naming the nearest one (exit 2), and a pattern that matches nothing, before any request', async () => {
    const typo = await runCli([
      'listen',
      '--events',
      'payment.captuerd',
      '--api-key',
      'sk_test_x',
      '--base-url',
      'http://127.0.0.1:9/functions/v1',
    ]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Did you mean payment.captured?');
    const none = await runCli([
      'listen',
      '--events',
      'nothing.*',
      '--api-key',
      'sk_test_x',
      '--base-url',
      'http://127.0.0.1:9/functions/v1',
    ]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('matches no event type');
    const bad = await runCli(['listen', '--forward-to', 'ftp://x/y', ...against(s)]);
    expect(bad.code).toBe(2);
    // port 0 would be sent to port 80
    const zero = await runCli(['listen', '--forward-to', 'localhost:0/hook', ...against(s)]);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('port from 1 to 65535');
  });

  it('works on the embedded default with no key configured: another command’s change in the same data directory arrives', async () => {
    const home = tempDir();
    const env = { PAYORCH_DAEMON: '0' };
    const listen = spawnCli(['listen', '--json'], { home, env });
    try {
      await listen.waitFor('stderr', ready);
      const made = await runCli(['sessions', 'create', '--amount', '700', '--currency', 'usd', '--json'], {
        home,
        env,
      });
      expect(made.code, made.stderr).toBe(0);
      const id = made.json().id;
      await listen.waitFor('stdout', (t) => t.includes(id));
      expect(JSON.parse(listen.stdout().trim().split('\n')[0]!)).toMatchObject({
        type: 'payment_session.created',
        data: { object: { id } },
      });
    } finally {
      expect(await listen.stop('SIGINT')).toEqual({ code: 0, signal: null });
    }
  });

  it('works on the background server keyless commands start (at a terminal, or PAYORCH_DAEMON=1)', async () => {
    const home = tempDir();
    const env = { PAYORCH_DAEMON: '1', PAYORCH_IDLE_TIMEOUT: '120' }; // the idle limit: a backstop if this test is cut short
    const listen = spawnCli(['listen', '--json'], { home, env });
    try {
      await listen.waitFor('stderr', ready);
      expect(listen.stderr()).toMatch(
        /using the test-mode server at http:\/\/127\.0\.0\.1:\d+\/functions\/v1 \(started it in the background/,
      );
      const made = await runCli(['sessions', 'create', '--amount', '700', '--currency', 'usd', '--json'], {
        home,
        env,
        timeoutMs: 60_000,
      });
      expect(made.code, made.stderr).toBe(0);
      await listen.waitFor('stdout', (t) => t.includes(made.json().id));
    } finally {
      expect(await listen.stop('SIGINT')).toEqual({ code: 0, signal: null });
      expect((await runCli(['server', 'stop', '--all'], { home, timeoutMs: 60_000 })).code).toBe(0);
    }
  });

  it('keeps one secret per profile, separate from the secret of commands without a profile', async () => {
    const home = tempDir();
    for (const name of ['a', 'b'])
      expect(
        (await runCli(['profiles', 'add', name, '--api-key', s.apiKey, '--base-url', s.baseUrl], { home })).code,
      ).toBe(0);
    const secretOf = async (args: string[]) =>
      (await runCli(['listen', '--print-secret', ...args], { home })).stdout.trim();
    const a = await secretOf(['--profile', 'a']);
    const b = await secretOf(['--profile', 'b']);
    const none = await secretOf(against(s));
    expect(new Set([a, b, none]).size).toBe(3);
    expect(await secretOf(['--profile', 'a'])).toBe(a);
    // replacing the profile (a new key) keeps its secret
    expect(
      (await runCli(['profiles', 'add', 'a', '--force', '--api-key', s.apiKey, '--base-url', s.baseUrl], { home }))
        .code,
    ).toBe(0);
    expect(await secretOf(['--profile', 'a'])).toBe(a);
    expect(readFileSync(join(home, 'config.json'), 'utf8')).toContain(a);
  });
});

/** A receiver on https://127.0.0.1 with a self-signed certificate made for the test by openssl. */
async function httpsReceiver() {
  const dir = tempDir();
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const received: Received[] = [];
  const server = createHttpsServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(200).end('ok');
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('payorch listen -H/--headers and --skip-verify', () => {
  it('forwards custom headers to an https target with a self-signed certificate only with --skip-verify', async () => {
    const home = tempDir();
    const secret = (await runCli(['listen', '--print-secret', ...against(s)], { home })).stdout.trim();
    const rx = await httpsReceiver();
    // Without --skip-verify the certificate is checked: the forward fails, and says what to do.
    const strict = spawnCli(['listen', '--forward-to', rx.url, '--events', 'payment_session.created', ...against(s)], {
      home,
    });
    try {
      await strict.waitFor('stderr', ready);
      await newSession(s);
      await strict.waitFor('stdout', (t) => t.includes('--> ERR'));
      expect(strict.stdout()).toMatch(/SELF_SIGNED_CERT.*--skip-verify/);
      expect(rx.received).toHaveLength(0);
    } finally {
      expect(await strict.stop('SIGINT')).toEqual({ code: 0, signal: null });
    }
    const listen = spawnCli(
      [
        'listen',
        '--forward-to',
        rx.url,
        '--skip-verify',
        '-H',
        'Authorization: Bearer dev-token, X-Env:local',
        '--headers',
        '"X-List:a,b",User-Agent:my-receiver-test',
        '--events',
        'payment_session.created',
        ...against(s),
      ],
      { home },
    );
    try {
      await listen.waitFor('stderr', ready);
      const session = await newSession(s);
      await listen.waitFor('stdout', (t) => /--> 200 POST https:/.test(t));
      expect(rx.received).toHaveLength(1);
      const [r] = rx.received;
      expect(JSON.parse(r!.body).data.object.id).toBe(session.id);
      expect(r!.headers).toMatchObject({
        authorization: 'Bearer dev-token',
        'x-env': 'local',
        'x-list': 'a,b',
        'user-agent': 'my-receiver-test',
        'content-type': 'application/json',
      });
      expect(verifications(r!.body, r!.headers, secret)).toEqual(ALL_VERIFY);
    } finally {
      expect(await listen.stop('SIGINT')).toEqual({ code: 0, signal: null });
      await rx.close();
    }
  });

  it('refuses a malformed header and one payorch signs (exit 2), before any request', async () => {
    for (const [value, message] of [
      ['NoColon', /--headers takes Key:Value pairs/],
      [':value', /--headers takes Key:Value pairs/],
      ['Bad Name:x', /--headers takes Key:Value pairs/],
      ['Webhook-Signature:v1,forged', /--headers cannot set Webhook-Signature/],
      ['X-Payorch-Signature:t=1', /--headers cannot set X-Payorch-Signature/],
      ['"X-Open:a', /a quote is not closed/],
    ] as const) {
      const r = await runCli([
        'listen',
        '--forward-to',
        'localhost:1/x',
        '-H',
        value,
        '--base-url',
        'http://127.0.0.1:1',
        '--api-key',
        s.apiKey,
      ]);
      expect(r.code, value).toBe(2);
      expect(r.stderr, value).toMatch(message);
    }
  });
});

describe('payorch listen --since (backfill)', () => {
  /** The ids of the events after `anchor`, oldest first (from the API). */
  const after = async (server: TestServer, anchor: string) => {
    const ids: string[] = [];
    for (let before = anchor; ;) {
      const page = (await server.request('GET', `/events?ending_before=${before}&limit=100`)).body;
      const oldestFirst = (page.data as { id: string }[]).reverse().map((e) => e.id);
      ids.push(...oldestFirst);
      if (!page.has_more || oldestFirst.length === 0) return ids;
      before = oldestFirst.at(-1)!;
    }
  };

  it('prints the events after an event id once each, in order, then the live ones — no gap, no repeat, while events keep coming', async () => {
    await newSession(s);
    const anchor = (await s.request('GET', '/events?limit=1')).body.data[0].id as string;
    for (let i = 0; i < 3; i++) await paidSession(100 + i); // missed while it was not running
    const rx = await receiver();
    const home = tempDir();
    const secret = (await runCli(['listen', '--print-secret', ...against(s)], { home })).stdout.trim();
    // Events keep being recorded while it starts, reads the backlog and goes live: the seam falls among them.
    let writing = true;
    const writer = (async () => {
      while (writing) await newSession(s);
    })();
    const listen = spawnCli(
      ['listen', '--json', '--since', anchor, '--forward-to', `127.0.0.1:${rx.port}/h`, ...against(s)],
      { home },
    );
    let expected: string[] = [];
    try {
      await listen.waitFor('stderr', ready);
      expect(listen.stderr()).toContain(`starting with the events since ${anchor}`);
      await listen.waitFor('stdout', (t) => t.split('\n').length > 12);
      writing = false;
      await writer;
      await paidSession(7); // after the backlog: live
      expected = await after(s, anchor);
      await listen.waitFor('stdout', (t) => t.split('\n').filter(Boolean).length >= expected.length);
      await eventually(() => rx.received.length >= expected.length);
    } finally {
      writing = false;
      expect(await listen.stop('SIGINT')).toEqual({ code: 0, signal: null });
      await rx.close();
    }
    const printed = listen
      .stdout()
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(expected.length).toBeGreaterThan(15);
    expect(printed).toEqual(expected);
    expect(rx.received.map((r) => r.headers['x-payorch-event-id'])).toEqual(expected);
    for (const r of rx.received) expect(verifications(r.body, r.headers, secret)).toEqual(ALL_VERIFY);
  });
});
