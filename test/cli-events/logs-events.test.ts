// `payorch logs tail` (the server's live request log: its own account only, filtered, nothing secret in it),
// `payorch events list|get`, and `payorch trigger`'s checks against the catalog — the real binary, a real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypes } from '../../dist/lib/contract/events.js';
import { against, runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { confirm, newSession } from '../payments/util.js';
import { spawnCli } from './util.js';

let s: TestServer;
let otherKey: string;
beforeAll(async () => {
  s = await startTestServer();
  const made = await runCli(['server', 'keys', 'create', '--json', '--data-dir', s.dataDir!]);
  if (made.code !== 0) throw new Error(`server keys create: ${made.stderr}`);
  otherKey = made.json<{ api_key: string }>().api_key;
});
afterAll(() => s.close());

const MISSING = '01a20000-0000-7000-8000-000000000000';

describe('payorch logs tail', () => {
  it('--status 4xx shows the 404 this account provoked — not its 200s, not another account’s 404, nothing secret', async () => {
    const tail = spawnCli(['logs', 'tail', '--status', '4xx', '--json', ...against(s)]);
    const human = spawnCli(['logs', 'tail', '--path', '/sessions', ...against(s)]);
    try {
      await Promise.all([
        tail.waitFor('stderr', (t) => t.includes('Ready')),
        human.waitFor('stderr', (t) => t.includes('Ready')),
      ]);
      const session = await newSession(s); // 201
      expect((await s.request('GET', `/sessions/${session.id}`)).status).toBe(200);
      expect((await s.request('GET', `/sessions/${MISSING}?customer_email=a@b.test`, { key: otherKey })).status).toBe(
        400,
      ); // another account's (a key the route does not take)
      const mine = await s.request('GET', `/sessions/${MISSING}`);
      expect(mine.status).toBe(404);
      await confirm(s, session, { payment_method_type: 'card', token_id: 'tok_visa' }); // client-secret request of this account
      const marker = await s.request('GET', '/nothing-here-either'); // not attributed to an account: never shown
      expect(marker.status).toBe(404);
      const last = await s.request('GET', `/sessions/${MISSING}x`);
      expect(last.status).toBe(404);
      await tail.waitFor('stdout', (t) => t.includes(last.headers.get('request-id')!));
      await human.waitFor('stdout', (t) => t.includes(last.headers.get('request-id')!));
    } finally {
      expect(await tail.stop('SIGINT')).toEqual({ code: 0, signal: null });
      expect(await human.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    }
    const entries = tail
      .stdout()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(entries.map((e) => [e.method, e.path, e.status])).toEqual([
      ['GET', `/sessions/${MISSING}`, 404],
      ['GET', `/sessions/${MISSING}x`, 404],
    ]);
    for (const e of entries) {
      expect(Object.keys(e).sort()).toEqual([
        'api_key',
        'created_at',
        'duration_ms',
        'ip_address',
        'method',
        'object',
        'path',
        'request_id',
        'seq',
        'status',
      ]);
      expect(e.request_id).toMatch(/^req_/);
    }
    // the human view: every /sessions request of this account, statuses and ids; no query strings, keys or secrets
    const lines = human.stdout();
    expect(lines).not.toContain('/create-session'); // --path /sessions
    expect(lines).not.toContain('/confirm-payment');
    expect(lines).toMatch(new RegExp(`200\\s+GET\\s+/sessions/`));
    expect(lines).toMatch(new RegExp(`404\\s+GET\\s+/sessions/${MISSING}\\s`));
    expect(lines).not.toContain('customer_email');
    expect(lines + tail.stdout()).not.toContain(s.apiKey);
    expect(lines + tail.stdout()).not.toContain('client_secret');
    expect(lines + tail.stdout()).not.toContain('/request-log');
  });

  it('GET /request-log: another account sees none of it; bad filters are 400 in the contract’s body', async () => {
    const theirs = await s.request('GET', '/request-log', { key: otherKey });
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.every((e: { path: string }) => e.path.startsWith('/sessions/'))).toBe(true);
    expect(JSON.stringify(theirs.body)).not.toContain('/create-session');
    const mine = await s.request('GET', '/request-log?status=404');
    expect(mine.body.data.map((e: { path: string }) => e.path)).toContain(`/sessions/${MISSING}`);
    expect(mine.body.data.map((e: { path: string }) => e.path)).not.toContain('/nothing-here-either');
    for (const q of ['status=abc', 'status=600', 'path=sessions', 'after=-1', 'limit=0', 'other=1']) {
      const r = await s.request('GET', `/request-log?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.type).toBe('validation_error');
    }
    expect((await s.request('GET', '/request-log', { key: null })).status).toBe(401);
    // following reads are not recorded (the log's own reads, listen's polls of /events with ending_before)
    const newest = (await s.request('GET', '/events?limit=1')).body.data[0].id;
    expect((await s.request('GET', `/events?ending_before=${newest}`)).status).toBe(200);
    const all = (await s.request('GET', '/request-log?limit=100')).body.data.map((e: { path: string }) => e.path);
    expect(all.at(-1)).toBe('/events'); // the plain list, not the poll after it
    expect(all.filter((p: string) => p === '/events')).toHaveLength(1);
    expect(all).not.toContain('/request-log');
    // a cursor from before a restart (beyond the newest entry) reads from the start rather than never again
    const far = await s.request('GET', '/request-log?after=999999999');
    expect(far.body.data.length).toBeGreaterThan(0);
  });
});

describe('payorch events list | get', () => {
  it('lists an object’s events newest first and shows one; --json is the API’s answer', async () => {
    const session = await newSession(s);
    const list = await runCli(['events', 'list', '--object', session.id, '--json', ...against(s)]);
    expect(list.code).toBe(0);
    const body = list.json();
    expect(body).toEqual((await s.request('GET', `/events?object_id=${session.id}`)).body);
    expect(body.data.map((e: { type: string }) => e.type)).toEqual(['payment_session.created']);
    const id = body.data[0].id;
    const table = await runCli(['events', 'list', '--type', 'payment_session.*', '--limit', '3', ...against(s)]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+TYPE\s+OBJECT\s+CREATED/);
    expect(table.stdout).toContain(id);
    const got = await runCli(['events', 'get', id, ...against(s)]);
    expect(got.code).toBe(0);
    expect(got.stdout).toContain('Event payment_session.created');
    expect(got.stdout).toContain(`payment_session ${session.id}`);
    expect((await runCli(['events', 'get', id, '--json', ...against(s)])).json()).toEqual(body.data[0]);
    const missing = await runCli(['events', 'get', 'evt_nope', ...against(s)]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('resource_missing');
    const typo = await runCli(['events', 'list', '--type', 'payment_sesion.created', ...against(s)]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Did you mean payment_session.created?');
  });
});

describe('payorch trigger', () => {
  it('--list shows every type of the catalog; an unknown type is exit 2 with the nearest one, before any request', async () => {
    const list = await runCli(['trigger', '--list', '--json']);
    expect(list.code).toBe(0);
    expect(list.json().map((t: { type: string }) => t.type)).toEqual(eventTypes);
    const typo = await runCli([
      'trigger',
      'invoice.payed',
      '--api-key',
      'sk_test_x',
      '--base-url',
      'http://127.0.0.1:9/functions/v1',
    ]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Did you mean invoice.paid?');
    // Edit distance says payment.failed; a person typing payment.refunded means refund.succeeded.
    const refunded = await runCli([
      'trigger',
      'payment.refunded',
      '--api-key',
      'sk_test_x',
      '--base-url',
      'http://127.0.0.1:9/functions/v1',
    ]);
    expect(refunded.code).toBe(2);
    expect(refunded.stderr).toContain('Did you mean refund.succeeded?');
    const none = await runCli(['trigger', '--api-key', 'sk_test_x', '--base-url', 'http://127.0.0.1:9/functions/v1']);
    expect(none.code).toBe(2);
  });
});
