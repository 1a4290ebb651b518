// Webhook endpoints and signed deliveries over real HTTP: a real local receiver gets each event its endpoint
// wants, in event order, signed so that verifyWebhook accepts it; filters, disabled endpoints, resend, secret
// reveal and roll, tenancy, and secrets that never reach the server's log.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookSignatureError } from '../../dist/webhooks.js';
import { signatureHeader } from '../../dist/lib/webhooks/signature.js';
import { ALL_VERIFY, noneVerify, verifications } from './verifiers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { confirm, expectError, newSession } from '../payments/util.js';
import { startReceiver, until, type Receiver } from './receiver.js';

let s: TestServer;
let all: Receiver;
let captured: Receiver;
let off: Receiver;
beforeAll(async () => {
  s = await startTestServer();
  [all, captured, off] = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
});
afterAll(async () => {
  await s.close();
  await Promise.all([all.close(), captured.close(), off.close()]);
});

async function endpoint(body: Record<string, unknown>, key?: string) {
  const r = await s.request('POST', '/webhook-endpoints', { body, key });
  expect(r.status, r.text).toBe(201);
  return r.body as { id: string; secret: string; [k: string]: unknown };
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookSignatureError);
    return (err as WebhookSignatureError).code;
  }
  return undefined;
}

describe('deliveries to a real receiver', () => {
  let weAll: { id: string; secret: string };
  let weCaptured: { id: string; secret: string };
  let weOff: { id: string; secret: string };
  let eventIds: string[];
  /** the payment.captured event: both the everything endpoint and the captured-only one want it */
  let capturedEventId: string;

  it('sends each event an enabled endpoint wants, in event order, signed; a disabled endpoint gets nothing', async () => {
    weAll = await endpoint({ url: all.url, description: 'everything' });
    expect(weAll).toMatchObject({
      object: 'webhook_endpoint',
      url: all.url,
      enabled_events: ['*'],
      enabled: true,
      description: 'everything',
      metadata: {},
      livemode: false,
    });
    expect(weAll.id).toMatch(/^we_/);
    expect(weAll.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    weCaptured = await endpoint({ url: captured.url, enabled_events: ['payment.captured'] });
    weOff = await endpoint({ url: off.url, enabled: false });

    const session = await newSession(s, { amount: 1234 });
    const paid = await confirm(s, session, { payment_method_type: 'card', token_id: 'tok_visa' });
    expect(paid.status).toBe(200);

    // every event the log has (the account had none before the endpoints), in the log's order (GET /events is newest
    // first)
    const log = (await s.request('GET', `/events?limit=100`)).body.data.map((e: { id: string }) => e.id).reverse();
    const got = await all.waitFor(log.length);
    const events = got.map((r) => verifyWebhook(r.body, r.headers['x-payorch-signature'] as string, weAll.secret));
    eventIds = events.map((e) => e.id);
    expect(eventIds).toEqual(log);
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t.startsWith('payment'))).toEqual([
      'payment_session.created',
      'payment.captured',
      'payment_session.succeeded',
    ]);
    expect(types[0]).toBe('payment_session.created');
    capturedEventId = events.find((e) => e.type === 'payment.captured')!.id;
    for (const [i, r] of got.entries()) {
      // both header sets, one secret: Standard Webhooks' library and verifyWebhook accept every delivery
      expect(verifications(r.body, r.headers, weAll.secret)).toEqual(ALL_VERIFY);
      expect(r.headers['webhook-timestamp']).toBe(/t=(\d+)/.exec(String(r.headers['x-payorch-signature']))![1]);
      expect(r.headers['x-payorch-event-id']).toBe(events[i]!.id);
      expect(r.headers['x-payorch-event-type']).toBe(events[i]!.type);
      expect(r.headers['x-payorch-test-mode']).toBe('true');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['user-agent']).toMatch(/^payorch\/\d+\.\d+\.\d+/);
      expect(r.url).toBe('/webhooks');
      expect(r.body).toBe(JSON.stringify((await s.request('GET', `/events/${events[i]!.id}`)).body));
    }

    const [c] = await captured.waitFor(1);
    expect(verifyWebhook(c!.body, c!.headers['x-payorch-signature'] as string, weCaptured.secret).type).toBe(
      'payment.captured',
    );
    expect(verifications(c!.body, c!.headers, weCaptured.secret)).toEqual(ALL_VERIFY);
    // one secret per endpoint: another endpoint's secret does not verify
    expect(noneVerify(c!.body, c!.headers, weAll.secret)).toBe(true);
    expect(codeOf(() => verifyWebhook(c!.body, c!.headers['x-payorch-signature'] as string, weAll.secret))).toBe(
      'signature_mismatch',
    );

    // The dispatcher moves every endpoint's cursor in one transaction, so once `all` has the last event the
    // disabled endpoint has been passed over for all three: no delivery rows, no requests.
    const offDeliveries = await s.request('GET', `/webhook-endpoints/${weOff.id}/deliveries`);
    expect(offDeliveries.body.total_count).toBe(0);
    expect(off.received).toHaveLength(0);
    expect(captured.received).toHaveLength(1);
  });

  it('verifyWebhook rejects a tampered body, a wrong secret, an old timestamp, and a missing or malformed header', () => {
    const r = all.received[0]!;
    const header = r.headers['x-payorch-signature'] as string;
    const t = Number(/t=(\d+)/.exec(header)![1]);
    expect(verifyWebhook(Buffer.from(r.body), header, weAll.secret, { now: () => t + 300 }).id).toBe(eventIds[0]);
    expect(codeOf(() => verifyWebhook(r.body.replace('"amount":1234', '"amount":9999'), header, weAll.secret))).toBe(
      'signature_mismatch',
    );
    expect(codeOf(() => verifyWebhook(r.body + ' ', header, weAll.secret))).toBe('signature_mismatch');
    expect(codeOf(() => verifyWebhook(r.body, header, `${weAll.secret}x`))).toBe('signature_mismatch');
    expect(codeOf(() => verifyWebhook(r.body, header, weAll.secret, { now: () => t + 301 }))).toBe(
      'timestamp_outside_tolerance',
    );
    expect(codeOf(() => verifyWebhook(r.body, header, weAll.secret, { now: () => t - 301 }))).toBe(
      'timestamp_outside_tolerance',
    );
    expect(
      codeOf(() => verifyWebhook(r.body, header, weAll.secret, { now: () => t + 1000, toleranceSeconds: 2000 })),
    ).toBeUndefined();
    // a replay with a fresh timestamp but the old signature
    expect(codeOf(() => verifyWebhook(r.body, header.replace(/t=\d+/, `t=${t + 1}`), weAll.secret))).toBe(
      'signature_mismatch',
    );
    expect(codeOf(() => verifyWebhook(r.body, undefined, weAll.secret))).toBe('missing_header');
    expect(codeOf(() => verifyWebhook(r.body, '', weAll.secret))).toBe('missing_header');
    // the header's value as Node types it: a string or an array of them
    expect(verifyWebhook(r.body, [header], weAll.secret, { now: t }).id).toBe(eventIds[0]);
    expect(codeOf(() => verifyWebhook(r.body, [], weAll.secret))).toBe('missing_header');
    expect(codeOf(() => verifyWebhook(r.body, 'sha256=abc', weAll.secret))).toBe('malformed_header');
    expect(codeOf(() => verifyWebhook(r.body, `t=${t}`, weAll.secret))).toBe('malformed_header');
    expect(codeOf(() => verifyWebhook(r.body, `t=${t},v1=${'0'.repeat(63)}`, weAll.secret))).toBe('malformed_header');
    const now = Math.floor(Date.now() / 1000);
    expect(codeOf(() => verifyWebhook('not json', signatureHeader('not json', weAll.secret, now), weAll.secret))).toBe(
      'invalid_payload',
    );
    expect(
      codeOf(() => verifyWebhook('{"id":"x"}', signatureHeader('{"id":"x"}', weAll.secret, now), weAll.secret)),
    ).toBe('invalid_payload');
  });

  it('verifyWebhook checks Standard Webhooks headers as strictly: body, secret, id, timestamp, tolerance, form', () => {
    const r = all.received[0]!;
    const std = {
      'Webhook-Id': String(r.headers['webhook-id']),
      'Webhook-Timestamp': String(r.headers['webhook-timestamp']),
      'Webhook-Signature': String(r.headers['webhook-signature']),
    };
    const t = Number(std['Webhook-Timestamp']);
    // any case of the names; a Fetch Headers too
    expect(verifyWebhook(r.body, std, weAll.secret, { now: t + 300 }).id).toBe(eventIds[0]);
    expect(verifyWebhook(Buffer.from(r.body), new Headers(std), weAll.secret, { now: t - 300 }).id).toBe(eventIds[0]);
    const code = (h: Record<string, string>, body = r.body, secret = weAll.secret, now = t) =>
      codeOf(() => verifyWebhook(body, h, secret, { now }));
    expect(code(std, r.body + ' ')).toBe('signature_mismatch');
    expect(code(std, r.body, `${weAll.secret.slice(0, -4)}AAAA`)).toBe('signature_mismatch');
    expect(code({ ...std, 'Webhook-Id': 'evt_other' })).toBe('signature_mismatch');
    expect(code({ ...std, 'Webhook-Timestamp': String(t + 1) }, r.body, weAll.secret, t + 1)).toBe(
      'signature_mismatch',
    );
    expect(code(std, r.body, weAll.secret, t + 301)).toBe('timestamp_outside_tolerance');
    expect(code(std, r.body, weAll.secret, t - 301)).toBe('timestamp_outside_tolerance');
    expect(code({})).toBe('missing_header');
    expect(code({ 'Webhook-Id': std['Webhook-Id'], 'Webhook-Signature': std['Webhook-Signature'] })).toBe(
      'malformed_header',
    );
    expect(code({ ...std, 'Webhook-Timestamp': 'yesterday' })).toBe('malformed_header');
    expect(code({ ...std, 'Webhook-Signature': std['Webhook-Signature'].replace('v1,', 'v2,') })).toBe(
      'malformed_header',
    );
    // the X-Payorch-Signature header, when there, is the one checked
    expect(code({ ...std, 'x-payorch-signature': `t=${t},v1=${'0'.repeat(64)}` })).toBe('signature_mismatch');
  });

  it('logs each delivery on its event and its endpoint (filter: status)', async () => {
    const d = await s.request('GET', `/events/${capturedEventId}/deliveries`);
    expect(d.status).toBe(200);
    expect(d.body.total_count).toBe(2);
    const mine = d.body.data.find((x: { webhook_endpoint: string }) => x.webhook_endpoint === weAll.id);
    expect(mine).toMatchObject({
      object: 'webhook_delivery',
      event: capturedEventId,
      event_type: 'payment.captured',
      url: all.url,
      status: 'succeeded',
      attempts: 1,
      next_attempt_at: null,
      last_response_code: 200,
      last_error: null,
    });
    expect(mine.id).toMatch(/^whd_/);
    expect(Date.parse(mine.delivered_at)).toBeGreaterThanOrEqual(Date.parse(mine.created_at));
    const byEndpoint = await s.request('GET', `/webhook-endpoints/${weAll.id}/deliveries?status=succeeded&limit=2`);
    expect(byEndpoint.body).toMatchObject({ total_count: eventIds.length, has_more: true });
    expect((await s.request('GET', `/webhook-endpoints/${weAll.id}/deliveries?status=failed`)).body.total_count).toBe(
      0,
    );
    expectError(
      await s.request('GET', `/webhook-endpoints/${weAll.id}/deliveries?status=lost`),
      400,
      'validation_error',
      'parameter_invalid',
    );
    expectError(
      await s.request('GET', '/events/evt_nope/deliveries'),
      404,
      'invalid_request_error',
      'resource_missing',
    );
  });

  it('resends an event: the same event id again (receivers dedupe by it), to every matching endpoint or the one named', async () => {
    const before = all.received.length;
    const r = await s.request('POST', `/events/${capturedEventId}/resend`, { body: {} });
    expect(r.status).toBe(200);
    expect(r.body.data.map((d: { webhook_endpoint: string }) => d.webhook_endpoint).sort()).toEqual(
      [weAll.id, weCaptured.id].sort(),
    );
    expect(
      r.body.data.every((d: { status: string; attempts: number }) => d.status === 'pending' && d.attempts === 0),
    ).toBe(true);
    const again = (await all.waitFor(before + 1))[before]!;
    expect(again.headers['x-payorch-event-id']).toBe(capturedEventId);
    await captured.waitFor(2);
    // named: sent whatever its enabled_events say; a disabled one is refused; an unknown one is 404
    const named = await s.request('POST', `/events/${eventIds[0]}/resend`, {
      body: { webhook_endpoint: weCaptured.id },
    });
    expect(named.body.data.map((d: { webhook_endpoint: string }) => d.webhook_endpoint)).toEqual([weCaptured.id]);
    expect((await captured.waitFor(3))[2]!.headers['x-payorch-event-type']).toBe('payment_session.created');
    expectError(
      await s.request('POST', `/events/${eventIds[0]}/resend`, { body: { webhook_endpoint: weOff.id } }),
      409,
      'invalid_request_error',
      'webhook_endpoint_unexpected_state',
    );
    expectError(
      await s.request('POST', `/events/${eventIds[0]}/resend`, { body: { webhook_endpoint: 'we_nope' } }),
      404,
      'invalid_request_error',
      'resource_missing',
      'webhook_endpoint',
    );
    expectError(
      await s.request('POST', '/events/evt_nope/resend', { body: {} }),
      404,
      'invalid_request_error',
      'resource_missing',
    );
    expect(off.received).toHaveLength(0);
  });

  it('enabling an endpoint again sends events from then on; a PATCH changes its filter', async () => {
    const p = await s.request('PATCH', `/webhook-endpoints/${weOff.id}`, {
      body: { enabled: true, enabled_events: ['payment_session.created'], metadata: { team: 'a' } },
    });
    expect(p.body).toMatchObject({
      enabled: true,
      enabled_events: ['payment_session.created'],
      metadata: { team: 'a' },
    });
    expect(p.body.secret).toBeUndefined();
    const session = await newSession(s);
    const [r] = await off.waitFor(1);
    const e = verifyWebhook(r!.body, r!.headers['x-payorch-signature'] as string, weOff.secret);
    expect(e).toMatchObject({ type: 'payment_session.created', data: { object: { id: session.id } } });
  });

  it('reveals and rolls the secret; a rolled secret with an expiry keeps signing too, one without stops at once', async () => {
    const reveal = await s.request('GET', `/webhook-endpoints/${weAll.id}/secret`);
    expect(reveal.body).toEqual({
      object: 'webhook_endpoint_secret',
      webhook_endpoint: weAll.id,
      secret: weAll.secret,
    });
    const rolled = await s.request('POST', `/webhook-endpoints/${weAll.id}/roll-secret`, {
      body: { expires_in_seconds: 3600 },
    });
    expect(rolled.status).toBe(200);
    expect(rolled.body.secret).toMatch(/^whsec_/);
    expect(rolled.body.secret).not.toBe(weAll.secret);
    let n = all.received.length;
    await newSession(s);
    let r = (await all.waitFor(n + 1))[n]!;
    let header = r.headers['x-payorch-signature'] as string;
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(String(r.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifications(r.body, r.headers, rolled.body.secret)).toEqual(ALL_VERIFY);
    expect(verifications(r.body, r.headers, weAll.secret)).toEqual(ALL_VERIFY);
    expect(verifyWebhook(r.body, header, rolled.body.secret).type).toBe('payment_session.created');
    expect(verifyWebhook(r.body, header, weAll.secret).type).toBe('payment_session.created');

    const rolledAgain = await s.request('POST', `/webhook-endpoints/${weAll.id}/roll-secret`, { body: {} });
    n = all.received.length;
    await newSession(s);
    r = (await all.waitFor(n + 1))[n]!;
    header = r.headers['x-payorch-signature'] as string;
    // the first secret still has its hour; the second stopped at once
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(verifyWebhook(r.body, header, rolledAgain.body.secret).id).toBeTruthy();
    expect(verifyWebhook(r.body, header, weAll.secret).id).toBeTruthy();
    expect(codeOf(() => verifyWebhook(r.body, header, rolled.body.secret))).toBe('signature_mismatch');
    expect(verifications(r.body, r.headers, rolledAgain.body.secret)).toEqual(ALL_VERIFY);
    expect(verifications(r.body, r.headers, weAll.secret)).toEqual(ALL_VERIFY);
    expect(noneVerify(r.body, r.headers, rolled.body.secret)).toBe(true);
    expect((await s.request('GET', `/webhook-endpoints/${weAll.id}/secret`)).body.secret).toBe(rolledAgain.body.secret);
    expectError(
      await s.request('POST', `/webhook-endpoints/${weAll.id}/roll-secret`, { body: { expires_in_seconds: 86401 } }),
      400,
      'validation_error',
      'parameter_invalid',
    );
  });

  it('shows the secret only in create, reveal and roll answers: never in a get, a list or an event', async () => {
    const get = await s.request('GET', `/webhook-endpoints/${weAll.id}`);
    const list = await s.request('GET', '/webhook-endpoints');
    const events = await s.request('GET', '/events?limit=100');
    for (const r of [get, list, events]) {
      expect(r.status).toBe(200);
      expect(r.text).not.toMatch(/whsec_|secret_sealed|"secret"/);
    }
    expect(list.body.total_count).toBe(3);
  });

  it('refuses bad input with the contract’s errors', async () => {
    expectError(
      await s.request('POST', '/webhook-endpoints', { body: { url: 'ftp://x.test/' } }),
      400,
      'validation_error',
      'parameter_invalid',
      'url',
    );
    expectError(
      await s.request('POST', '/webhook-endpoints', { body: { url: 'http://user:pw@x.test/' } }),
      400,
      'validation_error',
      'parameter_invalid',
      'url',
    );
    // a control character would be dropped or percent-encoded by the URL parser: the URL stored would not be the one
    // used
    for (const url of ['http://x.test/a\u0000', 'http://x.test/\u001bb', 'http://x.test/\u007f']) {
      expectError(
        await s.request('POST', '/webhook-endpoints', { body: { url } }),
        400,
        'validation_error',
        'parameter_invalid',
        'url',
      );
    }
    expectError(
      await s.request('POST', '/webhook-endpoints', { body: {} }),
      400,
      'validation_error',
      'parameter_missing',
      'url',
    );
    expectError(
      await s.request('POST', '/webhook-endpoints', { body: { url: all.url, enabled_events: ['payment.capturd'] } }),
      400,
      'validation_error',
      'parameter_invalid',
      'enabled_events',
    );
    expectError(
      await s.request('POST', '/webhook-endpoints', { body: { url: all.url, enabled_events: [] } }),
      400,
      'validation_error',
      'parameter_invalid',
    );
    expectError(
      await s.request('POST', '/webhook-endpoints', { body: { url: all.url, secret: 'whsec_mine' } }),
      400,
      'validation_error',
      'parameter_unknown',
      'secret',
    );
    expectError(await s.request('GET', '/webhook-endpoints/we_nope'), 404, 'invalid_request_error', 'resource_missing');
  });

  it("another account sees none of this account's endpoints, secrets or deliveries", async () => {
    const keyB = (await s.server.services.accounts.createAccountWithKey()).api_key;
    const as = { key: keyB };
    expect((await s.request('GET', '/webhook-endpoints', as)).body.total_count).toBe(0);
    for (const [method, path, body] of [
      ['GET', `/webhook-endpoints/${weAll.id}`],
      ['PATCH', `/webhook-endpoints/${weAll.id}`, { enabled: false }],
      ['DELETE', `/webhook-endpoints/${weAll.id}`],
      ['GET', `/webhook-endpoints/${weAll.id}/secret`],
      ['POST', `/webhook-endpoints/${weAll.id}/roll-secret`, {}],
      ['GET', `/webhook-endpoints/${weAll.id}/deliveries`],
      ['GET', `/events/${eventIds[0]}/deliveries`],
      ['POST', `/events/${eventIds[0]}/resend`, {}],
    ] as const) {
      const r = await s.request(method, path, { ...as, body });
      expectError(r, 404, 'invalid_request_error', 'resource_missing');
      expect(r.text).not.toContain('whsec_');
    }
    // B's own events go to B's endpoints only
    const rxB = await startReceiver();
    try {
      const weB = await endpoint({ url: rxB.url }, keyB);
      const nAll = all.received.length;
      const r = await s.request('POST', '/create-session', { body: { amount: 100, currency: 'usd' }, key: keyB });
      expect(r.status).toBe(201);
      const [got] = await rxB.waitFor(1);
      expect(verifyWebhook(got!.body, got!.headers['x-payorch-signature'] as string, weB.secret).data.object.id).toBe(
        r.body.id,
      );
      // A's endpoint has looked past B's event (cursors move together) and sent nothing for it
      const mine = await s.request('GET', `/webhook-endpoints/${weAll.id}/deliveries?limit=100`);
      expect(mine.body.data.some((d: { event: string }) => d.event === got!.headers['x-payorch-event-id'])).toBe(false);
      expect(all.received.length).toBe(nAll);
    } finally {
      await rxB.close();
    }
  });

  it('deleting an endpoint stops its deliveries and gives up its pending ones', async () => {
    const hang = await startReceiver('hang');
    try {
      const we = await endpoint({ url: hang.url });
      const first = await newSession(s);
      await newSession(s);
      const [inFlight] = await hang.waitFor(1); // the first is in flight (one at a time per endpoint); the second waits
      // a new endpoint gets the events recorded after its creation, not the account's earlier ones
      expect(JSON.parse(inFlight!.body)).toMatchObject({
        type: 'payment_session.created',
        data: { object: { id: first.id } },
      });
      await until(
        async () =>
          (await s.request('GET', `/webhook-endpoints/${we.id}/deliveries`)).body.total_count === 2 ? true : undefined,
        'both deliveries recorded',
      );
      const del = await s.request('DELETE', `/webhook-endpoints/${we.id}`);
      expect(del.body).toEqual({ id: we.id, object: 'webhook_endpoint', deleted: true });
      expectError(
        await s.request('GET', `/webhook-endpoints/${we.id}`),
        404,
        'invalid_request_error',
        'resource_missing',
      );
      const events = (await s.request('GET', '/events?type=payment_session.created&limit=2')).body.data;
      for (const e of events) {
        const d = (await s.request('GET', `/events/${e.id}/deliveries`)).body.data.find(
          (x: { webhook_endpoint: string }) => x.webhook_endpoint === we.id,
        );
        expect(d).toMatchObject({ status: 'failed', next_attempt_at: null });
        expect(d.last_error).toMatch(/deleted/);
      }
    } finally {
      await hang.close();
    }
  });
});

describe('secrets and the server log', () => {
  it('never writes a signing secret to the log file, through create, reveal, roll, deliveries and errors', async () => {
    const t = await startTestServer();
    const rx = await startReceiver(500);
    const secrets: string[] = [];
    try {
      const we = await t.request('POST', '/webhook-endpoints', { body: { url: rx.url } });
      secrets.push(we.body.secret);
      secrets.push((await t.request('GET', `/webhook-endpoints/${we.body.id}/secret`)).body.secret);
      secrets.push(
        (await t.request('POST', `/webhook-endpoints/${we.body.id}/roll-secret`, { body: { expires_in_seconds: 60 } }))
          .body.secret,
      );
      await t.request('POST', '/webhook-endpoints', { body: { url: rx.url, enabled_events: ['nope.*'] } });
      await t.request('POST', '/create-session', { body: { amount: 100, currency: 'usd' } });
      await rx.waitFor(1);
    } finally {
      await t.close();
      await rx.close();
    }
    const log = readFileSync(join(t.dataDir!, 'server.log'), 'utf8');
    expect(log).toContain('/webhook-endpoints'); // the requests are in it…
    for (const secret of secrets) expect(log).not.toContain(secret); // …their secrets are not
    expect(log).not.toContain('whsec_');
  });
});
