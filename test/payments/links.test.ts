// Hosted-page links follow the server that serves the data now (issue 30, item 8): objects made while one server
// served a data directory, read through another server of the same directory on another port, link to the pages
// of the one that answers (a session's checkout page and 3DS challenge, checkout sessions, portal sessions,
// invoices) — and those pages are served there. A return_url the merchant gave stays as given.
import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';
import { customer, monthlyPrice, ok, product } from '../billing/helpers.js';
import { confirm, newSession } from './util.js';

const open: { close(): unknown }[] = [];
afterAll(async () => {
  for (const o of open) await o.close();
});

/** Holds `port` so that the next server cannot take it again (port 0 could hand it out once more). */
function hold(port: number): Promise<Server> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(srv)); // taken by something else: as good
    srv.listen(port, '127.0.0.1', () => resolve(srv));
  });
}

describe('hosted-page links', () => {
  it('made under one server, read under another of the same data directory: every link is the answering server’s', async () => {
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir });
    const s = first;
    const threeds = await newSession(s);
    expect((await confirm(s, threeds, { token_id: 'tok_threeDSecureRequired' })).body.status).toBe('requires_action');
    const returning = await newSession(s, { success_url: 'https://shop.example/done' });
    await confirm(s, returning, { token_id: 'tok_threeDSecureRequired' });
    const prod = await product(s);
    const oneTime = await ok(s, 'POST', '/prices', { product: prod.id, currency: 'usd', unit_amount: 700 });
    const monthly = await monthlyPrice(s, prod.id, 900);
    const pay = await ok(
      s,
      'POST',
      '/checkout-sessions',
      { mode: 'payment', line_items: [{ price: oneTime.id }] },
      201,
    );
    const sub = await ok(
      s,
      'POST',
      '/checkout-sessions',
      { mode: 'subscription', line_items: [{ price: monthly.id }] },
      201,
    );
    const cus = await customer(s);
    const portal = await ok(s, 'POST', '/portal-sessions', { customer: cus.id });
    const draft = await ok(s, 'POST', '/invoices', {
      customer: cus.id,
      currency: 'usd',
      lines: [{ amount: 500 }],
      collection_method: 'send_invoice',
      days_until_due: 2,
    });
    const inv = await ok(s, 'POST', `/invoices/${draft.id}/finalize`, {}); // a draft has no page
    expect(threeds.fallback_url).toBe(`${first.baseUrl}/pay/${threeds.id}`);
    await first.close();
    open.push(await hold(first.server.port));

    const second = await startTestServer({ dataDir });
    open.push(second);
    expect(second.server.port).not.toBe(first.server.port);
    const b = second.baseUrl;
    const get = (path: string) => ok(second, 'GET', path);

    const session = await get(`/sessions/${threeds.id}`);
    const challenge = `${b}/pay/${threeds.id}?step=threeds`;
    expect(session.fallback_url).toBe(`${b}/pay/${threeds.id}`);
    expect(session.next_action).toEqual({
      type: 'redirect_to_url',
      url: challenge,
      redirect_to_url: { url: challenge, return_url: `${b}/pay/${threeds.id}` },
    });
    const payment = (await get(`/payments?session_id=${threeds.id}`)).data[0];
    expect(payment.next_action).toEqual(session.next_action);
    const config = await get(`/get-session-config/${threeds.id}`);
    expect([config.fallback_url, config.payment.next_action]).toEqual([session.fallback_url, session.next_action]);
    // The merchant's return_url is theirs: kept.
    expect((await get(`/sessions/${returning.id}`)).next_action.redirect_to_url).toEqual({
      url: `${b}/pay/${returning.id}?step=threeds`,
      return_url: 'https://shop.example/done',
    });

    expect((await get(`/checkout-sessions/${pay.id}`)).url).toBe(`${b}/pay/${pay.payment_session}`);
    expect((await get(`/checkout-sessions/${sub.id}`)).url).toBe(`${b}/checkout/${sub.id}`);
    expect((await get('/checkout-sessions')).data.map((c: { url: string }) => c.url).sort()).toEqual(
      [`${b}/checkout/${sub.id}`, `${b}/pay/${pay.payment_session}`].sort(),
    );
    expect((await get(`/portal-sessions/${portal.id}`)).url).toBe(`${b}/portal/${portal.id}`);
    expect((await get(`/invoices/${inv.id}`)).hosted_invoice_url).toBe(`${b}/invoice/${inv.id}`);

    // …and the server that answered serves them.
    for (const url of [
      session.fallback_url,
      challenge,
      `${b}/checkout/${sub.id}`,
      `${b}/portal/${portal.id}`,
      `${b}/invoice/${inv.id}`,
    ]) {
      expect([url, (await fetch(url)).status]).toEqual([url, 200]);
    }
  });
});
