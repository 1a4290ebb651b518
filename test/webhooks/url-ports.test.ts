// A URL the server will later connect to, or send a browser to, names a port from 1 to 65535 when it names one
// (docs/api.md "Errors" and "Webhook endpoints"). Port 0 used to be accepted for a webhook endpoint, and its
// deliveries went to port 80 (Node's http client takes port 0 as "the default port"). The port is read as the URL
// parser reads it, the parser deliveries use too: `:080` is port 80, `:00` is port 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, sqliteOf } from '../helpers/server.js';
import { expectError, newSession } from '../payments/util.js';
import { customer, ok, product } from '../billing/helpers.js';
import { startReceiver, until, type Receiver } from './receiver.js';
import { onSqlite } from '../helpers/engine.js';

let s: TestServer;
let rx: Receiver;
beforeAll(async () => {
  s = await startTestServer();
  rx = await startReceiver();
});
afterAll(async () => {
  await s.close();
  await rx.close();
});

/** Ports outside 1–65535, written as a client might. */
const BAD = [
  'http://127.0.0.1:0/zero',
  'http://127.0.0.1:00/zero',
  'https://hooks.example.test:0000/',
  'http://[::1]:0/v6',
  'http://127.0.0.1:65536/over',
  'http://127.0.0.1:99999/over',
  'https://hooks.example.test:0100000/',
];

describe('webhook endpoint url: a port from 1 to 65535', () => {
  it('create: a port outside 1–65535 is 400 parameter_invalid on url, and nothing is created', async () => {
    for (const url of BAD) {
      const r = await s.request('POST', '/webhook-endpoints', { body: { url } });
      expectError(r, 400, 'validation_error', 'parameter_invalid', 'url');
      expect(r.body.error.message, url).toMatch(/port/);
    }
    expect((await s.request('GET', '/webhook-endpoints')).body.data).toEqual([]);
  });

  it('update: a port outside 1–65535 is 400 parameter_invalid on url, and the stored url is kept', async () => {
    const we = await s.request('POST', '/webhook-endpoints', { body: { url: rx.url, enabled: false } });
    expect(we.status, we.text).toBe(201);
    for (const url of BAD) {
      const r = await s.request('PATCH', `/webhook-endpoints/${we.body.id}`, { body: { url } });
      expectError(r, 400, 'validation_error', 'parameter_invalid', 'url');
      expect(r.body.error.message, url).toMatch(/port/);
    }
    expect((await s.request('GET', `/webhook-endpoints/${we.body.id}`)).body.url).toBe(rx.url);
    expect((await s.request('DELETE', `/webhook-endpoints/${we.body.id}`)).status).toBe(200);
  });

  it('ports 1 and 65535, a default port written out, and leading zeros are accepted, stored as given', async () => {
    for (const url of [
      'http://127.0.0.1:1/a',
      'https://hooks.example.test:65535/b',
      'http://hooks.example.test:080/c',
      'https://hooks.example.test:443/d',
      'http://hooks.example.test:/e',
    ]) {
      const created = await s.request('POST', '/webhook-endpoints', { body: { url, enabled: false } });
      expect(created.status, `${url}: ${created.text}`).toBe(201);
      expect(created.body.url).toBe(url);
      const patched = await s.request('PATCH', `/webhook-endpoints/${created.body.id}`, { body: { url } });
      expect(patched.status, `${url}: ${patched.text}`).toBe(200);
      expect((await s.request('DELETE', `/webhook-endpoints/${created.body.id}`)).status).toBe(200);
    }
  });

  it('the port a delivery goes to is the port the check read: `:0<port>` delivers to <port>', async () => {
    const url = `http://127.0.0.1:0${rx.port}/leading-zero`;
    const we = await s.request('POST', '/webhook-endpoints', {
      body: { url, enabled_events: ['payment_session.created'] },
    });
    expect(we.status, we.text).toBe(201);
    const session = await newSession(s);
    const [got] = await rx.waitFor(1);
    expect(got!.url).toBe('/leading-zero');
    expect(got!.headers['x-payorch-event-type']).toBe('payment_session.created');
    expect(JSON.parse(got!.body).data.object.id).toBe(session.id);
    const delivery = await until(async () => {
      const list = (await s.request('GET', `/webhook-endpoints/${we.body.id}/deliveries`)).body.data;
      return list[0]?.status === 'succeeded' ? list[0] : undefined;
    }, 'the delivery succeeded');
    expect(delivery.url).toBe(url);
    expect((await s.request('DELETE', `/webhook-endpoints/${we.body.id}`)).status).toBe(200);
  });
});

describe('the other URLs the server follows later take the same rule', () => {
  it('success_url, return_url and cancel_url of a payment session; of a checkout session; a portal return_url; a wallet validation_url', async () => {
    const price = await ok(s, 'POST', '/prices', {
      product: (await product(s, 'Mug')).id,
      currency: 'usd',
      unit_amount: 500,
    });
    const cus = await customer(s);
    const wallet = await newSession(s, { payment_method_types: ['card', 'walletone_pay'] });
    for (const port of ['0', '00', '65536']) {
      const bad = `https://shop.example.test:${port}/back`;
      const cases: [string, string, Record<string, unknown>, string][] = [
        ['POST', '/create-session', { amount: 100, currency: 'usd', success_url: bad }, 'success_url'],
        ['POST', '/create-session', { amount: 100, currency: 'usd', return_url: bad }, 'return_url'],
        ['POST', '/create-session', { amount: 100, currency: 'usd', cancel_url: bad }, 'cancel_url'],
        [
          'POST',
          '/checkout-sessions',
          { mode: 'payment', line_items: [{ price: price.id }], success_url: bad },
          'success_url',
        ],
        [
          'POST',
          '/checkout-sessions',
          { mode: 'payment', line_items: [{ price: price.id }], cancel_url: bad },
          'cancel_url',
        ],
        ['POST', '/portal-sessions', { customer: cus.id, return_url: bad }, 'return_url'],
        [
          'POST',
          '/walletone-pay-validate-merchant',
          { validation_url: bad, domain: 'shop.example.test', session_id: wallet.id },
          'validation_url',
        ],
      ];
      for (const [method, path, body, param] of cases) {
        const r = await s.request(method, path, { body });
        expectError(r, 400, 'validation_error', 'parameter_invalid', param);
        expect(r.body.error.message, `${path} ${param} ${bad}`).toMatch(/port/);
      }
    }
    // in range: accepted as given
    const good = 'https://shop.example.test:8443/back';
    expect(
      (
        await ok(
          s,
          'POST',
          '/create-session',
          { amount: 100, currency: 'usd', success_url: good, cancel_url: good },
          201,
        )
      ).success_url,
    ).toBe(good);
    expect(
      (
        await ok(
          s,
          'POST',
          '/checkout-sessions',
          { mode: 'payment', line_items: [{ price: price.id }], success_url: good },
          201,
        )
      ).success_url,
    ).toBe(good);
    expect((await ok(s, 'POST', '/portal-sessions', { customer: cus.id, return_url: good }, 201)).return_url).toBe(
      good,
    );
  });
});

describe('an endpoint saved with port 0 before it was refused', () => {
  it.runIf(onSqlite)('is not sent to the default port: each attempt fails saying why', async () => {
    const we = (
      await s.request('POST', '/webhook-endpoints', { body: { url: rx.url, enabled_events: ['customer.created'] } })
    ).body;
    // as an older version stored it
    const db = sqliteOf(s).db;
    const row = db.prepare('SELECT data FROM webhook_endpoints WHERE id = ?').get(we.id) as { data: string };
    db.prepare('UPDATE webhook_endpoints SET data = ? WHERE id = ?').run(
      JSON.stringify({ ...JSON.parse(row.data), url: 'http://127.0.0.1:0/zero' }),
      we.id,
    );
    await customer(s);
    const d = await until(async () => {
      const first = (await s.request('GET', `/webhook-endpoints/${we.id}/deliveries`)).body.data[0];
      return first?.attempts === 1 ? first : undefined;
    }, 'the attempt recorded');
    expect(d).toMatchObject({ status: 'pending', last_response_code: null, url: 'http://127.0.0.1:0/zero' });
    expect(d.last_error).toMatch(/port 0/); // before: "connect ECONNREFUSED 127.0.0.1:80"
    expect((await s.request('DELETE', `/webhook-endpoints/${we.id}`)).status).toBe(200);
  });
});
