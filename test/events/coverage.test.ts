// Every resource records its changes (issue 14): exactly one event of the right type per change, with the object as
// the API shows it and the fields the change altered; none for a failing request or a change that changes
// nothing; time-driven changes dated when they happened; no secret in any event. Real server over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ok, fails, DAY } from '../billing/helpers.js';
import { confirm, newSession } from '../payments/util.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

/** The server as seen with another account's key: its own clock, its own events. */
async function account(): Promise<TestServer> {
  const key = (await s.server.services.accounts.createAccountWithKey()).api_key;
  return { ...s, apiKey: key, request: (m, p, o = {}) => s.request(m, p, { key, ...o }) };
}

async function eventsOf(t: TestServer, objectId: string): Promise<any[]> {
  const r = await t.request('GET', `/events?object_id=${encodeURIComponent(objectId)}&limit=100`);
  expect(r.status).toBe(200);
  return (r.body.data as any[]).reverse(); // oldest first
}

/** The one event of `type` about `objectId` (fails when there are none or several). */
async function only(t: TestServer, objectId: string, type: string) {
  const matching = (await eventsOf(t, objectId)).filter((e) => e.type === type);
  expect(matching.map((e) => e.type)).toEqual([type]);
  return matching[0];
}

const total = async (t: TestServer) => (await t.request('GET', '/events?limit=1')).body.total_count as number;

describe('billing', () => {
  it('customers: created, updated with previous_attributes (nothing for no change), deleted; a failing request records none', async () => {
    const t = await account();
    const c = await ok(t, 'POST', '/customers', { email: 'a@example.com', name: 'Ann' });
    expect((await only(t, c.id, 'customer.created')).data.object).toEqual(c);
    const u = await ok(t, 'PATCH', `/customers/${c.id}`, { name: 'Anne', metadata: { plan: 'pro' } });
    const updated = await only(t, c.id, 'customer.updated');
    expect(updated.data.object).toEqual(u);
    expect(updated.data.previous_attributes).toEqual({ name: 'Ann', metadata: {} });
    const before = await total(t);
    await ok(t, 'PATCH', `/customers/${c.id}`, { name: 'Anne' }); // no change: no event
    await fails(t, 'POST', '/customers', { email: 'not an email' }, 400, 'parameter_invalid');
    await fails(t, 'PATCH', '/customers/cus_missing', { name: 'x' }, 404, 'resource_missing');
    expect(await total(t)).toBe(before);
    await ok(t, 'DELETE', `/customers/${c.id}`);
    expect((await only(t, c.id, 'customer.deleted')).data.object).toEqual(u);
  });

  it('products, prices and coupons', async () => {
    const t = await account();
    const p = await ok(t, 'POST', '/products', { name: 'Pro' });
    const price = await ok(t, 'POST', '/prices', {
      product: p.id,
      currency: 'usd',
      unit_amount: 900,
      recurring: { interval: 'month' },
    });
    expect((await only(t, price.id, 'price.created')).data.object).toEqual(price);
    // the first price becomes the product's default_price: that is a change of the product
    const pu = await only(t, p.id, 'product.updated');
    expect(pu.data.previous_attributes).toEqual({ default_price: null });
    expect(pu.data.object).toEqual(await ok(t, 'GET', `/products/${p.id}`));
    await ok(t, 'PATCH', `/prices/${price.id}`, { nickname: 'monthly' });
    expect((await only(t, price.id, 'price.updated')).data.previous_attributes).toEqual({ nickname: null });
    const lone = await ok(t, 'POST', '/products', { name: 'Lone' });
    await ok(t, 'DELETE', `/products/${lone.id}`);
    expect((await only(t, lone.id, 'product.deleted')).data.object).toMatchObject({ id: lone.id, name: 'Lone' });
    const co = await ok(t, 'POST', '/coupons', { percent_off: 20, name: 'Twenty' });
    expect((await only(t, co.id, 'coupon.created')).data.object).toEqual(co);
    await ok(t, 'PATCH', `/coupons/${co.id}`, { name: 'Twenty off' });
    expect((await only(t, co.id, 'coupon.updated')).data.previous_attributes).toEqual({ name: 'Twenty' });
    await ok(t, 'DELETE', `/coupons/${co.id}`);
    await only(t, co.id, 'coupon.deleted');
  });

  it('subscriptions: created after its first invoice, trial_will_end 3 days before trial_end, trial end and renewal dated when due', async () => {
    const t = await account();
    const p = await ok(t, 'POST', '/products', { name: 'Pro' });
    const price = await ok(t, 'POST', '/prices', {
      product: p.id,
      currency: 'usd',
      unit_amount: 900,
      recurring: { interval: 'month' },
    });
    const cus = await ok(t, 'POST', '/customers', { email: 'a@example.com', default_payment_method: 'tok_visa' });

    const paid = await ok(t, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }] });
    const created = await only(t, paid.id, 'subscription.created');
    expect(created.data.object).toEqual(paid);
    const invEvents = (await eventsOf(t, paid.latest_invoice)).map((e) => e.type);
    expect(invEvents).toEqual(['invoice.created', 'invoice.finalized', 'invoice.paid']);
    const invPaid = await only(t, paid.latest_invoice, 'invoice.paid');
    expect(invPaid.data.object).toEqual(await ok(t, 'GET', `/invoices/${paid.latest_invoice}`));
    expect(invPaid.data.previous_attributes).toMatchObject({ status: 'open', paid: false });

    const trial = await ok(t, 'POST', '/subscriptions', {
      customer: cus.id,
      items: [{ price: price.id }],
      trial_period_days: 10,
    });
    expect((await eventsOf(t, trial.id)).map((e) => e.type)).toEqual(['subscription.created']);
    await ok(t, 'POST', '/test-helpers/advance-clock', { seconds: 8 * DAY });
    const willEnd = await only(t, trial.id, 'subscription.trial_will_end');
    expect(willEnd.created).toBe(trial.trial_end - 3 * DAY);
    expect(willEnd.data.object).toMatchObject({ id: trial.id, status: 'trialing' });
    await ok(t, 'POST', '/test-helpers/advance-clock', { seconds: 3 * DAY });
    const ended = await only(t, trial.id, 'subscription.updated');
    expect(ended.created).toBe(trial.trial_end);
    expect(ended.data.previous_attributes).toMatchObject({ status: 'trialing' });
    expect(ended.data.object).toEqual(await ok(t, 'GET', `/subscriptions/${trial.id}`));

    const periodEnd = paid.current_period_end;
    await ok(t, 'POST', '/test-helpers/advance-clock', { to: periodEnd + 60 });
    const renewed = await only(t, paid.id, 'subscription.renewed');
    expect(renewed.created).toBe(periodEnd);
    expect(renewed.data.previous_attributes).toMatchObject({
      current_period_start: paid.current_period_start,
      current_period_end: periodEnd,
    });
    expect(renewed.data.object.current_period_start).toBe(periodEnd);

    const canceled = await ok(t, 'POST', `/subscriptions/${paid.id}/cancel`, {});
    const ev = await only(t, paid.id, 'subscription.canceled');
    expect(ev.data.object).toEqual(canceled);
    expect(ev.data.previous_attributes).toMatchObject({ status: 'active', ended_at: null });
  });

  it('subscription items, pause and resume record subscription.updated; the portal’s card change records customer.updated', async () => {
    const t = await account();
    const p = await ok(t, 'POST', '/products', { name: 'Pro' });
    const price = await ok(t, 'POST', '/prices', {
      product: p.id,
      currency: 'usd',
      unit_amount: 900,
      recurring: { interval: 'month' },
    });
    const extra = await ok(t, 'POST', '/prices', {
      product: p.id,
      currency: 'usd',
      unit_amount: 100,
      recurring: { interval: 'month' },
    });
    const cus = await ok(t, 'POST', '/customers', { email: 'a@example.com', default_payment_method: 'tok_visa' });
    const sub = await ok(t, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }] });
    const item = await ok(t, 'POST', '/subscription-items', { subscription: sub.id, price: extra.id });
    const added = await only(t, sub.id, 'subscription.updated');
    expect(added.data.previous_attributes.items.data.map((i: any) => i.id)).toEqual([sub.items.data[0].id]);
    expect(added.data.object.items.data.map((i: any) => i.id).sort()).toEqual([sub.items.data[0].id, item.id].sort());
    const paused = await ok(t, 'POST', `/subscriptions/${sub.id}/pause`, {});
    const resumed = await ok(t, 'POST', `/subscriptions/${sub.id}/resume`, {});
    const updates = (await eventsOf(t, sub.id)).filter((e) => e.type === 'subscription.updated');
    expect(updates.map((e) => [e.data.previous_attributes.status, e.data.object.status])).toEqual([
      [undefined, 'active'],
      ['active', 'paused'],
      ['paused', 'active'],
    ]);
    expect(updates[1].data.object).toEqual(paused);
    expect(updates[2].data.object).toEqual(resumed);

    const portal = await ok(t, 'POST', '/portal-sessions', { customer: cus.id });
    const r = await t.request('POST', `/portal/${portal.id}/payment-method`, {
      body: { card_number: '5555 5555 5555 4444' },
      key: null,
    });
    expect(r.status).toBe(200);
    const changed = await only(t, cus.id, 'customer.updated');
    expect(changed.data.previous_attributes).toEqual({ default_payment_method: 'tok_visa' });
    expect(changed.data.object.default_payment_method).toBe('tok_mastercard');
  });

  it('of concurrent changes of one object, each that commits records one event and each refused records none', async () => {
    const t = await account();
    const a = await ok(t, 'POST', '/ledger-accounts', { name: 'Wallet', account_type: 'asset', currency: 'usd' });
    const freezes = await Promise.all(
      Array.from({ length: 8 }, () => t.request('POST', `/ledger-accounts/${a.id}/freeze`, { body: {} })),
    );
    expect(freezes.filter((r) => r.status === 200)).toHaveLength(1);
    expect(freezes.filter((r) => r.status === 409)).toHaveLength(7);
    await only(t, a.id, 'ledger_account.frozen');
    const c = await ok(t, 'POST', '/customers', { email: 'a@example.com' });
    const patches = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.request('PATCH', `/customers/${c.id}`, { body: { metadata: { [`k${i}`]: 'v' } } }),
      ),
    );
    expect(patches.every((r) => r.status === 200)).toBe(true);
    expect((await eventsOf(t, c.id)).filter((e) => e.type === 'customer.updated')).toHaveLength(8);
  });

  it('a declining card: invoice.payment_failed, subscription created past_due; dunning ends in marked_uncollectible at the last retry', async () => {
    const t = await account();
    const p = await ok(t, 'POST', '/products', { name: 'Pro' });
    const price = await ok(t, 'POST', '/prices', {
      product: p.id,
      currency: 'usd',
      unit_amount: 900,
      recurring: { interval: 'month' },
    });
    const cus = await ok(t, 'POST', '/customers', {
      email: 'a@example.com',
      default_payment_method: 'tok_chargeDeclined',
    });
    const sub = await ok(t, 'POST', '/subscriptions', { customer: cus.id, items: [{ price: price.id }] });
    expect(sub.status).toBe('past_due');
    expect((await only(t, sub.id, 'subscription.created')).data.object.status).toBe('past_due');
    expect((await eventsOf(t, sub.id)).map((e) => e.type)).toEqual(['subscription.created']); // no separate past_due update
    const failed = await only(t, sub.latest_invoice, 'invoice.payment_failed');
    expect(failed.data.previous_attributes).toMatchObject({ attempt_count: 0, last_payment_error: null });
    await ok(t, 'POST', '/test-helpers/advance-clock', { seconds: 8 * DAY });
    const types = (await eventsOf(t, sub.latest_invoice)).map((e) => e.type);
    expect(types.filter((x) => x === 'invoice.payment_failed')).toHaveLength(4); // the first attempt + 3 retries
    const unc = await only(t, sub.latest_invoice, 'invoice.marked_uncollectible');
    expect(unc.created).toBe(failed.created + 7 * DAY);
    const subUpdated = await only(t, sub.id, 'subscription.updated');
    expect([subUpdated.data.previous_attributes, subUpdated.data.object.status]).toEqual([
      { status: 'past_due' },
      'unpaid',
    ]);
  });

  it('invoices: created, updated, finalized, voided, overdue at its due date; the event object has the hosted_invoice_url', async () => {
    const t = await account();
    const cus = await ok(t, 'POST', '/customers', { email: 'a@example.com' });
    const inv = await ok(t, 'POST', '/invoices', {
      customer: cus.id,
      currency: 'usd',
      lines: [{ amount: 500 }],
      collection_method: 'send_invoice',
      days_until_due: 2,
    });
    expect((await only(t, inv.id, 'invoice.created')).data.object).toEqual(inv);
    await ok(t, 'PATCH', `/invoices/${inv.id}`, { description: 'March' });
    expect((await only(t, inv.id, 'invoice.updated')).data.previous_attributes).toEqual({ description: null });
    const open = await ok(t, 'POST', `/invoices/${inv.id}/finalize`, {});
    expect((await only(t, inv.id, 'invoice.finalized')).data.object).toEqual(open);
    await ok(t, 'POST', '/test-helpers/advance-clock', { seconds: 3 * DAY });
    const overdue = await only(t, inv.id, 'invoice.overdue');
    expect(overdue.created).toBe(open.due_date);
    expect(overdue.data.object.status).toBe('past_due');
    const voided = await ok(t, 'POST', `/invoices/${inv.id}/void`, {});
    const v = await only(t, inv.id, 'invoice.voided');
    expect(v.data.object).toEqual(voided);
    expect(v.data.previous_attributes).toMatchObject({ status: 'past_due' });
    await fails(t, 'POST', `/invoices/${inv.id}/void`, {}, 409, 'invoice_unexpected_state');
    expect((await eventsOf(t, inv.id)).filter((e) => e.type === 'invoice.voided')).toHaveLength(1);
  });

  it('checkout sessions: completed with a card, expired at expires_at', async () => {
    const t = await account();
    const p = await ok(t, 'POST', '/products', { name: 'Pro' });
    const price = await ok(t, 'POST', '/prices', {
      product: p.id,
      currency: 'usd',
      unit_amount: 900,
      recurring: { interval: 'month' },
    });
    const cks = await ok(t, 'POST', '/checkout-sessions', {
      mode: 'subscription',
      line_items: [{ price: price.id }],
      customer_email: 'a@example.com',
    });
    const stale = await ok(t, 'POST', '/checkout-sessions', {
      mode: 'subscription',
      line_items: [{ price: price.id }],
    });
    const done = await ok(t, 'POST', `/checkout-sessions/${cks.id}/complete`, { payment_method: 'tok_visa' });
    const completed = await only(t, cks.id, 'checkout_session.completed');
    expect(completed.data.object).toEqual(done);
    expect(completed.data.previous_attributes).toMatchObject({
      status: 'open',
      completed_at: null,
      subscription: null,
    });
    await only(t, done.subscription, 'subscription.created');
    await only(t, done.customer, 'customer.created');
    await ok(t, 'POST', '/test-helpers/advance-clock', { seconds: DAY + 60 });
    const expired = await only(t, stale.id, 'checkout_session.expired');
    expect(expired.created).toBe(Math.floor(Date.parse(stale.expires_at) / 1000));
    expect(expired.data.object).toEqual(await ok(t, 'GET', `/checkout-sessions/${stale.id}`));
  });
});

describe('ledger, identity, bank accounts, refunds', () => {
  it('ledger accounts and holds; hold.expired dated at expires_at; a refused close records nothing', async () => {
    const t = await account();
    const a = await ok(t, 'POST', '/ledger-accounts', { name: 'Wallet', account_type: 'asset', currency: 'usd' });
    expect((await only(t, a.id, 'ledger_account.created')).data.object).toEqual(a);
    const eq = await ok(t, 'POST', '/ledger-accounts', { name: 'Equity', account_type: 'equity', currency: 'usd' });
    const je = await ok(t, 'POST', '/journal-entries', {
      entries: [
        { account_id: a.id, direction: 'debit', amount: 1000 },
        { account_id: eq.id, direction: 'credit', amount: 1000 },
      ],
    });
    expect((await only(t, je.id, 'journal_entry.created')).data.object).toEqual(je);
    const before = await total(t);
    await fails(t, 'POST', `/ledger-accounts/${a.id}/close`, {}, 409, 'ledger_account_unexpected_state');
    expect(await total(t)).toBe(before);
    const frozen = await ok(t, 'POST', `/ledger-accounts/${a.id}/freeze`, { reason: 'review' });
    const f = await only(t, a.id, 'ledger_account.frozen');
    expect(f.data.object).toEqual(frozen);
    expect(f.data.previous_attributes).toEqual({
      status: 'active',
      frozen_at: null,
      frozen_reason: null,
      frozen_by: null,
    });
    await ok(t, 'POST', `/ledger-accounts/${a.id}/unfreeze`, {});
    await only(t, a.id, 'ledger_account.unfrozen');
    const h = await ok(t, 'POST', `/ledger-accounts/${a.id}/holds`, {
      amount: 300,
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect((await only(t, h.id, 'hold.created')).data.object).toEqual(h);
    await ok(t, 'POST', '/test-helpers/advance-clock', { seconds: 7200 });
    const exp = await only(t, h.id, 'hold.expired');
    expect(exp.created).toBe(Math.floor(Date.parse(h.expires_at) / 1000));
    expect(exp.data.object).toMatchObject({ id: h.id, status: 'expired', expired_at: h.expires_at });
  });

  it('identity tokens never carry the value; KYC decisions are dated 30 s after submit', async () => {
    const t = await account();
    const tok = await ok(t, 'POST', '/identity-tokens', { type: 'ssn', value: '123-45-6789' });
    const ev = await only(t, tok.token_id, 'identity_token.created');
    expect(ev.data.object).toEqual({ id: tok.token_id, ...tok });
    expect(JSON.stringify(ev)).not.toContain('123456789');
    const k = await ok(t, 'POST', '/kyc-verifications', {
      customer_id: 'c1',
      verification_level: 'basic',
      identity_token_ids: [tok.token_id],
    });
    await only(t, k.id, 'kyc_verification.created');
    const sub = await ok(t, 'POST', `/kyc-verifications/${k.id}/submit`, {});
    expect((await only(t, k.id, 'kyc_verification.processing')).data.previous_attributes).toMatchObject({
      status: 'pending',
      submitted_at: null,
    });
    await ok(t, 'POST', '/test-helpers/advance-clock', { seconds: 60 });
    const v = await only(t, k.id, 'kyc_verification.verified');
    expect(v.created).toBe(Math.floor(Date.parse(sub.submitted_at) / 1000) + 30);
    const { provider_session_token: token, ...shown } = await ok(t, 'GET', `/kyc-verifications/${k.id}`);
    expect(v.data.object).toEqual(shown);
    expect(token).toMatch(/^kst_/);
    expect(JSON.stringify(await eventsOf(t, k.id))).not.toContain(token); // a credential of the provider's flow
    await ok(t, 'DELETE', `/identity-tokens/${tok.token_id}`);
    await only(t, tok.token_id, 'identity_token.deleted');
  });

  it('bank accounts: events show last4 only; verification and failure', async () => {
    const t = await account();
    const b = await ok(t, 'POST', '/bank-accounts', {
      holder_name: 'Jo',
      routing_number: '110000000',
      account_number: '000123456789',
    });
    const c = await only(t, b.id, 'bank_account.created');
    expect(c.data.object).toEqual(b);
    await ok(t, 'POST', `/bank-accounts/${b.id}/initiate-microdeposits`, {});
    await ok(t, 'POST', `/bank-accounts/${b.id}/verify`, { amounts: [32, 45] });
    const v = await only(t, b.id, 'bank_account.verified');
    expect(v.data.previous_attributes).toMatchObject({ verification_status: 'pending' });
    const bad = await ok(t, 'POST', '/bank-accounts', {
      holder_name: 'Jo',
      routing_number: '110000000',
      account_number: '000123456789',
    });
    await ok(t, 'POST', `/bank-accounts/${bad.id}/initiate-microdeposits`, {});
    for (let i = 0; i < 3; i++) await ok(t, 'POST', `/bank-accounts/${bad.id}/verify`, { amounts: [1, 2] });
    await only(t, bad.id, 'bank_account.verification_failed');
    const all = JSON.stringify(await eventsOf(t, b.id)) + JSON.stringify(await eventsOf(t, bad.id));
    expect(all).not.toContain('000123456789');
    expect(all).not.toContain('110000000');
  });

  it('refund.failed: a tok_refundFail payment refuses its refund — 402, the payment unchanged, the event committed', async () => {
    const t = await account();
    const session = await newSession(t, { amount: 2500 });
    const paid = await confirm(t, session, { payment_method_type: 'card', token_id: 'tok_refundFail' });
    expect([paid.status, paid.body.status]).toEqual([200, 'captured']);
    const r = await t.request('POST', `/refund-payment/${paid.body.id}`, {
      body: { amount: 1000, reason: 'requested_by_customer' },
    });
    expect([r.status, r.body.error.type, r.body.error.code]).toEqual([402, 'card_error', 'refund_failed']);
    const after = await ok(t, 'GET', `/payments/${paid.body.id}`);
    expect([after.status, after.refunded_amount, after.refunds]).toEqual(['captured', 0, []]);
    const ev = await only(t, paid.body.id, 'refund.failed');
    expect(ev).toMatchObject({
      amount: 1000,
      transaction_id: paid.body.id,
      refund: { amount: 1000, status: 'failed' },
    });
    expect(ev.data.object).toEqual(after);
    expect(ev.data.previous_attributes).toBeUndefined();
    // a refund of an ordinary card still succeeds
    const s2 = await newSession(t);
    const p2 = await confirm(t, s2, { payment_method_type: 'card', token_id: 'tok_visa' });
    expect((await t.request('POST', `/refund-payment/${p2.body.id}`, { body: {} })).status).toBe(200);
    await only(t, p2.body.id, 'refund.succeeded');
  });
});
