// `payorch events resend` reaches the running `payorch listen`s of the account (docs/api.md "Resends to
// listeners"): the real binary listening and forwarding to a real local receiver, the real binary resending, a
// real server (and the CLI's in-process default); then the listener routes over HTTP — tenancy, leases, cursors,
// retention. Every wait is for something to arrive, with generous deadlines; "once" is checked after a later
// resend has arrived behind it (a listener reads its queue in order).
import { timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeSignature, parseSignatureHeader } from '../../dist/lib/webhooks/signature.js';
import { against, runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer, sqliteOf } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';
import { eventually, receiver, spawnCli, type Received } from './util.js';
import { onSqlite } from '../helpers/engine.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const ready = (t: string) => t.includes('Ready: listening');

/** A new account of the test server (its own listeners, events and clock): tests do not see each other's listeners. */
async function account(): Promise<{ baseUrl: string; apiKey: string }> {
  return { baseUrl: s.baseUrl, apiKey: (await s.server.services.accounts.createAccountWithKey()).api_key };
}

/** Records a payment_session.created event in the account; returns its id and the session's. */
async function newEvent(a: { apiKey: string }): Promise<{ id: string; object: string }> {
  const made = await s.request('POST', '/create-session', { key: a.apiKey, body: { amount: 1200, currency: 'usd' } });
  expect(made.status).toBe(201);
  const e = (await s.request('GET', `/events?object_id=${made.body.id}&limit=1`, { key: a.apiKey })).body.data[0];
  expect(e.type).toBe('payment_session.created');
  return { id: e.id, object: made.body.id };
}

function verified(r: Received, secret: string): boolean {
  const parsed = parseSignatureHeader(String(r.headers['x-payorch-signature'] ?? ''));
  if (!parsed) return false;
  const expected = Buffer.from(computeSignature(r.body, secret, parsed.timestamp), 'hex');
  return parsed.signatures.some((sig) => timingSafeEqual(Buffer.from(sig, 'hex'), expected));
}

const idsOf = (rs: Received[]) => rs.map((r) => String(r.headers['x-payorch-event-id']));
const count = (rs: Received[], id: string) => idsOf(rs).filter((x) => x === id).length;

describe('events resend and a running `payorch listen --forward-to`', () => {
  it('with no endpoint: the listener gets the event once, shows it marked (resent), forwards it signed as any event; the resend says so', async () => {
    const a = await account();
    const home = tempDir();
    const secret = (await runCli(['listen', '--print-secret', ...against(a)], { home })).stdout.trim();
    const e = await newEvent(a); // recorded before the listener starts: only the resend brings it
    const marker = await newEvent(a);
    const rx = await receiver();
    const listen = spawnCli(['listen', '--forward-to', `127.0.0.1:${rx.port}/hook`, ...against(a)], { home });
    try {
      await listen.waitFor('stderr', ready);
      const r = await runCli(['events', 'resend', e.id, ...against(a)]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('Resent to 0 webhook endpoints and 1 running listener (`payorch listen`).\n');
      expect(r.stdout).not.toContain('nothing was sent');

      // A second resend (another event) behind it: once it has arrived, a second copy of the first cannot come.
      expect((await runCli(['events', 'resend', marker.id, '--json', ...against(a)])).json()).toMatchObject({
        object: 'list',
        data: [],
        listeners: 1,
      });
      await eventually(() => idsOf(rx.received).includes(marker.id));
      expect(idsOf(rx.received)).toEqual([e.id, marker.id]);
      const [got] = rx.received;
      // exactly the event as the API shows it, with the headers and signature of every forward
      expect(JSON.parse(got!.body)).toEqual((await s.request('GET', `/events/${e.id}`, { key: a.apiKey })).body);
      expect(got!.headers['x-payorch-event-type']).toBe('payment_session.created');
      expect(got!.headers['x-payorch-test-mode']).toBe('true');
      expect(got!.headers['content-type']).toBe('application/json');
      expect(got!.headers['user-agent']).toMatch(/^payorch\//);
      expect(got!.headers.authorization).toBeUndefined();
      expect(verified(got!, secret)).toBe(true);

      await listen.waitFor('stdout', (t) => (t.match(/--> 200 POST/g) ?? []).length === 2);
      const lines = listen.stdout().split('\n');
      const shown = lines.filter((l) => l.includes(e.id));
      expect(shown).toHaveLength(1);
      expect(shown[0]).toMatch(new RegExp(`payment_session\\.created\\s+${e.id}\\s+${e.object}\\s+\\(resent\\)$`));
      // an event recorded while it runs is shown and forwarded as before, unmarked
      const fresh = await newEvent(a);
      await eventually(() => idsOf(rx.received).includes(fresh.id));
      await listen.waitFor('stdout', (t) => t.includes(fresh.id));
      expect(
        listen
          .stdout()
          .split('\n')
          .find((l) => l.includes(fresh.id)),
      ).not.toContain('(resent)');
    } finally {
      expect(await listen.stop('SIGINT')).toEqual({ code: 0, signal: null });
      await rx.close();
    }
    expect(listen.stdout() + listen.stderr()).not.toContain(secret);
    expect(listen.stdout() + listen.stderr()).not.toContain(a.apiKey);
    expect(listen.stderr()).not.toMatch(/Error|at .*\.js:\d+/);
    // stopped: it no longer counts, and nothing more reaches it
    const after = await runCli(['events', 'resend', e.id, ...against(a)]);
    expect(after.code).toBe(0);
    expect(after.stdout).toBe(
      'No endpoint takes this event and no listener (`payorch listen`) is running: nothing was sent.\n',
    );
  });

  it('a listener started after a resend does not get it; one resent later, it gets once', async () => {
    const a = await account();
    const e = await newEvent(a);
    const marker = await newEvent(a);
    const none = await runCli(['events', 'resend', e.id, ...against(a)]);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toContain('nothing was sent');
    expect((await runCli(['events', 'resend', e.id, '--json', ...against(a)])).json()).toMatchObject({
      data: [],
      listeners: 0,
    });

    const rx = await receiver();
    const listen = spawnCli(['listen', '--json', '--forward-to', `127.0.0.1:${rx.port}/hook`, ...against(a)]);
    try {
      await listen.waitFor('stderr', ready);
      expect((await runCli(['events', 'resend', marker.id, '--json', ...against(a)])).json().listeners).toBe(1);
      await eventually(() => idsOf(rx.received).includes(marker.id));
      // the two resends from before it started never arrive: only the one made while it ran
      expect(idsOf(rx.received)).toEqual([marker.id]);
      await listen.waitFor(
        'stderr',
        (t) => t.includes(`(resent) ${marker.id} payment_session.created`) && /--> 200 POST/.test(t),
      );
      // --json: stdout is the event exactly as the API shows it, one per line
      const lines = listen.stdout().trimEnd().split('\n');
      expect(lines.map((l) => JSON.parse(l))).toEqual([
        (await s.request('GET', `/events/${marker.id}`, { key: a.apiKey })).body,
      ]);
    } finally {
      expect(await listen.stop('SIGINT')).toEqual({ code: 0, signal: null });
      await rx.close();
    }
    expect(listen.stderr()).not.toContain(e.id);
  });

  it('with an endpoint and a listener, both get it; --webhook-endpoint reaches the endpoint only', async () => {
    const a = await account();
    const e = await newEvent(a);
    const marker = await newEvent(a);
    const rxEndpoint = await receiver();
    const rxListen = await receiver();
    // created after the events: the endpoint gets them only by a resend
    const we = await s.request('POST', '/webhook-endpoints', {
      key: a.apiKey,
      body: { url: `http://127.0.0.1:${rxEndpoint.port}/we` },
    });
    expect(we.status).toBe(201);
    const listen = spawnCli(['listen', '--forward-to', `127.0.0.1:${rxListen.port}/hook`, ...against(a)]);
    try {
      await listen.waitFor('stderr', ready);
      const r = await runCli(['events', 'resend', e.id, ...against(a)]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(we.body.id); // the delivery's row
      expect(r.stdout).toMatch(/Resent to 1 webhook endpoint and 1 running listener \(`payorch listen`\)\.\n$/);
      await eventually(() => count(rxEndpoint.received, e.id) === 1 && count(rxListen.received, e.id) === 1);

      // named endpoint: a delivery to it, nothing queued for the listener
      const named = await runCli(['events', 'resend', e.id, '--webhook-endpoint', we.body.id, '--json', ...against(a)]);
      expect(named.code, named.stderr).toBe(0);
      expect(named.json()).toMatchObject({ listeners: 0, data: [{ webhook_endpoint: we.body.id, event: e.id }] });
      const namedText = await runCli(['events', 'resend', e.id, '--webhook-endpoint', we.body.id, ...against(a)]);
      expect(namedText.stdout).toContain(we.body.id);
      expect(namedText.stdout).not.toMatch(/listener/);
      await eventually(() => count(rxEndpoint.received, e.id) === 3);
      // behind them, a resend of another event to both: the listener got the first event once only
      expect((await runCli(['events', 'resend', marker.id, '--json', ...against(a)])).json()).toMatchObject({
        listeners: 1,
        data: [{ webhook_endpoint: we.body.id }],
      });
      await eventually(() => count(rxListen.received, marker.id) === 1 && count(rxEndpoint.received, marker.id) === 1);
      expect(idsOf(rxListen.received)).toEqual([e.id, marker.id]);
    } finally {
      expect(await listen.stop('SIGINT')).toEqual({ code: 0, signal: null });
      await rxEndpoint.close();
      await rxListen.close();
    }
  });

  it('a listener with --events is counted and reached only by resends of the types it shows', async () => {
    const a = await account();
    const e = await newEvent(a); // payment_session.created
    const rx = await receiver();
    const listen = spawnCli([
      'listen',
      '--events',
      'payment.*',
      '--forward-to',
      `127.0.0.1:${rx.port}/hook`,
      ...against(a),
    ]);
    try {
      await listen.waitFor('stderr', ready);
      const r = await runCli(['events', 'resend', e.id, ...against(a)]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(
        'No endpoint takes this event and no listener (`payorch listen`) is running: nothing was sent.\n',
      );
      // a payment event resent behind it arrives; the first never does
      const paid = await s.request('POST', '/test-helpers/trigger', {
        key: a.apiKey,
        body: { event_type: 'payment.captured' },
      });
      expect(paid.status).toBe(200);
      const captured = paid.body.events.find((x: { type: string }) => x.type === 'payment.captured').id as string;
      await eventually(() => idsOf(rx.received).includes(captured)); // recorded while it runs: forwarded as an event
      expect((await runCli(['events', 'resend', captured, '--json', ...against(a)])).json().listeners).toBe(1);
      await eventually(() => count(rx.received, captured) === 2);
      expect(idsOf(rx.received)).toEqual([captured, captured]);
      await listen.waitFor('stdout', (t) => /payment\.captured.*\(resent\)/.test(t));
    } finally {
      expect(await listen.stop('SIGINT')).toEqual({ code: 0, signal: null });
      await rx.close();
    }
  });

  it('works on the embedded default (each command its own process on the data directory)', async () => {
    const home = tempDir();
    const env = { PAYORCH_DAEMON: '0' };
    const made = await runCli(['sessions', 'create', '--amount', '700', '--currency', 'usd', '--json'], { home, env });
    expect(made.code, made.stderr).toBe(0);
    const listed = await runCli(['events', 'list', '--limit', '1', '--json'], { home, env });
    const e = listed.json().data[0];
    expect(e.data.object.id).toBe(made.json().id);
    const rx = await receiver();
    const listen = spawnCli(['listen', '--json', '--forward-to', `127.0.0.1:${rx.port}/hook`], { home, env });
    try {
      await listen.waitFor('stderr', ready);
      const r = await runCli(['events', 'resend', e.id], { home, env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('Resent to 0 webhook endpoints and 1 running listener (`payorch listen`).\n');
      await eventually(() => idsOf(rx.received).includes(e.id));
      await listen.waitFor('stdout', (t) => t.includes(e.id));
      expect(JSON.parse(listen.stdout().trim().split('\n')[0]!)).toEqual(e);
      expect(JSON.parse(rx.received[0]!.body)).toEqual(e);
    } finally {
      expect(await listen.stop('SIGINT')).toEqual({ code: 0, signal: null });
      await rx.close();
    }
    const after = await runCli(['events', 'resend', e.id], { home, env });
    expect(after.stdout).toContain('no listener (`payorch listen`) is running: nothing was sent');
  });
});

describe('a server without the listener routes (an older payorch)', () => {
  it('is followed as before: said once, events still arrive; events resend keeps its old sentence', async () => {
    const a = await account();
    // In front of the test server: the listener routes answer 404 route_not_found, and the resend's answer has no
    // `listeners` — as a server from before them answers.
    const upstream = new URL(s.baseUrl);
    const seen: string[] = [];
    const proxy = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (/\/event-listeners(\/|$|\?)/.test(req.url ?? '')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: {
              type: 'invalid_request_error',
              code: 'route_not_found',
              message: `Unrecognized request URL (${req.method}: ${req.url}).`,
              request_id: 'req_x',
            },
          }),
        );
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)) as [
            string,
            string,
          ][],
        );
        const r = await fetch(`${upstream.origin}${req.url}`, {
          method: req.method,
          headers,
          body: chunks.length ? Buffer.concat(chunks) : undefined,
        });
        let text = await r.text();
        if (/\/resend$/.test(req.url ?? '') && r.status === 200) {
          const { listeners: _gone, ...old } = JSON.parse(text);
          text = JSON.stringify(old);
        }
        res.writeHead(r.status, { 'content-type': 'application/json' });
        res.end(text);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const old = {
      baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${upstream.pathname}`,
      apiKey: a.apiKey,
    };
    const e = await newEvent(a);
    const listen = spawnCli(['listen', '--json', ...against(old)]);
    try {
      await listen.waitFor('stderr', ready);
      expect(listen.stderr()).toContain('This server does not queue resends for listeners');
      const r = await runCli(['events', 'resend', e.id, ...against(old)]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('No endpoint takes this event: nothing was sent.\n');
      const fresh = await newEvent(a);
      await listen.waitFor('stdout', (t) => t.includes(fresh.id));
      expect(
        listen
          .stdout()
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).id),
      ).toEqual([fresh.id]);
    } finally {
      expect(await listen.stop('SIGINT')).toEqual({ code: 0, signal: null });
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
    // asked once, then never again
    expect(seen.filter((x) => x.includes('/event-listeners'))).toEqual(['POST /functions/v1/event-listeners']);
    expect(listen.stderr().match(/does not queue resends/g)).toHaveLength(1);
  });
});

describe('the listener routes over HTTP', () => {
  const register = async (key: string) => {
    const r = await s.request('POST', '/event-listeners', { key, body: {} });
    expect(r.status).toBe(201);
    return r.body as { id: string; object: string; created: number; expires_at: string };
  };
  const renew = async (key: string, ...ls: { id: string }[]) => {
    for (const l of ls)
      expect((await s.request('POST', `/event-listeners/${l.id}`, { key, body: {} })).status).toBe(200);
  };
  const queue = async (key: string, id: string, q = '') =>
    s.request('GET', `/event-listeners/${id}/resends${q}`, { key });
  const resend = async (key: string, eventId: string, body: object = {}) => {
    const r = await s.request('POST', `/events/${eventId}/resend`, { key, body });
    expect(r.status).toBe(200);
    return r.body;
  };

  it('queues a resend once for each live listener of the account, never for another account’s or a later one', async () => {
    const a = await account();
    const b = await account();
    const e = await newEvent(a);
    const l1 = await register(a.apiKey);
    expect(l1).toMatchObject({ object: 'event_listener', enabled_events: ['*'] });
    expect(l1.id).toMatch(/^evl_/);
    expect(Date.parse(l1.expires_at) - Date.now()).toBeGreaterThan(5_000); // a lease of 20 s from now
    const l2 = await register(a.apiKey);
    const lb = await register(b.apiKey);

    const r = await resend(a.apiKey, e.id);
    // the answer keeps its shape (a list of the new deliveries) and says how many listeners
    expect(r).toEqual({
      object: 'list',
      data: [],
      has_more: false,
      total_count: 0,
      url: `/functions/v1/events/${e.id}/resend`,
      listeners: 2,
    });
    const event = (await s.request('GET', `/events/${e.id}`, { key: a.apiKey })).body;
    for (const l of [l1, l2]) {
      const q = await queue(a.apiKey, l.id);
      expect(q.status).toBe(200);
      expect(q.body).toMatchObject({ object: 'list', has_more: false, total_count: 1 });
      expect(q.body.data).toEqual([
        {
          id: expect.stringMatching(/^evr_/),
          object: 'event_resend',
          listener: l.id,
          created: expect.any(Number),
          event,
        },
      ]);
    }
    // another account: its listener gets nothing, and it cannot read, renew or delete A's
    expect((await queue(b.apiKey, lb.id)).body.total_count).toBe(0);
    for (const [method, path] of [
      ['GET', `/event-listeners/${l1.id}/resends`],
      ['POST', `/event-listeners/${l1.id}`],
      ['DELETE', `/event-listeners/${l1.id}`],
    ] as const) {
      const x = await s.request(method, path, { key: b.apiKey, body: method === 'POST' ? {} : undefined });
      expect(x.status, `${method} ${path}`).toBe(404);
      expect(x.body.error).toMatchObject({ code: 'resource_missing', param: 'listener_id' });
    }
    expect((await s.request('POST', `/events/${e.id}/resend`, { key: b.apiKey, body: {} })).status).toBe(404);

    // a listener registered after the resend: an empty queue; the next resend reaches all three (leases
    // renewed first, as a running listener does every 5 s: this test's pace does not decide)
    const l3 = await register(a.apiKey);
    expect((await queue(a.apiKey, l3.id)).body.total_count).toBe(0);
    await renew(a.apiKey, l1, l2);
    expect((await resend(a.apiKey, e.id)).listeners).toBe(3);
    expect((await queue(a.apiKey, l3.id)).body.total_count).toBe(1);
    const q1 = (await queue(a.apiKey, l1.id)).body;
    expect(q1.total_count).toBe(2);
    // cursors as in every list: after the older one, only the newer
    const [newer, older] = q1.data;
    expect(
      (await queue(a.apiKey, l1.id, `?ending_before=${older.id}`)).body.data.map((x: { id: string }) => x.id),
    ).toEqual([newer.id]);
    expect((await queue(a.apiKey, l1.id, `?ending_before=${newer.id}`)).body.data).toEqual([]);
    const unknown = await queue(a.apiKey, l1.id, `?ending_before=${(await queue(a.apiKey, l3.id)).body.data[0].id}`); // another listener's
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'resource_missing', param: 'ending_before' });

    // a listener that shows other types only is not counted, nor queued for
    const payments = await s.request('POST', '/event-listeners', {
      key: a.apiKey,
      body: { enabled_events: ['payment.*', 'refund.succeeded'] },
    });
    expect(payments.status).toBe(201);
    expect(payments.body.enabled_events).toEqual(['payment.*', 'refund.succeeded']);
    await renew(a.apiKey, l1, l2, l3);
    expect((await resend(a.apiKey, e.id)).listeners).toBe(3);
    expect((await queue(a.apiKey, payments.body.id)).body.total_count).toBe(0);
    await s.request('DELETE', `/event-listeners/${payments.body.id}`, { key: a.apiKey });
    const typo = await s.request('POST', '/event-listeners', {
      key: a.apiKey,
      body: { enabled_events: ['payment.captred'] },
    });
    expect(typo.status).toBe(400);
    expect(typo.body.error).toMatchObject({ code: 'parameter_invalid', param: 'enabled_events' });
    // a named endpoint: no listener
    const we = await s.request('POST', '/webhook-endpoints', {
      key: a.apiKey,
      body: { url: 'http://127.0.0.1:9/we', enabled: true },
    });
    const named = await resend(a.apiKey, e.id, { webhook_endpoint: we.body.id });
    expect(named).toMatchObject({ total_count: 1, listeners: 0 });
    expect((await queue(a.apiKey, l1.id)).body.total_count).toBe(3); // as before the named resend
    // a deleted listener: gone with its queue, and no longer counted
    expect((await s.request('DELETE', `/event-listeners/${l3.id}`, { key: a.apiKey })).body).toEqual({
      id: l3.id,
      object: 'event_listener',
      deleted: true,
    });
    expect((await queue(a.apiKey, l3.id)).status).toBe(404);
    await s.request('DELETE', `/webhook-endpoints/${we.body.id}`, { key: a.apiKey });
    await renew(a.apiKey, l1, l2);
    expect((await resend(a.apiKey, e.id)).listeners).toBe(2);
  });

  it.runIf(onSqlite)(
    'a lapsed lease is not counted and gets nothing until renewed; renewals and queue reads stay out of the request log',
    async () => {
      const a = await account();
      const e = await newEvent(a);
      const l = await register(a.apiKey);
      // the lease runs on the server's wall clock: move its last renewal a minute back
      sqliteOf(s).db.prepare('UPDATE event_listeners SET seen_ms = seen_ms - 60000 WHERE id = ?').run(l.id);
      expect((await resend(a.apiKey, e.id)).listeners).toBe(0);
      expect((await queue(a.apiKey, l.id)).body.total_count).toBe(0);
      const renewed = await s.request('POST', `/event-listeners/${l.id}`, { key: a.apiKey, body: {} });
      expect(renewed.status).toBe(200);
      expect(renewed.body).toMatchObject({ id: l.id, object: 'event_listener', created: l.created });
      expect(Date.parse(renewed.body.expires_at)).toBeGreaterThan(Date.now());
      expect((await resend(a.apiKey, e.id)).listeners).toBe(1);
      expect((await queue(a.apiKey, l.id)).body.total_count).toBe(1);
      expect((await s.request('POST', '/event-listeners/evl_nope', { key: a.apiKey, body: {} })).status).toBe(404);

      const log = (await s.request('GET', '/request-log?limit=100', { key: a.apiKey })).body.data.map(
        (x: { method: string; path: string }) => `${x.method} ${x.path}`,
      );
      expect(log).toContain('POST /event-listeners');
      expect(log).not.toContain(`POST /event-listeners/${l.id}`);
      expect(log).not.toContain(`GET /event-listeners/${l.id}/resends`);
    },
  );

  it.runIf(onSqlite)(
    'keeps resends 30 days on the account’s clock (due work event_resends.retention), and a lease is not ended by the test clock',
    async () => {
      const a = await account();
      const b = await account();
      const ea = await newEvent(a);
      const eb = await newEvent(b);
      const la = await register(a.apiKey);
      const lb = await register(b.apiKey);
      await renew(a.apiKey, la);
      expect((await resend(a.apiKey, ea.id)).listeners).toBe(1);
      await renew(b.apiKey, lb);
      expect((await resend(b.apiKey, eb.id)).listeners).toBe(1);
      const rows = (acct: 'a' | 'b') =>
        (
          sqliteOf(s)
            .db.prepare('SELECT COUNT(*) AS n FROM event_resends WHERE listener = ?')
            .get(acct === 'a' ? la.id : lb.id) as { n: number }
        ).n;

      const at29 = await s.request('POST', '/test-helpers/advance-clock', {
        key: a.apiKey,
        body: { seconds: 29 * 86_400 },
      });
      expect(at29.status).toBe(200);
      expect(at29.body.ran.filter((x: { name: string }) => x.name === 'event_resends.retention')).toEqual([]);
      expect(rows('a')).toBe(1);
      const e2 = await newEvent(a);
      await renew(a.apiKey, la);
      expect((await resend(a.apiKey, e2.id)).listeners).toBe(1); // a month of test clock later, still running
      const at31 = await s.request('POST', '/test-helpers/advance-clock', {
        key: a.apiKey,
        body: { seconds: 2 * 86_400 },
      });
      expect(at31.status).toBe(200);
      expect(
        at31.body.ran
          .filter((x: { name: string }) => x.name === 'event_resends.retention')
          .reduce((n: number, x: { count: number }) => n + x.count, 0),
      ).toBe(1);
      expect(rows('a')).toBe(1); // the 2-day-old one stays
      const left = (await queue(a.apiKey, la.id)).body;
      expect(left.data.map((x: { event: { id: string } }) => x.event.id)).toEqual([e2.id]);
      // B's clock did not move: B's resend stays
      expect(rows('b')).toBe(1);
      expect((await queue(b.apiKey, lb.id)).body.data.map((x: { event: { id: string } }) => x.event.id)).toEqual([
        eb.id,
      ]);
    },
  );
});
