// Live-service parity: the requests the live service's own clients send — its browser SDK, its web test page and
// its e-commerce plugin — replayed against the real test-mode server over HTTP, and what those clients then read
// from the answers. The request shapes are written from what those clients send (field names, forms, headers);
// no code of theirs is used. docs/api.md "Live-service parity" records each decision.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, sqliteOf } from '../helpers/server.js';
import { CLIENT_SECRET, ISO_MS } from '../helpers/util.js';
import { expectError, newSession, sessionStatus } from './util.js';
import { onSqlite } from '../helpers/engine.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

/** A request as a browser client sends it: the client secret as bearer, JSON content type, body optional. */
async function fromBrowser(method: string, path: string, secret: string, body?: unknown) {
  const res = await fetch(s.baseUrl + path, {
    method,
    headers: {
      'Content-Type': 'application/json',
      Authorization: `Bearer ${secret}`,
      'X-Atlas-Publishable-Key': 'pk_test_parity',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, ok: res.ok, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

/**
 * The browser SDK's flow after its card form made a token: find the session from the client secret alone
 * (POST /get-session-config, no id, no body), confirm with the id in the body, then decide as the SDK does —
 * a challenge when `status` is requires_action and `next_action.type` is redirect_to_url, a failure on any
 * non-2xx (code and decline code from `error`), otherwise success.
 */
async function sdkPay(secret: string, tokenId: string) {
  const lookup = await fromBrowser('POST', '/get-session-config', secret);
  expect(lookup.status).toBe(200);
  const sessionId: string = lookup.body.session_id;
  const res = await fromBrowser('POST', '/confirm-payment', secret, { session_id: sessionId, token_id: tokenId });
  if (!res.ok)
    return {
      outcome: 'error' as const,
      sessionId,
      res,
      code: res.body.error?.code,
      declineCode: res.body.error?.decline_code,
    };
  if (res.body.status === 'requires_action' && res.body.next_action?.type === 'redirect_to_url') {
    return {
      outcome: 'challenge' as const,
      sessionId,
      res,
      challengeUrl: res.body.next_action.redirect_to_url.url as string,
    };
  }
  return { outcome: 'success' as const, sessionId, res };
}

describe("the live service's browser SDK", () => {
  it('card success: session found from the secret alone, confirm with the id in the body → captured', async () => {
    const sess = await newSession(s, { amount: 2500 });
    const r = await sdkPay(sess.client_secret, 'tok_visa');
    expect(r.sessionId).toBe(sess.id);
    expect(r.outcome).toBe('success');
    expect(r.res.body).toMatchObject({
      object: 'payment',
      session_id: sess.id,
      status: 'captured',
      captured_amount: 2500,
      next_action: null,
    });
    expect(r.res.body.routing).toEqual({
      attempts: 1,
      selected_psp: r.res.body.psp,
      selection_reason: 'routing_rules',
      is_retry: false,
    });
    expect(await sessionStatus(s, sess.id)).toBe('succeeded');
  });

  it('decline: 402 with the code and decline code the SDK reports; the session is failed', async () => {
    const sess = await newSession(s);
    const r = await sdkPay(sess.client_secret, 'tok_chargeDeclinedInsufficientFunds');
    expect(r.outcome).toBe('error');
    expect(r.res.status).toBe(402);
    expect(r.code).toBe('insufficient_funds');
    expect(r.declineCode).toBe('insufficient_funds');
    expect(await sessionStatus(s, sess.id)).toBe('failed');
  });

  it('3DS: the challenge branch runs (requires_action + redirect_to_url), the challenge completes, the payment is captured', async () => {
    const sess = await newSession(s, { success_url: 'https://shop.example.com/thanks' });
    const r = await sdkPay(sess.client_secret, 'tok_threeDSecureRequired');
    expect(r.outcome).toBe('challenge');
    const challenge = `${s.baseUrl}/pay/${sess.id}?step=threeds`;
    expect(r.res.body.next_action).toEqual({
      type: 'redirect_to_url',
      url: challenge,
      redirect_to_url: { url: challenge, return_url: 'https://shop.example.com/thanks' },
    });
    // the session shows the same action and its latest attempt, as at the live service
    const viewed = (await s.request('GET', `/sessions/${sess.id}`)).body;
    expect(viewed).toMatchObject({
      status: 'requires_action',
      next_action: r.res.body.next_action,
      latest_attempt: { id: r.res.body.id, status: 'requires_action', psp: r.res.body.psp },
    });
    // the challenge page completes it (with the client secret, as the hosted page does)
    const done = await fromBrowser(
      'POST',
      `/threeds-authenticate/sessions/${sess.id}/challenge-complete`,
      sess.client_secret,
      {},
    );
    expect(done.body).toMatchObject({ status: 'authenticated', payment_status: 'captured' });
    const after = await fromBrowser('POST', '/get-session-config', sess.client_secret);
    expect(after.body).toMatchObject({
      status: 'succeeded',
      payment: { id: r.res.body.id, status: 'captured', next_action: null },
    });
    const finished = (await s.request('GET', `/sessions/${sess.id}`)).body;
    expect(finished).toMatchObject({ status: 'succeeded', next_action: null, latest_attempt: { status: 'captured' } });
  });

  it('3DS that fails authentication: the SDK sees the challenge, then the payment fails', async () => {
    const sess = await newSession(s);
    const r = await sdkPay(sess.client_secret, 'tok_threeDSecureFail');
    expect(r.outcome).toBe('challenge');
    // no success_url: the payer returns to the hosted page, which shows the result
    expect(r.res.body.next_action.redirect_to_url.return_url).toBe(`${s.baseUrl}/pay/${sess.id}`);
    await fromBrowser('POST', `/threeds-authenticate/sessions/${sess.id}/challenge-complete`, sess.client_secret, {});
    expect((await s.request('GET', `/payments/${r.res.body.id}`)).body).toMatchObject({
      status: 'failed',
      failure_code: 'authentication_failed',
    });
  });
});

describe("the live service's web test page", () => {
  it('creates a session as it does, confirms on the path with session_id and token_provider in the body', async () => {
    const created = await s.request('POST', '/create-session', {
      body: {
        amount: 1000,
        currency: 'NZD',
        capture_method: 'automatic',
        metadata: { order_id: 'test-1700000000000', customer_email: 'test@example.com' },
      },
    });
    expect(created.status).toBe(201);
    const res = await fromBrowser('POST', `/confirm-payment/${created.body.id}`, created.body.client_secret, {
      session_id: created.body.id,
      token_id: 'tok_visa',
      token_provider: 'atlas',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'captured', currency: 'NZD' });
    expect(typeof res.body.psp_transaction_id).toBe('string');
  });
});

describe("the live service's e-commerce plugin", () => {
  it('creates a session with customer_email, return_url, cancel_url and save_payment_method', async () => {
    const r = await s.request('POST', '/create-session', {
      body: {
        amount: 4999,
        currency: 'USD',
        external_id: 'wc-1234',
        customer_email: 'buyer@example.com',
        metadata: { order_id: '1234' },
        return_url: 'https://shop.example.com/checkout/order-received/1234',
        cancel_url: 'https://shop.example.com/checkout',
        save_payment_method: true,
      },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      external_id: 'wc-1234',
      customer_email: 'buyer@example.com',
      success_url: 'https://shop.example.com/checkout/order-received/1234',
      cancel_url: 'https://shop.example.com/checkout',
      save_payment_method: true,
    });
    // its session lookup: GET /get-session-config/{id} with the secret key
    const looked = await s.request('GET', `/get-session-config/${r.body.id}`);
    expect(looked.body).toMatchObject({ session_id: r.body.id, amount: 4999, fallback_url: r.body.fallback_url });
    // the alias and the field may both be given only when they agree
    const both = await s.request('POST', '/create-session', {
      body: { amount: 1, currency: 'usd', customer: { email: 'a@example.com' }, customer_email: 'b@example.com' },
    });
    expectError(both, 400, 'validation_error', 'parameter_invalid', 'customer_email');
    const agree = await s.request('POST', '/create-session', {
      body: { amount: 1, currency: 'usd', success_url: 'https://a.example', return_url: 'https://a.example' },
    });
    expect(agree.body.success_url).toBe('https://a.example');
  });

  it('refunds with an order reference as the reason, after a capture with an amount', async () => {
    const sess = await newSession(s, { capture_method: 'manual', amount: 4999 });
    const paid = await fromBrowser('POST', `/confirm-payment/${sess.id}`, sess.client_secret, {
      session_id: sess.id,
      token_id: 'tok_visa',
    });
    const cap = await s.request('POST', `/capture-payment/${paid.body.id}`, { body: { amount: 4999 } });
    expect(cap.body.status).toBe('captured');
    const refund = await s.request('POST', `/refund-payment/${paid.body.id}`, {
      body: { amount: 1000, reason: 'Order #1234 returned' },
    });
    expect(refund.status).toBe(200);
    expect(refund.body.refunds).toEqual([expect.objectContaining({ amount: 1000, reason: 'Order #1234 returned' })]);
  });

  it('its confirm and token charge with the secret key are refused as at the live service (the client secret is the credential)', async () => {
    const sess = await newSession(s);
    expectError(
      await s.request('POST', `/confirm-payment/${sess.id}`, { body: { session_id: sess.id } }),
      401,
      'authentication_error',
      'invalid_client_secret',
    );
    const charge = await s.request('POST', '/confirm-payment', {
      body: {
        payment_method_token: 'tok_visa',
        amount: 4999,
        currency: 'USD',
        external_id: 'wc-1',
        stored_card_indicator: 'recurring',
      },
    });
    expectError(charge, 401, 'authentication_error', 'invalid_client_secret');
    expect(await sessionStatus(s, sess.id)).toBe('requires_payment_method');
  });
});

describe('the fields the live service reads', () => {
  const address = {
    street: '1 Main St',
    city: 'Springfield',
    state: 'IL',
    postal_code: '62701',
    country: 'US',
    recipient_name: 'Jenny Rosen',
  };

  it('create-session: merchant_reference, customer.phone, addresses, browser, statement_descriptor — stored, echoed (browser only stored)', async () => {
    const r = await s.request('POST', '/create-session', {
      body: {
        amount: 1200,
        currency: 'eur',
        merchant_reference: 'INV-2026-001',
        customer: { email: 'jenny@example.com', name: 'Jenny Rosen', phone: '+15555550100' },
        billing_address: address,
        shipping_address: { line1: '2 Side Rd', line2: 'Apt 4', city: 'Shelbyville', country: 'US' },
        browser: { ip_address: '203.0.113.7', user_agent: 'Mozilla/5.0 parity' },
        statement_descriptor: 'PAYORCH TEST',
      },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      merchant_reference: 'INV-2026-001',
      customer_phone: '+15555550100',
      billing_address: address,
      shipping_address: { line1: '2 Side Rd', line2: 'Apt 4', city: 'Shelbyville', country: 'US' },
      statement_descriptor: 'PAYORCH TEST',
      latest_attempt: null,
      next_action: null,
    });
    expect(r.body.updated_at).toMatch(ISO_MS);
    expect(r.text).not.toContain('203.0.113.7');
    expect(Object.keys(r.body).at(-1)).toBe('client_secret');
    const got = (await s.request('GET', `/sessions/${r.body.id}`)).body;
    expect(got).toEqual(r.body);
    expectError(
      await s.request('POST', '/create-session', {
        body: { amount: 1, currency: 'usd', statement_descriptor: 'X'.repeat(23) },
      }),
      400,
      'validation_error',
      'parameter_invalid',
      'statement_descriptor',
    );
    expectError(
      await s.request('POST', '/create-session', {
        body: { amount: 1, currency: 'usd', billing_address: { zip: '1' } },
      }),
      400,
      'validation_error',
      'parameter_unknown',
      'billing_address.zip',
    );
  });

  it('update: statement_descriptor, customer.phone, addresses (replaced whole); updated_at moves', async () => {
    const sess = await newSession(s, { billing_address: address });
    await s.request('POST', '/test-helpers/advance-clock', { body: { seconds: 60 } });
    const u = await s.request('PATCH', `/sessions/${sess.id}`, {
      body: {
        statement_descriptor: 'NEW DESC',
        customer: { phone: '+15555550199' },
        billing_address: { city: 'Ogdenville' },
      },
    });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({
      statement_descriptor: 'NEW DESC',
      customer_phone: '+15555550199',
      billing_address: { city: 'Ogdenville' },
    });
    expect(u.body.billing_address.street).toBeUndefined();
    expect(Date.parse(u.body.updated_at) - Date.parse(sess.updated_at)).toBeGreaterThanOrEqual(60_000);
  });

  it.runIf(onSqlite)(
    'confirm: token_provider, routing_profile_id, vgs_data (never stored or echoed), psp',
    async () => {
      const sess = await newSession(s);
      const vgs = {
        card_number: 'tok_sandbox_vgsAliasNumber1',
        card_expiry: 'tok_sandbox_vgsAliasExpiry1',
        card_cvc: 'tok_sandbox_vgsAliasCvc1',
      };
      const r = await fromBrowser('POST', `/confirm-payment/${sess.id}`, sess.client_secret, {
        token_id: 'tok_visa',
        token_provider: 'vgs',
        routing_profile_id: 'rp_checkout_default',
        vgs_data: vgs,
        psp: 'cobalt',
      });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        status: 'captured',
        psp: 'cobalt',
        routing_profile_id: 'rp_checkout_default',
        routing: { selected_psp: 'cobalt', selection_reason: 'forced', attempts: 1 },
      });
      expect(r.text).not.toContain('vgsAlias');
      const rows = sqliteOf(s).db.prepare('SELECT data FROM payments').all() as { data: string }[];
      for (const row of rows) expect(row.data).not.toContain('vgsAlias');
      const bad = await fromBrowser(
        'POST',
        `/confirm-payment/${(await newSession(s)).id}`,
        (await newSession(s)).client_secret,
        { token_id: 'tok_visa', token_provider: 'elsewhere' },
      );
      expect(bad.status).toBe(401); // auth comes first: the secret is another session's
    },
  );

  it('confirm: bank_account.account_type must be the account\u2019s own; the payment shows bank_name and account_type', async () => {
    const ba = (
      await s.request('POST', '/bank-accounts', {
        body: {
          account_number: '000123456789',
          routing_number: '110000000',
          holder_name: 'Jenny Rosen',
          account_type: 'savings',
        },
      })
    ).body;
    expect(ba.created_at).toBe(new Date(ba.created * 1000).toISOString());
    await s.request('POST', `/bank-accounts/${ba.id}/initiate-microdeposits`);
    await s.request('POST', `/bank-accounts/${ba.id}/verify`, { body: { amounts: [32, 45] } });
    const sess = await newSession(s, { payment_method_types: ['bank_account'] });
    const wrong = await fromBrowser('POST', `/confirm-payment/${sess.id}`, sess.client_secret, {
      bank_account: { account_holder_name: 'Jenny Rosen', bank_account_id: ba.id, account_type: 'checking' },
    });
    expectError(wrong, 400, 'validation_error', 'parameter_invalid', 'bank_account.account_type');
    const ok = await fromBrowser('POST', `/confirm-payment/${sess.id}`, sess.client_secret, {
      bank_account: { account_holder_name: 'Jenny Rosen', bank_account_id: ba.id, account_type: 'savings' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.bank_account).toEqual({
      id: ba.id,
      last4: '6789',
      routing_last4: '0000',
      account_holder_name: 'Jenny Rosen',
      bank_name: ba.bank_name,
      account_type: 'savings',
    });
  });

  it('wallets: wallet.card_network is present (null: a test wallet token carries no card)', async () => {
    const sess = await newSession(s, { payment_method_types: ['walletone_pay'] });
    const r = await fromBrowser('POST', '/confirm-payment', sess.client_secret, {
      session_id: sess.id,
      walletone_pay_token: 'wallet_ok',
    });
    expect(r.body.wallet).toEqual({ type: 'walletone_pay', card_network: null });
  });

  it('an unknown field is still refused, and the error names the nearest known field', async () => {
    const cases: [Record<string, unknown>, string, string | undefined][] = [
      [{ email: 'a@example.com' }, 'email', 'customer.email'],
      [{ succes_url: 'https://a.example' }, 'succes_url', 'success_url'],
      [{ captureMethod: 'manual' }, 'captureMethod', 'capture_method'],
      [{ customer: { emial: 'a@example.com' } }, 'customer.emial', 'customer.email'],
      [{ zzzzzzzz: 1 }, 'zzzzzzzz', undefined],
    ];
    for (const [extra, param, suggestion] of cases) {
      const r = await s.request('POST', '/create-session', { body: { amount: 100, currency: 'usd', ...extra } });
      expectError(r, 400, 'validation_error', 'parameter_unknown', param);
      if (suggestion)
        expect(r.body.error.message).toBe(`Received unknown parameter: ${param}. Did you mean ${suggestion}?`);
      else expect(r.body.error.message).toBe(`Received unknown parameter: ${param}.`);
    }
  });
});

describe('the other shared routes', () => {
  it('a browser retrieves its session with the client secret; updating and canceling still need the API key', async () => {
    const sess = await newSession(s);
    const got = await fromBrowser('GET', `/sessions/${sess.id}`, sess.client_secret);
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(sess.id);
    expect((await fromBrowser('GET', `/sessions/${(await newSession(s)).id}`, sess.client_secret)).status).toBe(401);
    expect((await fromBrowser('PATCH', `/sessions/${sess.id}`, sess.client_secret, { amount: 1 })).status).toBe(401);
    expect((await fromBrowser('POST', `/sessions/${sess.id}/cancel`, sess.client_secret, {})).status).toBe(401);
    expect((await s.request('GET', `/sessions/${sess.id}`)).body.amount).toBe(5000);
  });

  it("wallet merchant validation on the contract's path with the client secret of the body's session", async () => {
    const sess = await newSession(s, { payment_method_types: ['walletone_pay'] });
    const body = {
      validation_url: 'https://wallet.example/paymentservices/startSession',
      domain: 'shop.example.com',
      session_id: sess.id,
    };
    const ok = await fromBrowser('POST', '/walletone-pay-validate-merchant', sess.client_secret, body);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ object: 'walletone_merchant_session', session_id: sess.id });
    const other = await newSession(s, { payment_method_types: ['walletone_pay'] });
    expectError(
      await fromBrowser('POST', '/walletone-pay-validate-merchant', sess.client_secret, {
        ...body,
        session_id: other.id,
      }),
      401,
      'authentication_error',
      'invalid_client_secret',
    );
    expect((await s.request('POST', '/walletone-pay-validate-merchant', { body })).status).toBe(200);
  });

  it('bank accounts: is_default on create and PATCH {nickname, is_default, metadata}; one default per customer', async () => {
    const create = (extra: Record<string, unknown>) =>
      s.request('POST', '/bank-accounts', {
        body: { account_number: '000123456789', routing_number: '110000000', holder_name: 'Jenny Rosen', ...extra },
      });
    const first = (await create({ customer_id: 'cus_parity' })).body;
    const second = (await create({ customer_id: 'cus_parity', is_default: true })).body;
    const other = (await create({ customer_id: 'cus_other' })).body;
    expect(second.is_default).toBe(true);
    expect((await s.request('GET', `/bank-accounts/${first.id}`)).body.is_default).toBe(false);
    const u = await s.request('PATCH', `/bank-accounts/${first.id}`, {
      body: { nickname: 'Payroll', is_default: true, metadata: { k: 'v' } },
    });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ nickname: 'Payroll', is_default: true, metadata: { k: 'v' } });
    expect((await s.request('GET', `/bank-accounts/${second.id}`)).body.is_default).toBe(false);
    expect((await s.request('GET', `/bank-accounts/${other.id}`)).body.is_default).toBe(true); // another customer's default stays
    expect(
      (await s.request('PATCH', `/bank-accounts/${first.id}`, { body: { nickname: null } })).body.nickname,
    ).toBeNull();
    expectError(await create({ is_default: true }), 400, 'validation_error', 'parameter_invalid', 'is_default');
    expectError(
      await s.request('PATCH', `/bank-accounts/${first.id}`, { body: { holder_name: 'x' } }),
      400,
      'validation_error',
      'parameter_unknown',
      'holder_name',
    );
    expectError(
      await s.request('PATCH', '/bank-accounts/ba_missing', { body: {} }),
      404,
      'invalid_request_error',
      'resource_missing',
    );
  });

  it('network tokens: session_id and request_cryptogram, from a browser with the client secret; the live service\u2019s field names', async () => {
    const sess = await newSession(s);
    const nt = await fromBrowser('POST', '/network-tokens', sess.client_secret, {
      session_id: sess.id,
      token_id: 'tok_mastercard',
      request_cryptogram: true,
    });
    expect(nt.status).toBe(201);
    expect(nt.body).toMatchObject({
      object: 'network_token',
      networkTokenId: nt.body.id,
      network: 'mastercard',
      status: 'active',
      cryptogramType: 'TAVV',
    });
    expect(nt.body.tokenExpiryMonth).toMatch(/^\d{2}$/);
    expect(nt.body.tokenExpiryYear).toMatch(/^\d{4}$/);
    expect(typeof nt.body.cryptogram).toBe('string');
    const c = await fromBrowser('POST', `/network-tokens/${nt.body.id}/cryptogram`, sess.client_secret, {
      session_id: sess.id,
    });
    expect(c.body).toMatchObject({
      network_token_id: nt.body.id,
      cryptogramType: 'TAVV',
      expiresAt: c.body.expires_at,
    });
    const other = await newSession(s);
    expectError(
      await fromBrowser('POST', '/network-tokens', sess.client_secret, {
        session_id: other.id,
        token_id: 'tok_visa',
      }),
      401,
      'authentication_error',
      'invalid_client_secret',
    );
    expectError(
      await s.request('POST', '/network-tokens', {
        body: { session_id: '00000000-0000-7000-8000-000000000000', token_id: 'tok_visa' },
      }),
      404,
      'invalid_request_error',
      'resource_missing',
    );
    const plain = await s.request('POST', '/network-tokens', { body: { token_id: 'tok_visa' } });
    expect(plain.body.cryptogram).toBeUndefined();
  });
});

describe('both confirm forms and the secret that names its session', () => {
  it('POST /confirm-payment without session_id confirms the session the client secret names; a mismatch with the path → 400', async () => {
    const named = await newSession(s);
    const bySecret = await fromBrowser('POST', '/confirm-payment', named.client_secret, { token_id: 'tok_visa' });
    expect(bySecret.status).toBe(200);
    expect(bySecret.body).toMatchObject({ object: 'payment', session_id: named.id, status: 'captured' });
    expect(await sessionStatus(s, named.id)).toBe('succeeded');
    const sess = await newSession(s);
    const other = await newSession(s);
    expectError(
      await fromBrowser('POST', `/confirm-payment/${sess.id}`, sess.client_secret, {
        session_id: other.id,
        token_id: 'tok_visa',
      }),
      400,
      'validation_error',
      'parameter_invalid',
      'session_id',
    );
    expect(await sessionStatus(s, sess.id)).toBe('requires_payment_method');
    expect(await sessionStatus(s, other.id)).toBe('requires_payment_method');
  });

  it("a secret confirms only its own session: another session's id in the body → 401, that session untouched", async () => {
    const a = await newSession(s);
    const b = await newSession(s);
    expectError(
      await fromBrowser('POST', '/confirm-payment', a.client_secret, {
        session_id: b.id,
        token_id: 'tok_visa',
      }),
      401,
      'authentication_error',
      'invalid_client_secret',
    );
    expect(await sessionStatus(s, b.id)).toBe('requires_payment_method');
    expect((await s.request('GET', `/payments?session_id=${b.id}`)).body.data).toEqual([]);
  });

  it('both forms run one pipeline: an Idempotency-Key replays, a second confirm is 409', async () => {
    const sess = await newSession(s);
    const h = { 'Idempotency-Key': `parity-${sess.id}` };
    const first = await fetch(`${s.baseUrl}/confirm-payment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${sess.client_secret}`, ...h },
      body: JSON.stringify({ session_id: sess.id, token_id: 'tok_visa' }),
    });
    const again = await fetch(`${s.baseUrl}/confirm-payment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${sess.client_secret}`, ...h },
      body: JSON.stringify({ session_id: sess.id, token_id: 'tok_visa' }),
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expectError(
      await fromBrowser('POST', `/confirm-payment/${sess.id}`, sess.client_secret, { token_id: 'tok_visa' }),
      409,
      'invalid_request_error',
      'session_unexpected_state',
    );
  });

  it.runIf(onSqlite)(
    'get-session-config without an id: only a client secret (it names its session); a forged or altered one → 401',
    async () => {
      const a = await newSession(s);
      const b = await newSession(s);
      expect(a.client_secret).toMatch(CLIENT_SECRET);
      for (const method of ['GET', 'POST']) {
        expect((await fromBrowser(method, '/get-session-config', a.client_secret)).body.session_id).toBe(a.id);
        expect((await fromBrowser(method, '/get-session-config', b.client_secret)).body.session_id).toBe(b.id);
        expect((await fromBrowser(method, `/get-session-config/${a.id}`, a.client_secret)).body.session_id).toBe(a.id);
      }
      expectError(await s.request('POST', '/get-session-config'), 401, 'authentication_error', 'invalid_client_secret');
      expect((await fromBrowser('POST', `/get-session-config/${b.id}`, a.client_secret)).status).toBe(401);
      // every single-character change of the secret is refused
      const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
      for (let i = 3; i < a.client_secret.length; i += 5) {
        const c = a.client_secret[i]!;
        const altered =
          a.client_secret.slice(0, i) + alphabet[(alphabet.indexOf(c) + 1) % 62] + a.client_secret.slice(i + 1);
        expect((await fromBrowser('POST', '/get-session-config', altered)).status).toBe(401);
      }
      // nothing of the secret is stored
      const row = sqliteOf(s).db.prepare('SELECT data FROM payment_sessions WHERE id = ?').get(a.id) as {
        data: string;
      };
      expect(row.data).not.toContain(a.client_secret.slice(3, 20));
    },
  );

  it.runIf(onSqlite)(
    'a session stored with the earlier derived secret keeps it: it works with the id in the path, and (naming no session) not without',
    async () => {
      const created = await newSession(s);
      const db = sqliteOf(s).db;
      const row = db.prepare('SELECT data FROM payment_sessions WHERE id = ?').get(created.id) as { data: string };
      const { secret_form: _form, ...earlier } = JSON.parse(row.data);
      db.prepare('UPDATE payment_sessions SET data = ? WHERE id = ?').run(JSON.stringify(earlier), created.id);
      const old = (await s.request('GET', `/sessions/${created.id}`)).body.client_secret;
      expect(old).toMatch(CLIENT_SECRET);
      expect(old).not.toBe(created.client_secret);
      expect((await fromBrowser('GET', `/get-session-config/${created.id}`, old)).status).toBe(200);
      expect((await fromBrowser('GET', `/get-session-config/${created.id}`, created.client_secret)).status).toBe(401);
      expect((await fromBrowser('POST', '/get-session-config', old)).status).toBe(401);
      const paid = await fromBrowser('POST', `/confirm-payment/${created.id}`, old, {
        session_id: created.id,
        token_id: 'tok_visa',
      });
      expect(paid.body.status).toBe('captured');
    },
  );
});

describe('the OpenAPI document', () => {
  it('every operation has an operationId, a summary, a description and a defined tag; the new forms and fields are in it', async () => {
    const doc = (await s.request('GET', '/openapi.json', { key: null })).body;
    const tags = new Set(doc.tags.map((t: { name: string; description: string }) => t.name));
    const ids = new Set<string>();
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(op.operationId, where).toMatch(/^[a-zA-Z]+$/);
        expect(ids.has(op.operationId), `${where}: operationId ${op.operationId} twice`).toBe(false);
        ids.add(op.operationId);
        expect(op.summary, where).toBeTruthy();
        expect(op.description?.length ?? 0, where).toBeGreaterThan(20);
        expect(op.tags, where).toHaveLength(1);
        expect(tags.has(op.tags[0]), `${where}: tag ${op.tags[0]} not defined`).toBe(true);
      }
    }
    expect(doc.paths['/confirm-payment'].post.requestBody.content['application/json'].schema.properties).toHaveProperty(
      'session_id',
    );
    expect(doc.paths['/get-session-config'].post).toBeDefined();
    const session = doc.paths['/create-session'].post.responses['201'].content['application/json'].schema.properties;
    for (const f of ['next_action', 'latest_attempt', 'billing_address', 'shipping_address', 'updated_at'])
      expect(session).toHaveProperty(f);
    const payment =
      doc.paths['/confirm-payment/{session_id}'].post.responses['200'].content['application/json'].schema.properties;
    for (const f of ['routing', 'three_d_secure', 'next_action']) expect(payment).toHaveProperty(f);
    // it points to this repository's docs/api.md only
    expect(JSON.stringify(doc).replaceAll('docs/api.md', '')).not.toMatch(/\.md\b/);
  });

  it('docs/api.md records the decisions in one table', () => {
    const md = readFileSync(join(import.meta.dirname, '../../docs/api.md'), 'utf8');
    const section = md.slice(md.indexOf('## Live-service parity'));
    expect(section.length).toBeGreaterThan(100);
    for (const topic of [
      'POST /confirm-payment',
      'get-session-config',
      'requires_action',
      'redirect_to_url',
      'customer_email',
      'return_url',
      'reason',
    ])
      expect(section).toContain(topic);
  });
});

describe("a price created with its own `type` (the contract's Price table; the live service reads it)", () => {
  it('is accepted when it agrees with `recurring`, refused with the field named when it does not', async () => {
    const product = (await s.request('POST', '/products', { body: { name: 'Typed' } })).body;
    const recurring = await s.request('POST', '/prices', {
      body: {
        product: product.id,
        currency: 'usd',
        unit_amount: 500,
        type: 'recurring',
        recurring: { interval: 'month' },
      },
    });
    expect(recurring.status).toBe(201);
    expect(recurring.body.type).toBe('recurring');
    const once = await s.request('POST', '/prices', {
      body: { product: product.id, currency: 'usd', unit_amount: 500, type: 'one_time' },
    });
    expect(once.status).toBe(201);
    expect(once.body.type).toBe('one_time');
    const missing = await s.request('POST', '/prices', {
      body: { product: product.id, currency: 'usd', unit_amount: 500, type: 'recurring' },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'parameter_missing', param: 'recurring' });
    const wrong = await s.request('POST', '/prices', {
      body: {
        product: product.id,
        currency: 'usd',
        unit_amount: 500,
        type: 'one_time',
        recurring: { interval: 'month' },
      },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'parameter_invalid', param: 'type' });
  });
});
