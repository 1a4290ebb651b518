// The hosted checkout page in a real browser (Debian chromium driven by playwright-core). Skipped when
// /usr/bin/chromium is absent.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { newSession, sessionStatus } from './util.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);

let s: TestServer;
let browser: Browser;
beforeAll(async () => {
  s = await startTestServer();
  if (!hasChromium) return;
  const { chromium } = await import('playwright-core');
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
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await s.close();
});

async function open(url: string): Promise<{ page: Page; requests: string[] }> {
  const page = await browser.newPage();
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(url);
  return { page, requests };
}

async function payByCard(page: Page, number: string) {
  // keyboard only: focus the number field, type, tab through, submit with Enter
  await page.getByLabel('Card number').focus();
  await page.keyboard.type(number);
  await page.keyboard.press('Tab');
  await page.keyboard.type('12/34');
  await page.keyboard.press('Tab');
  await page.keyboard.type('123');
  await page.keyboard.press('Enter');
}

const resultState = (page: Page) => page.locator('#result').getAttribute('data-state');

describe.skipIf(!hasChromium)('hosted checkout page (chromium)', () => {
  it('shows amount, reference and methods; pays with 4242 4242 4242 4242 → success, then success_url', async () => {
    const sess = await newSession(s, {
      amount: 1999,
      external_id: 'order_77',
      payment_method_types: ['card', 'walletone_pay'],
      success_url: `${s.baseUrl}/health?paid=1`,
    });
    const { page, requests } = await open(sess.fallback_url);
    expect(await page.title()).toContain('19.99 USD');
    await expect.poll(() => page.locator('#amount').textContent()).toBe('19.99 USD');
    expect(await page.locator('#reference').textContent()).toContain('order_77');
    expect(await page.locator('ul.methods').textContent()).toContain('WalletOne Pay');
    await payByCard(page, '4242 4242 4242 4242');
    await page.locator('#result[data-state="success"]').waitFor();
    expect(await page.locator('#result-title').textContent()).toBe('Payment successful');
    expect(await sessionStatus(s, sess.id)).toBe('succeeded');
    await page.waitForURL(/\/health\?paid=1$/);
    // only the local server was contacted
    const origin = new URL(s.baseUrl).origin;
    expect(requests.every((u) => u.startsWith(origin))).toBe(true);
    await page.close();
  });

  it('a declining card → failure state, session failed', async () => {
    const sess = await newSession(s, { cancel_url: `${s.baseUrl}/health?back=1` });
    const { page } = await open(sess.fallback_url);
    await payByCard(page, '4000000000000002');
    await page.locator('#result[data-state="failure"]').waitFor();
    expect(await page.locator('#result-detail').textContent()).toContain('declined');
    expect(await page.locator('#result-link').getAttribute('href')).toBe(`${s.baseUrl}/health?back=1`);
    expect(await sessionStatus(s, sess.id)).toBe('failed');
    // reloading shows the same outcome
    await page.reload();
    expect(await resultState(page)).toBe('failure');
    await page.close();
  });

  it('3DS challenge, then success', async () => {
    const sess = await newSession(s);
    const { page } = await open(sess.fallback_url);
    await payByCard(page, '4000000000003220');
    await page.getByRole('button', { name: 'Complete authentication' }).waitFor();
    expect(await sessionStatus(s, sess.id)).toBe('requires_action');
    await page.keyboard.press('Enter'); // the challenge button has focus
    await page.locator('#result[data-state="success"]').waitFor();
    expect(await sessionStatus(s, sess.id)).toBe('succeeded');
    expect((await s.request('GET', `/threeds-authenticate/sessions/${sess.id}/result`)).body.status).toBe(
      'authenticated',
    );
    await page.close();
  });

  it('3DS challenge that fails → failure state', async () => {
    const sess = await newSession(s);
    const { page } = await open(sess.fallback_url);
    await payByCard(page, '4000008400001629');
    await page.getByRole('button', { name: 'Complete authentication' }).click();
    await page.locator('#result[data-state="failure"]').waitFor();
    expect(await sessionStatus(s, sess.id)).toBe('failed');
    await page.close();
  });

  it('an invalid number is refused in place and can be corrected', async () => {
    const sess = await newSession(s);
    const { page } = await open(sess.fallback_url);
    await payByCard(page, '4242424242424241');
    await expect.poll(() => page.locator('#form-error').textContent()).toMatch(/card number/i);
    expect(await sessionStatus(s, sess.id)).toBe('requires_payment_method');
    await page.getByLabel('Card number').fill('5555555555554444');
    await page.getByLabel('CVC').fill('123');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.locator('#result[data-state="success"]').waitFor();
    await page.close();
  });

  it('a canceled session shows the canceled state; unknown sessions 404', async () => {
    const sess = await newSession(s, { cancel_url: `${s.baseUrl}/health?canceled=1` });
    await s.request('POST', `/sessions/${sess.id}/cancel`, { body: {} });
    const { page } = await open(sess.fallback_url);
    expect(await resultState(page)).toBe('canceled');
    expect(await page.locator('#card-form').isVisible()).toBe(false);
    await page.close();
    const r = await fetch(`${s.baseUrl}/pay/00000000-0000-7000-8000-000000000000`);
    expect(r.status).toBe(404);
  });

  it('wallet button pays a wallet-only session', async () => {
    const sess = await newSession(s, { payment_method_types: ['wallettwo_pay'] });
    const { page } = await open(sess.fallback_url);
    expect(await page.locator('#card-form').isVisible()).toBe(false);
    await page.getByRole('button', { name: /WalletTwo Pay/ }).click();
    await page.locator('#result[data-state="success"]').waitFor();
    expect(await sessionStatus(s, sess.id)).toBe('succeeded');
    await page.close();
  });
});

describe('hosted checkout page (HTTP)', () => {
  it('is served as HTML without auth, with a strict CSP and no-store', async () => {
    const sess = await newSession(s);
    const r = await fetch(sess.fallback_url);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('content-security-policy')).toContain("connect-src 'self'");
    const html = await r.text();
    expect(html).toContain('<label for="number">Card number</label>');
    expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/); // no external resources
    // the page script parses (the browser tests run it; this guards hosts without chromium)
    const script = html.split(/<script[^>]*>/)[1]!.split('</script>')[0]!;
    expect(() => new Function(script)).not.toThrow();
  });
});
