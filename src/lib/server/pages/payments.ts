// The hosted checkout page: a session's fallback_url (`…/functions/v1/pay/{session_id}`), served by the local
// server as plain HTML/CSS/JS with no external resources. The page tokenizes the card through the test vault
// (the only place the number goes), confirms with the session's client secret, runs the 3DS challenge step,
// and shows success / failure / canceled, honouring success_url and cancel_url.
import type { Services } from '../domain/services.js';
import { formatMoney } from '../../format/values.js';
import { escapeHtml as esc, scriptJson as embed } from '../../format/html.js';
import type { PageSpec } from '../http/pages.js';

/**
 * The payments area's HTML pages (auth none, text/html), registered by app.ts. A page handler answers with the
 * HTML, or undefined for "no such page" (404).
 */
export const paymentsPages: PageSpec[] = [
  { url: '/pay/:session_id', handler: (ctx) => checkoutPage(ctx.services, ctx.params.session_id ?? '', ctx.baseUrl) },
];

const METHOD_LABELS: Record<string, string> = {
  card: 'Card',
  walletone_pay: 'WalletOne Pay',
  wallettwo_pay: 'WalletTwo Pay',
  walletthree: 'WalletThree',
  bank_account: 'US bank account (ACH)',
};

/** The page's HTML, or undefined when there is no such session. */
export async function checkoutPage(
  services: Services,
  sessionId: string,
  baseUrl: string,
): Promise<string | undefined> {
  const accountId = await services.sessions.accountOf(sessionId);
  if (accountId === undefined) return undefined;
  const now = services.clock.now(accountId);
  const session = await services.sessions.get(accountId, sessionId);
  const config = await services.payments.sessionConfig(accountId, sessionId, now, baseUrl);
  // The page carries the secret only while the session can be paid (below), not inside the config.
  const { client_secret: _secret, ...pageConfig } = config;
  const open = session.status === 'requires_payment_method' || session.status === 'requires_action';
  const data = {
    api: baseUrl,
    config: pageConfig,
    // The frontend credential of this session (contract §3), only while it can still be paid.
    clientSecret: open ? session.client_secret : null,
    amountText: formatMoney(session.amount, session.currency),
  };
  const reference = session.external_id ?? session.description ?? '';
  const methods = session.payment_method_types.map((m) => `<li>${esc(METHOD_LABELS[m] ?? m)}</li>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Pay ${esc(data.amountText)} — payorch test checkout</title>
<style>
  :root { color-scheme: light dark; --accent: #4f46e5; --bad: #b91c1c; --good: #15803d; --muted: #6b7280; }
  * { box-sizing: border-box; }
  body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; background: Canvas; color: CanvasText; }
  main { max-width: 28rem; margin: 2rem auto; padding: 1.5rem; border: 1px solid #d1d5db; border-radius: .75rem; }
  .badge { display: inline-block; font-size: .75rem; padding: .1rem .5rem; border-radius: 1rem; background: #fef3c7; color: #92400e; }
  h1 { font-size: 1.1rem; margin: .5rem 0 0; }
  .amount { font-size: 2rem; font-weight: 700; margin: .25rem 0; }
  .muted { color: var(--muted); font-size: .9rem; }
  label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
  input { width: 100%; padding: .6rem; font: inherit; border: 1px solid #9ca3af; border-radius: .4rem; }
  input:focus-visible, button:focus-visible, a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
  .row { display: flex; gap: .75rem; } .row > div { flex: 1; }
  button { width: 100%; margin-top: 1rem; padding: .75rem; font: inherit; font-weight: 600; border: 0; border-radius: .4rem; background: var(--accent); color: #fff; cursor: pointer; }
  button.secondary { background: transparent; color: var(--accent); border: 1px solid var(--accent); }
  button[disabled] { opacity: .6; cursor: progress; }
  .error { color: var(--bad); min-height: 1.5rem; margin-top: .5rem; }
  .state h2 { margin: .5rem 0; }
  .state.success h2 { color: var(--good); } .state.failure h2, .state.canceled h2 { color: var(--bad); }
  [hidden] { display: none !important; }
  ul.methods { padding-left: 1.2rem; margin: .25rem 0; }
  a { color: var(--accent); }
</style>
</head>
<body>
<main>
  <span class="badge">Test mode</span>
  <h1>payorch test merchant</h1>
  <p class="amount" id="amount">${esc(data.amountText)}</p>
  ${reference ? `<p class="muted" id="reference">Reference: ${esc(reference)}</p>` : ''}
  <p class="muted">Accepted: </p><ul class="methods" aria-label="Accepted payment methods">${methods}</ul>

  <section id="pay" hidden aria-labelledby="pay-title">
    <h2 id="pay-title" class="muted" style="font-size:1rem">Pay by card</h2>
    <form id="card-form" novalidate>
      <label for="number">Card number</label>
      <input id="number" name="number" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" required aria-describedby="form-error">
      <div class="row">
        <div><label for="exp">Expiry (MM/YY)</label><input id="exp" name="exp" inputmode="numeric" autocomplete="cc-exp" placeholder="12/34" required></div>
        <div><label for="cvc">CVC</label><input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="123" required></div>
      </div>
      <button id="pay-button" type="submit">Pay ${esc(data.amountText)}</button>
    </form>
    <div id="wallets"></div>
    ${session.payment_method_types.includes('bank_account') ? '<p class="muted" id="ach-note">To pay by US bank account, the merchant confirms with your verified account (API or <code>payorch sessions confirm --bank-account</code>).</p>' : ''}
    <p class="error" id="form-error" role="alert" aria-live="assertive"></p>
    <p id="cancel-link-wrap" hidden><a id="cancel-link" href="#">Cancel and return to the merchant</a></p>
  </section>

  <section id="threeds" hidden aria-labelledby="threeds-title">
    <h2 id="threeds-title">Confirm it’s you</h2>
    <p>Your bank asks you to authenticate this payment (3D Secure test challenge).</p>
    <button id="threeds-complete" type="button">Complete authentication</button>
    <p class="error" id="threeds-error" role="alert"></p>
  </section>

  <section id="result" class="state" hidden aria-live="polite" tabindex="-1">
    <h2 id="result-title"></h2>
    <p id="result-detail"></p>
    <p id="result-link-wrap" hidden><a id="result-link" href="#">Return to the merchant</a></p>
  </section>
</main>
<script>
"use strict";
(() => {
  const D = ${embed(data)};
  // Same origin as the page, whatever host name reached it: …/functions/v1/pay/{id} → …/functions/v1
  const API = location.pathname.slice(0, location.pathname.lastIndexOf('/pay/'));
  const $ = (id) => document.getElementById(id);
  const sid = D.config.session_id;
  const show = (id) => { for (const s of ['pay', 'threeds', 'result']) $(s).hidden = s !== id; };
  const api = async (method, path, body, auth) => {
    const headers = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (auth) headers.authorization = 'Bearer ' + D.clientSecret;
    const res = await fetch(API + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    let json = null; try { json = await res.json(); } catch (e) { /* not JSON */ }
    return { status: res.status, body: json };
  };
  const link = (url, text) => {
    $('result-link-wrap').hidden = !url;
    if (url) { $('result-link').href = url; $('result-link').textContent = text; }
  };
  const finish = (kind, title, detail) => {
    const r = $('result');
    r.className = 'state ' + kind;
    $('result-title').textContent = title;
    $('result-detail').textContent = detail || '';
    r.dataset.state = kind;
    if (kind === 'success') {
      link(D.config.success_url, 'Continue to the merchant');
      if (D.config.success_url) setTimeout(() => { location.href = D.config.success_url; }, 1500);
    } else link(D.config.cancel_url, 'Return to the merchant');
    show('result');
    r.focus();
  };
  const fromPayment = (p) => {
    if (!p) return;
    if (p.status === 'requires_action' && p.next_action) { show('threeds'); $('threeds-complete').focus(); return; }
    if (p.status === 'captured') return finish('success', 'Payment successful', 'Thank you! Your payment of ' + D.amountText + ' was received.');
    if (p.status === 'authorized') return finish('success', 'Payment authorized', 'Your payment of ' + D.amountText + ' is authorized; the merchant will capture it.');
    if (p.status === 'pending') return finish('success', 'Payment processing', 'Your bank payment is being processed.');
    if (p.status === 'canceled') return finish('canceled', 'Payment canceled', 'This payment was canceled.');
    return finish('failure', 'Payment failed', p.failure_message || 'The payment was declined.');
  };
  const fromConfig = (c) => {
    if (c.status === 'canceled') return finish('canceled', 'Payment canceled', 'This checkout was canceled or has expired. No payment was taken.');
    if (c.status !== 'requires_payment_method') {
      if (c.payment) return fromPayment(c.payment);
      if (c.status === 'failed') return finish('failure', 'Payment failed', '');
    }
    show('pay');
  };
  const busy = (on) => { $('pay-button').disabled = on; $('pay-button').textContent = on ? 'Processing…' : 'Pay ' + D.amountText; for (const b of document.querySelectorAll('#wallets button')) b.disabled = on; };
  const handleConfirm = async (r) => {
    if (r.status === 200) return fromPayment(r.body);
    const e = (r.body && r.body.error) || {};
    if (r.status === 402) return finish('failure', 'Payment failed', e.message || 'Your card was declined.');
    if (r.status === 409 || r.status === 401) { const c = await api('GET', '/get-session-config/' + sid, undefined, true); if (c.status === 200) return fromConfig(c.body); return finish('canceled', 'Payment canceled', 'This checkout is no longer available.'); }
    $('form-error').textContent = e.message || 'Something went wrong. Please try again.';
    busy(false);
  };

  if (D.config.cancel_url) { $('cancel-link-wrap').hidden = false; $('cancel-link').href = D.config.cancel_url; }
  if (!D.config.payment_method_types.includes('card')) $('card-form').hidden = true;
  for (const m of ['walletone_pay', 'wallettwo_pay', 'walletthree']) {
    if (!D.config.payment_method_types.includes(m)) continue;
    const b = document.createElement('button');
    b.type = 'button'; b.className = 'secondary'; b.id = 'wallet-' + m;
    b.textContent = 'Pay with ' + ${embed(METHOD_LABELS)}[m] + ' (test)';
    b.addEventListener('click', async () => {
      $('form-error').textContent = ''; busy(true);
      const field = m === 'walletthree' ? 'walletthree_token' : m + '_token';
      await handleConfirm(await api('POST', '/confirm-payment/' + sid, { [field]: 'test_wallet_token' }, true));
    });
    $('wallets').appendChild(b);
  }

  $('card-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    $('form-error').textContent = '';
    const number = $('number').value.replace(/[\\s-]/g, '');
    const m = /^(\\d{1,2})\\s*\\/\\s*(\\d{2}|\\d{4})$/.exec($('exp').value.trim());
    if (!/^\\d{12,19}$/.test(number)) { $('form-error').textContent = 'Enter a valid card number.'; $('number').focus(); return; }
    if (!m) { $('form-error').textContent = 'Enter the expiry as MM/YY.'; $('exp').focus(); return; }
    const cvc = $('cvc').value.trim();
    if (!/^\\d{3,4}$/.test(cvc)) { $('form-error').textContent = 'Enter the 3 or 4 digit CVC.'; $('cvc').focus(); return; }
    busy(true);
    const year = m[2].length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
    const tok = await api('POST', '/vault/tokens', { number, exp_month: Number(m[1]), exp_year: year, cvc });
    $('number').value = ''; $('cvc').value = '';
    if (tok.status !== 201) { $('form-error').textContent = (tok.body && tok.body.error && tok.body.error.message) || 'The card could not be read.'; busy(false); return; }
    await handleConfirm(await api('POST', '/confirm-payment/' + sid, { token_id: tok.body.token_id }, true));
  });

  $('threeds-complete').addEventListener('click', async () => {
    $('threeds-complete').disabled = true;
    const r = await api('POST', '/threeds-authenticate/sessions/' + sid + '/challenge-complete', {}, true);
    if (r.status !== 200) { $('threeds-error').textContent = (r.body && r.body.error && r.body.error.message) || 'Authentication could not be completed.'; $('threeds-complete').disabled = false; return; }
    if (r.body.status === 'authenticated' && r.body.payment_status !== 'failed') return fromPayment({ status: r.body.payment_status });
    finish('failure', 'Payment failed', 'Authentication failed. The payment was not taken.');
  });

  fromConfig(D.config);
})();
</script>
</body>
</html>`;
}
