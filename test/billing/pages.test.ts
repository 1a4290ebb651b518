// The hosted invoice page and the customer portal in real headless Chromium (skipped when it is absent).
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { customer, ok, product } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';

describe.skipIf(!existsSync(CHROMIUM))('billing pages in Chromium', { timeout: 60_000 }, () => {
  let s: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    s = await startTestServer();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  async function page(url: string): Promise<Page> {
    const p = await browser.newPage();
    const res = await p.goto(url);
    expect(res?.status()).toBe(200);
    return p;
  }

  it('pays an open invoice on the hosted invoice page (a decline first)', async () => {
    const cus = await customer(s, null, { name: 'Page Payer' });
    const prod = await product(s, 'Design work');
    const price = await ok(s, 'POST', '/prices', { product: prod.id, currency: 'usd', unit_amount: 4200 });
    const draft = await ok(s, 'POST', '/invoices', {
      customer: cus.id,
      lines: [{ price: price.id, quantity: 2 }],
      collection_method: 'send_invoice',
      days_until_due: 14,
    });
    const inv = await ok(s, 'POST', `/invoices/${draft.id}/finalize`, {});
    const p = await page(inv.hosted_invoice_url);
    expect(await p.textContent('h1')).toBe(`Invoice ${inv.number}`);
    expect(await p.textContent('#status')).toBe('open');
    expect(await p.textContent('#amount-remaining')).toBe('84.00 USD');
    expect(await p.textContent('#lines tbody')).toContain('2 × Design work');

    await p.fill('#card-number', '4000 0000 0000 0002');
    await p.click('#pay');
    await p.waitForSelector('#message.error');
    expect(await p.textContent('#message')).toMatch(/declined/i);
    expect(await ok(s, 'GET', `/invoices/${inv.id}`)).toMatchObject({ status: 'open', attempt_count: 1 });

    await p.fill('#card-number', '4242 4242 4242 4242');
    await Promise.all([p.waitForEvent('load'), p.click('#pay')]);
    expect(await p.textContent('#status')).toBe('paid');
    expect(await p.$('#pay')).toBeNull();
    expect(await ok(s, 'GET', `/invoices/${inv.id}`)).toMatchObject({ status: 'paid', amount_paid: 8400 });
    await p.close();
  });

  it('the portal lists subscriptions and invoices, cancels at period end and updates the card', async () => {
    const cus = await customer(s, 'tok_visa', { name: 'Portal User' });
    const prod = await product(s, 'Gym');
    const price = await ok(s, 'POST', '/prices', {
      product: prod.id,
      currency: 'usd',
      unit_amount: 3000,
      recurring: { interval: 'month' },
    });
    const sub = await ok(s, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }] });
    const portal = await ok(s, 'POST', '/portal-sessions', {
      customer: cus.id,
      return_url: 'https://example.com/account',
    });
    const p = await page(portal.url);
    expect(await p.textContent('h1')).toContain('Portal User');
    expect(await p.textContent('#card')).toBe('visa •••• 4242');
    const row = `tr[data-subscription="${sub.id}"]`;
    expect(await p.textContent(`${row} .status`)).toBe('active');
    expect(await p.textContent('#invoices')).toContain('30.00 USD');
    expect(await p.getAttribute('#return', 'href')).toBe('https://example.com/account');

    await Promise.all([p.waitForEvent('load'), p.click(`${row} button.cancel`)]);
    expect(await p.textContent(`${row} .note`)).toMatch(/^Cancels on/);
    expect(await p.$(`${row} button.cancel`)).toBeNull();
    expect((await ok(s, 'GET', `/subscriptions/${sub.id}`)).cancel_at_period_end).toBe(true);

    await p.fill('#card-number', '1234 5678 9012 3456');
    await p.click('#update-card');
    await p.waitForSelector('#message.error');
    await p.fill('#card-number', '5555555555554444');
    await Promise.all([p.waitForEvent('load'), p.click('#update-card')]);
    expect(await p.textContent('#card')).toBe('mastercard •••• 4444');
    expect((await ok(s, 'GET', `/customers/${cus.id}`)).default_payment_method).toBe('tok_mastercard');

    // the invoice link opens the hosted invoice page
    await Promise.all([p.waitForEvent('load'), p.click(`tr[data-invoice="${sub.latest_invoice}"] a`)]);
    expect(await p.textContent('#status')).toBe('paid');
    await p.close();
  });

  it('the subscription checkout page subscribes with a test card and goes to success_url', async () => {
    const prod = await product(s, 'Newsletter');
    const price = await ok(s, 'POST', '/prices', {
      product: prod.id,
      currency: 'eur',
      unit_amount: 500,
      recurring: { interval: 'month' },
    });
    const cks = await ok(s, 'POST', '/checkout-sessions', {
      mode: 'subscription',
      line_items: [{ price: price.id, quantity: 2 }],
      customer_email: 'reader@example.com',
      success_url: `${s.baseUrl}/health`,
    });
    const p = await page(cks.url);
    expect(await p.textContent('#total')).toBe('10.00 EUR');
    await p.fill('#card-number', '4000000000000002');
    await p.click('#subscribe');
    await p.waitForSelector('#message.error');
    expect(await p.textContent('#message')).toMatch(/declined/i);
    expect((await ok(s, 'GET', `/checkout-sessions/${cks.id}`)).status).toBe('open');
    await p.fill('#card-number', '4242424242424242');
    await Promise.all([p.waitForURL(`${s.baseUrl}/health`), p.click('#subscribe')]);
    const done = await ok(s, 'GET', `/checkout-sessions/${cks.id}`);
    expect(done.status).toBe('complete');
    expect(await ok(s, 'GET', `/subscriptions/${done.subscription}`)).toMatchObject({
      status: 'active',
      customer: done.customer,
    });
    await p.close();
  });

  it('an expired or unknown portal session is a 404 page', async () => {
    const cus = await customer(s);
    const portal = await ok(s, 'POST', '/portal-sessions', { customer: cus.id });
    await ok(s, 'POST', '/test-helpers/advance-clock', { seconds: 3601 });
    const p = await browser.newPage();
    const res = await p.goto(portal.url);
    expect(res?.status()).toBe(404);
    expect(await p.textContent('#error')).toContain('No such portal_session');
    const r2 = await p.goto(`${s.baseUrl}/invoice/in_missing`);
    expect(r2?.status()).toBe(404);
    await p.close();
  });
});
