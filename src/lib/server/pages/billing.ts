// The billing pages: the hosted invoice page (pay an open invoice with a test card) and the customer portal
// (subscriptions, invoices, cancel at period end, update the default card). Plain HTML + a little script that
// calls the page-action routes (routes/billing.ts, auth 'none').
import type { CheckoutSession, Invoice, Subscription } from '../../contract/billing.js';
import { formatMoney, formatTime } from '../../format/values.js';
import { escapeHtml as h, scriptJson as js } from '../../format/html.js';
import type { PageSpec } from '../http/pages.js';

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1a1f36}main{max-width:720px;margin:32px auto;background:#fff;padding:24px 32px;border-radius:8px;box-shadow:0 1px 3px #0002}
table{width:100%;border-collapse:collapse}td,th{text-align:left;padding:6px 4px;border-bottom:1px solid #e3e8ee}td.num{text-align:right}
.status{font-weight:600}.error{color:#c0392b}.ok{color:#1e8e3e}button{font:inherit;padding:6px 14px;border-radius:6px;border:1px solid #635bff;background:#635bff;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#635bff}input{font:inherit;padding:6px;border:1px solid #ccd;border-radius:6px;width:16em}`;

function layout(title: string, body: string, script: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${h(title)}</title><style>${STYLE}</style></head><body><main>${body}</main><script>${script}</script></body></html>`;
}

/** Posts JSON to a page action; shows the API error message in #message, or reloads on success. */
const POST_SCRIPT = `
async function act(url, body, okText, next) {
  const msg = document.getElementById('message');
  msg.className = ''; msg.textContent = 'Working…';
  try {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const j = await r.json();
    if (!r.ok) { msg.className = 'error'; msg.textContent = (j.error && j.error.message) || ('Failed (' + r.status + ')'); return; }
    msg.className = 'ok'; msg.textContent = okText;
    setTimeout(() => { if (next) location.href = next; else location.reload(); }, 300);
  } catch (e) { msg.className = 'error'; msg.textContent = String(e); }
}`;

const PAYABLE = ['open', 'past_due', 'uncollectible'];

function linesTable(inv: Invoice): string {
  const rows = inv.lines.data
    .map((l) => `<tr><td>${h(l.description)}</td><td class="num">${h(formatMoney(l.amount, l.currency))}</td></tr>`)
    .join('');
  return `<table id="lines"><thead><tr><th>Description</th><th class="num">Amount</th></tr></thead><tbody>${rows}</tbody>
<tfoot><tr><th>Total</th><th class="num" id="total">${h(formatMoney(inv.total, inv.currency))}</th></tr><tr><th>Amount due</th><th class="num" id="amount-remaining">${h(formatMoney(inv.amount_remaining, inv.currency))}</th></tr></tfoot></table>`;
}

function invoicePage(inv: Invoice, customerName: string | null, baseUrl: string): string {
  const payable = PAYABLE.includes(inv.status) && inv.amount_remaining > 0;
  const form = payable
    ? `<form id="pay-form"><label>Card number <input id="card-number" name="card_number" autocomplete="cc-number" inputmode="numeric" placeholder="4242 4242 4242 4242" required></label>
<button type="submit" id="pay">Pay ${h(formatMoney(inv.amount_remaining, inv.currency))}</button></form>`
    : '';
  const body = `<h1>Invoice ${h(inv.number)}</h1>
<p>${customerName ? `Billed to ${h(customerName)} · ` : ''}Status: <span class="status" id="status">${h(inv.status)}</span>${inv.due_date ? ` · Due ${h(formatTime(inv.due_date))}` : ''}${inv.paid_at ? ` · Paid ${h(formatTime(inv.paid_at))}` : ''}</p>
${linesTable(inv)}
${form}<p id="message" role="status"></p>`;
  const script = `${POST_SCRIPT}
const f = document.getElementById('pay-form');
if (f) f.addEventListener('submit', (e) => { e.preventDefault(); act(${js(`${baseUrl}/invoice/${inv.id}/pay`)}, { card_number: document.getElementById('card-number').value }, 'Paid. Thank you!'); });`;
  return layout(`Invoice ${inv.number ?? inv.id}`, body, script);
}

function subscriptionRow(s: Subscription): string {
  const items = s.items.data
    .map(
      (i) =>
        `${i.quantity} × ${formatMoney(i.price.unit_amount, i.price.currency)}/${i.price.recurring?.interval ?? ''}`,
    )
    .join(', ');
  const cancelable = ['active', 'trialing', 'past_due'].includes(s.status) && !s.cancel_at_period_end;
  const note = s.cancel_at_period_end
    ? `Cancels on ${h(formatTime(s.current_period_end))}`
    : s.status === 'canceled'
      ? `Ended ${h(formatTime(s.ended_at))}`
      : `Renews ${h(formatTime(s.current_period_end))}`;
  return `<tr data-subscription="${h(s.id)}"><td>${h(items)}</td><td class="status">${h(s.status)}</td><td class="note">${note}</td><td>${cancelable ? `<button class="secondary cancel" data-id="${h(s.id)}">Cancel at period end</button>` : ''}</td></tr>`;
}

function checkoutPage(c: CheckoutSession, baseUrl: string): string {
  const rows = c.line_items.data
    .map(
      (l) =>
        `<tr><td>${h(`${l.quantity} × ${l.description}`)}</td><td class="num">${h(formatMoney(l.amount, c.currency))}</td></tr>`,
    )
    .join('');
  const open = c.status === 'open';
  const body = `<h1>Subscribe</h1>
<p>Status: <span class="status" id="status">${h(c.status)}</span>${c.trial_period_days ? ` · ${h(c.trial_period_days)}-day free trial` : ''}</p>
<table id="lines"><tbody>${rows}</tbody><tfoot><tr><th>Every period</th><th class="num" id="total">${h(formatMoney(c.amount_total, c.currency))}</th></tr></tfoot></table>
${open ? `<form id="subscribe-form"><label>Card number <input id="card-number" autocomplete="cc-number" inputmode="numeric" placeholder="4242 4242 4242 4242" required></label> <button type="submit" id="subscribe">Subscribe</button></form>` : ''}
${c.subscription ? `<p id="done" class="ok">Subscribed (${h(c.subscription)}).</p>` : ''}
<p id="message" role="status"></p>`;
  const script = `${POST_SCRIPT}
const f = document.getElementById('subscribe-form');
const success = ${js(c.success_url)};
if (f) f.addEventListener('submit', async (e) => { e.preventDefault();
  await act(${js(`${baseUrl}/checkout/${c.id}/complete`)}, { card_number: document.getElementById('card-number').value }, 'Subscribed.', success); });`;
  return layout('Subscribe', body, script);
}

export const billingPages: PageSpec[] = [
  {
    url: '/checkout/:checkout_session_id',
    handler: async ({ params, baseUrl, services }) =>
      checkoutPage(await services.billing.hosted.checkoutPage(params.checkout_session_id!), baseUrl),
  },
  {
    url: '/invoice/:invoice_id',
    handler: async ({ params, baseUrl, services }) => {
      const { inv, customer } = await services.billing.hosted.invoicePage(params.invoice_id!, baseUrl);
      return invoicePage(inv, customer?.name ?? customer?.email ?? null, baseUrl);
    },
  },
  {
    url: '/portal/:portal_session_id',
    handler: async ({ params, baseUrl, services }) => {
      const v = await services.billing.hosted.portalView(params.portal_session_id!, baseUrl);
      const base = `${baseUrl}/portal/${v.session.id}`;
      const subs = v.subscriptions.length
        ? `<table id="subscriptions"><thead><tr><th>Plan</th><th>Status</th><th></th><th></th></tr></thead><tbody>${v.subscriptions.map(subscriptionRow).join('')}</tbody></table>`
        : '<p id="subscriptions">No subscriptions.</p>';
      const invs = v.invoices.length
        ? `<table id="invoices"><thead><tr><th>Number</th><th>Status</th><th class="num">Total</th><th></th></tr></thead><tbody>${v.invoices
            .map(
              (i) =>
                `<tr data-invoice="${h(i.id)}"><td>${h(i.number)}</td><td class="status">${h(i.status)}</td><td class="num">${h(formatMoney(i.total, i.currency))}</td><td><a href="${h(i.hosted_invoice_url)}">${PAYABLE.includes(i.status) && i.amount_remaining > 0 ? 'Pay' : 'View'}</a></td></tr>`,
            )
            .join('')}</tbody></table>`
        : '<p id="invoices">No invoices.</p>';
      const body = `<h1>Billing for ${h(v.customer.name ?? v.customer.email ?? v.customer.id)}</h1>
<h2>Payment method</h2><p>Default card: <span id="card">${h(v.card ?? 'none')}</span></p>
<form id="card-form"><label>New card number <input id="card-number" autocomplete="cc-number" inputmode="numeric" placeholder="4242 4242 4242 4242" required></label> <button type="submit" id="update-card">Update card</button></form>
<h2>Subscriptions</h2>${subs}
<h2>Invoices</h2>${invs}
<p id="message" role="status"></p>
${v.session.return_url ? `<p><a id="return" href="${h(v.session.return_url)}">Return</a></p>` : ''}`;
      const script = `${POST_SCRIPT}
document.getElementById('card-form').addEventListener('submit', (e) => { e.preventDefault(); act(${js(`${base}/payment-method`)}, { card_number: document.getElementById('card-number').value }, 'Card updated.'); });
for (const b of document.querySelectorAll('button.cancel')) b.addEventListener('click', () => act(${js(`${base}/subscriptions/`)} + b.dataset.id + '/cancel', {}, 'Your subscription will end at the end of the period.'));`;
      return layout('Billing portal', body, script);
    },
  },
];
