// Bank accounts (§8) and ACH debits on the clock, the test vault, network tokens, wallet merchant
// validation, session config, test values, billing's charger and the money hooks — over real HTTP.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type List, type TestServer } from '../helpers/server.js';
import type { PaymentMoneyEvent } from '../../dist/lib/server/domain/hooks.js';
import type { BankAccount, Payment } from '../../dist/lib/contract/payments.js';
import { advance, confirm, expectError, newSession, sessionStatus } from './util.js';

let s: TestServer;
const captured: ({ acct: string } & PaymentMoneyEvent)[] = [];
const refunded: ({ acct: string } & PaymentMoneyEvent)[] = [];
beforeAll(async () => {
  s = await startTestServer();
  s.server.services.hooks.on('paymentCaptured', (acct, e) => void captured.push({ acct, ...e }));
  s.server.services.hooks.on('paymentRefunded', (acct, e) => void refunded.push({ acct, ...e }));
});
afterAll(() => s.close());

const ROUTING = '110000000';

async function bankAccount(t: TestServer, account_number: string, extra: Record<string, unknown> = {}) {
  const r = await t.request('POST', '/bank-accounts', {
    body: { account_number, routing_number: ROUTING, holder_name: 'Jenny Rosen', ...extra },
  });
  if (r.status !== 201) throw new Error(`${r.status} ${r.text}`);
  return r.body;
}
async function verified(t: TestServer, account_number: string) {
  const ba = await bankAccount(t, account_number);
  await t.request('POST', `/bank-accounts/${ba.id}/initiate-microdeposits`);
  const v = await t.request('POST', `/bank-accounts/${ba.id}/verify`, { body: { amounts: [45, 32] } });
  expect(v.body).toMatchObject({ verified: true });
  return ba;
}

describe('bank accounts (contract §8)', () => {
  it('creates (201) with last4 only; ABA checksum and digit rules; the rejected test account', async () => {
    const ba = await bankAccount(s, '000123456789', { customer_id: 'cus_test', metadata: { a: 'b' } });
    expect(ba).toMatchObject({
      object: 'bank_account',
      customer_id: 'cus_test',
      holder_name: 'Jenny Rosen',
      account_type: 'checking',
      last4: '6789',
      routing_last4: '0000',
      country: 'US',
      currency: 'USD',
      is_default: true,
      verification_status: 'unverified',
      metadata: { a: 'b' },
      livemode: false,
    });
    expect(ba.id).toMatch(/^ba_[0-9A-Za-z]{20,}$/);
    expect(typeof ba.created).toBe('number');
    expect(JSON.stringify(ba)).not.toContain('000123456789');
    expect(JSON.stringify(ba)).not.toContain(ROUTING);
    const post = (body: Record<string, unknown>) =>
      s.request('POST', '/bank-accounts', {
        body: { account_number: '000123456789', routing_number: ROUTING, holder_name: 'J', ...body },
      });
    expectError(
      await post({ routing_number: '110000001' }),
      400,
      'validation_error',
      'parameter_invalid',
      'routing_number',
    );
    expectError(
      await post({ routing_number: '11000000' }),
      400,
      'validation_error',
      'parameter_invalid',
      'routing_number',
    );
    expectError(await post({ account_number: '123' }), 400, 'validation_error', 'parameter_invalid', 'account_number');
    expectError(
      await post({ account_number: '123456789012345678' }),
      400,
      'validation_error',
      'parameter_invalid',
      'account_number',
    );
    expectError(
      await post({ account_number: '12ab5678' }),
      400,
      'validation_error',
      'parameter_invalid',
      'account_number',
    );
    expectError(
      await post({ account_type: 'brokerage' }),
      400,
      'validation_error',
      'parameter_invalid',
      'account_type',
    );
    expectError(await post({ holder_name: undefined }), 400, 'validation_error', 'parameter_missing', 'holder_name');
    const rejected = await post({ account_number: '000111111116' });
    expectError(rejected, 400, 'invalid_request_error', 'bank_account_rejected', 'account_number');
    expect(rejected.text).not.toContain('000111111116');
    // other valid routing numbers pass the checksum (021000021, 011000015)
    expect((await post({ routing_number: '021000021' })).status).toBe(201);
    expect((await post({ routing_number: '011000015', account_type: 'savings' })).body.account_type).toBe('savings');
  });

  it('get, list with filters, delete', async () => {
    const a = await bankAccount(s, '000123456789', { customer_id: 'cus_list' });
    const b = await bankAccount(s, '000222222227', { customer_id: 'cus_list' });
    expect(b.is_default).toBe(false);
    await s.request('POST', `/bank-accounts/${b.id}/initiate-microdeposits`);
    expect((await s.request('GET', `/bank-accounts/${a.id}`)).body).toEqual(a);
    const list = await s.request<List<BankAccount>>('GET', '/bank-accounts?customer_id=cus_list');
    expect(list.body).toMatchObject({ object: 'list', total_count: 2, has_more: false });
    expect(list.body.data.map((x) => x.id)).toEqual([b.id, a.id]);
    const pending = await s.request<List<BankAccount>>(
      'GET',
      '/bank-accounts?customer_id=cus_list&verification_status=pending',
    );
    expect(pending.body.data.map((x) => x.id)).toEqual([b.id]);
    expectError(
      await s.request('GET', '/bank-accounts?verification_status=weird'),
      400,
      'validation_error',
      'parameter_invalid',
      'verification_status',
    );
    const del = await s.request('DELETE', `/bank-accounts/${a.id}`);
    expect(del.body).toEqual({ id: a.id, object: 'bank_account', deleted: true });
    expectError(await s.request('GET', `/bank-accounts/${a.id}`), 404, 'invalid_request_error', 'resource_missing');
    expectError(await s.request('DELETE', `/bank-accounts/${a.id}`), 404, 'invalid_request_error', 'resource_missing');
  });

  it('micro-deposits: unverified → pending (+10 days), repeat returns the same; verify 32/45 either order', async () => {
    const ba = await bankAccount(s, '000123456789');
    // The account clock read on both sides of the request (not a fixed few seconds, which a busy machine can exceed).
    const before = (await s.request('GET', '/test-helpers/clock')).body.now;
    const i1 = await s.request('POST', `/bank-accounts/${ba.id}/initiate-microdeposits`);
    const after = (await s.request('GET', '/test-helpers/clock')).body.now;
    expect(i1.status).toBe(200);
    expect(i1.body).toMatchObject({ status: 'pending', method: 'microdeposits' });
    const exp = Date.parse(i1.body.expires_at) / 1000;
    expect(exp - 10 * 86400).toBeGreaterThanOrEqual(before);
    expect(exp - 10 * 86400).toBeLessThanOrEqual(after + 1);
    const i2 = await s.request('POST', `/bank-accounts/${ba.id}/initiate-microdeposits`, { body: {} });
    expect(i2.body).toEqual(i1.body);
    expect((await s.request('GET', `/bank-accounts/${ba.id}`)).body).toMatchObject({
      verification_status: 'pending',
      verification_method: 'microdeposits',
    });
    const v = await s.request('POST', `/bank-accounts/${ba.id}/verify`, { body: { amounts: [45, 32] } });
    expect(v.body).toMatchObject({ verified: true, attempts_remaining: 3 });
    expect((await s.request('GET', `/bank-accounts/${ba.id}`)).body.verification_status).toBe('verified');
    expectError(
      await s.request('POST', `/bank-accounts/${ba.id}/initiate-microdeposits`),
      409,
      'invalid_request_error',
      'bank_account_unexpected_state',
    );
    expectError(
      await s.request('POST', `/bank-accounts/${ba.id}/verify`, { body: { amounts: [32, 45] } }),
      409,
      'invalid_request_error',
      'bank_account_unexpected_state',
    );
  });

  it('wrong amounts count down 3 → 0, then failed; failed → 409', async () => {
    const ba = await bankAccount(s, '000123456789');
    expectError(
      await s.request('POST', `/bank-accounts/${ba.id}/verify`, { body: { amounts: [32, 45] } }),
      409,
      'invalid_request_error',
      'bank_account_unexpected_state',
    );
    await s.request('POST', `/bank-accounts/${ba.id}/initiate-microdeposits`);
    const seen = [];
    for (let i = 0; i < 3; i++)
      seen.push((await s.request('POST', `/bank-accounts/${ba.id}/verify`, { body: { amounts: [10, 20] } })).body);
    expect(seen).toEqual([
      { verified: false, attempts_remaining: 2, verification_status: 'pending' },
      { verified: false, attempts_remaining: 1, verification_status: 'pending' },
      { verified: false, attempts_remaining: 0, verification_status: 'failed' },
    ]);
    expectError(
      await s.request('POST', `/bank-accounts/${ba.id}/verify`, { body: { amounts: [32, 45] } }),
      409,
      'invalid_request_error',
      'bank_account_unexpected_state',
    );
    expectError(
      await s.request('POST', `/bank-accounts/${ba.id}/initiate-microdeposits`),
      409,
      'invalid_request_error',
      'bank_account_unexpected_state',
    );
  });

  it('verify takes exactly two integers 1–99', async () => {
    const ba = await bankAccount(s, '000123456789');
    await s.request('POST', `/bank-accounts/${ba.id}/initiate-microdeposits`);
    expectError(
      await s.request('POST', `/bank-accounts/${ba.id}/verify`, { body: { amounts: [32] } }),
      400,
      'validation_error',
      'parameter_invalid',
      'amounts',
    );
    expectError(
      await s.request('POST', `/bank-accounts/${ba.id}/verify`, { body: { amounts: [32, 45, 1] } }),
      400,
      'validation_error',
      'parameter_invalid',
      'amounts',
    );
    expectError(
      await s.request('POST', `/bank-accounts/${ba.id}/verify`, { body: { amounts: [0, 45] } }),
      400,
      'validation_error',
      'parameter_invalid',
      'amounts[0]',
    );
    expectError(
      await s.request('POST', `/bank-accounts/${ba.id}/verify`, { body: { amounts: [32, 100] } }),
      400,
      'validation_error',
      'parameter_invalid',
      'amounts[1]',
    );
    expectError(
      await s.request('POST', `/bank-accounts/${ba.id}/verify`, { body: { amounts: [32, 4.5] } }),
      400,
      'validation_error',
      'parameter_invalid',
      'amounts[1]',
    );
    expectError(
      await s.request('POST', `/bank-accounts/${ba.id}/verify`, { body: {} }),
      400,
      'validation_error',
      'parameter_missing',
      'amounts',
    );
    // validation failures do not use up attempts
    expect((await s.request('GET', `/bank-accounts/${ba.id}`)).body.microdeposits.attempts_remaining).toBe(3);
  });

  it('micro-deposits expire after 10 days → verify 409; initiating again starts a new round', async () => {
    const t = await startTestServer({ memory: true });
    try {
      const ba = await bankAccount(t, '000123456789');
      const first = await t.request('POST', `/bank-accounts/${ba.id}/initiate-microdeposits`);
      await t.request('POST', `/bank-accounts/${ba.id}/verify`, { body: { amounts: [10, 20] } });
      await advance(t, 10 * 86400 + 1);
      expectError(
        await t.request('POST', `/bank-accounts/${ba.id}/verify`, { body: { amounts: [32, 45] } }),
        409,
        'invalid_request_error',
        'bank_account_unexpected_state',
      );
      // not stuck in pending: a new round with a new expiry and three attempts again
      const again = await t.request('POST', `/bank-accounts/${ba.id}/initiate-microdeposits`);
      expect(again.status).toBe(200);
      expect(Date.parse(again.body.expires_at) - Date.parse(first.body.expires_at)).toBeGreaterThanOrEqual(
        10 * 86400_000,
      );
      expect((await t.request('GET', `/bank-accounts/${ba.id}`)).body.microdeposits).toEqual({
        expires_at: again.body.expires_at,
        attempts_remaining: 3,
      });
      expect(
        (await t.request('POST', `/bank-accounts/${ba.id}/verify`, { body: { amounts: [32, 45] } })).body,
      ).toMatchObject({ verified: true, verification_status: 'verified' });
    } finally {
      await t.close();
    }
  });
});

describe('ACH debits', () => {
  it('000123456789: pending, session processing, settles to captured/succeeded on the clock', async () => {
    const t = await startTestServer({ memory: true });
    const events: PaymentMoneyEvent[] = [];
    t.server.services.hooks.on('paymentCaptured', (_a, e) => void events.push(e));
    try {
      const ba = await verified(t, '000123456789');
      const sess = await newSession(t, { payment_method_types: ['card', 'bank_account'] });
      const r = await confirm(t, sess, {
        bank_account: { account_holder_name: 'Jenny Rosen', bank_account_id: ba.id },
      });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        status: 'pending',
        payment_method_type: 'bank_account',
        psp: 'harbor',
        bank_account: { id: ba.id, last4: '6789', account_holder_name: 'Jenny Rosen' },
      });
      expect(typeof r.body.settles_at).toBe('string');
      expect(await sessionStatus(t, sess.id)).toBe('processing');
      expect(events).toHaveLength(0);
      expectError(
        await t.request('POST', `/sessions/${sess.id}/cancel`, { body: {} }),
        409,
        'invalid_request_error',
        'session_unexpected_state',
      );
      await advance(t, 86400);
      expect((await t.request('GET', `/payments/${r.body.id}`)).body.status).toBe('pending');
      const ran = await advance(t, 86400);
      expect(ran.ran.map((x) => x.name)).toContain('ach settlement');
      expect((await t.request('GET', `/payments/${r.body.id}`)).body).toMatchObject({
        status: 'captured',
        captured_amount: 5000,
      });
      expect(await sessionStatus(t, sess.id)).toBe('succeeded');
      expect(events).toEqual([expect.objectContaining({ payment_id: r.body.id, amount: 5000, currency: 'USD' })]);
    } finally {
      await t.close();
    }
  });

  it('000222222227: settles as failed (insufficient funds); session failed', async () => {
    const t = await startTestServer({ memory: true });
    try {
      const ba = await verified(t, '000222222227');
      const sess = await newSession(t, { payment_method_types: ['bank_account'] });
      const r = await confirm(t, sess, {
        bank_account: { account_holder_name: 'Jenny Rosen', bank_account_id: ba.id },
      });
      expect(r.body.status).toBe('pending');
      await advance(t, 3 * 86400);
      expect((await t.request('GET', `/payments/${r.body.id}`)).body).toMatchObject({
        status: 'failed',
        failure_code: 'insufficient_funds',
      });
      expect(await sessionStatus(t, sess.id)).toBe('failed');
    } finally {
      await t.close();
    }
  });

  it('unverified account → 400 bank_account_unverified; unknown → 404; not allowed by the session → 400', async () => {
    const ba = await bankAccount(s, '000123456789');
    const sess = await newSession(s, { payment_method_types: ['bank_account'] });
    expectError(
      await confirm(s, sess, { bank_account: { account_holder_name: 'J', bank_account_id: ba.id } }),
      400,
      'invalid_request_error',
      'bank_account_unverified',
    );
    expectError(
      await confirm(s, sess, { bank_account: { account_holder_name: 'J', bank_account_id: 'ba_nope' } }),
      404,
      'invalid_request_error',
      'resource_missing',
    );
    expectError(
      await confirm(s, sess, { bank_account: { bank_account_id: ba.id } }),
      400,
      'validation_error',
      'parameter_missing',
      'bank_account.account_holder_name',
    );
    const cardOnly = await newSession(s);
    expectError(
      await confirm(s, cardOnly, { bank_account: { account_holder_name: 'J', bank_account_id: ba.id } }),
      400,
      'invalid_request_error',
      'payment_method_not_allowed',
    );
    expect(await sessionStatus(s, sess.id)).toBe('requires_payment_method');
  });
});

describe('test vault and card tokens', () => {
  it('tokenizes without auth; tokens behave as the test card of that number', async () => {
    const cases: [string, number, string | null][] = [
      ['4242 4242 4242 4242', 200, null],
      ['5555555555554444', 200, null],
      ['4000000000000002', 402, 'card_declined'],
      ['4000000000009995', 402, 'insufficient_funds'],
      ['4000000000000069', 402, 'expired_card'],
      ['4000000000000127', 402, 'incorrect_cvc'],
      ['4000000000000119', 402, 'processing_error'],
      ['4000000000003220', 200, null],
      ['4000008400001629', 200, null],
      ['4012888888881881', 200, null], // any other valid number succeeds
    ];
    for (const [number, status, code] of cases) {
      const tok = await s.request('POST', '/vault/tokens', {
        body: { number, exp_month: 12, exp_year: 2040, cvc: '123' },
        key: null,
      });
      expect(tok.status).toBe(201);
      expect(tok.body.token_id).toMatch(/^tok_[0-9A-Za-z]{20,}$/);
      expect(tok.body.card).toEqual(
        expect.objectContaining({ last4: number.replace(/ /g, '').slice(-4), exp_month: 12, exp_year: 2040 }),
      );
      expect(tok.text).not.toContain(number.replace(/ /g, ''));
      const sess = await newSession(s);
      const r = await confirm(s, sess, { token_id: tok.body.token_id });
      expect(r.status).toBe(status);
      if (code) expect(r.body.error.code).toBe(code);
      if (number.endsWith('3220') || number.endsWith('1629')) expect(r.body.status).toBe('requires_action');
    }
  });

  it('rejects invalid card data without echoing it', async () => {
    const bad = await s.request('POST', '/vault/tokens', {
      body: { number: '4242424242424241', exp_month: 12, exp_year: 2040 },
      key: null,
    });
    expectError(bad, 400, 'validation_error', 'parameter_invalid', 'number');
    expect(bad.text).not.toContain('4242424242424241');
    expectError(
      await s.request('POST', '/vault/tokens', {
        body: { number: '4242424242424242', exp_month: 1, exp_year: 2001 },
        key: null,
      }),
      400,
      'validation_error',
      'parameter_invalid',
      'exp_year',
    );
    expectError(
      await s.request('POST', '/vault/tokens', {
        body: { number: '4242424242424242', exp_month: 13, exp_year: 2040 },
        key: null,
      }),
      400,
      'validation_error',
      'parameter_invalid',
      'exp_month',
    );
    expectError(
      await s.request('POST', '/vault/tokens', {
        body: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '12a' },
        key: null,
      }),
      400,
      'validation_error',
      'parameter_invalid',
      'cvc',
    );
  });
});

describe('network tokens', () => {
  it('create from a card token, get, cryptogram, pay with it, delete', async () => {
    const nt = await s.request('POST', '/network-tokens', { body: { token_id: 'tok_mastercard' } });
    expect(nt.status).toBe(201);
    expect(nt.body).toMatchObject({
      object: 'network_token',
      status: 'active',
      card: { brand: 'mastercard', last4: '4444' },
    });
    expect(nt.body.id).toMatch(/^nt_[0-9A-Za-z]{20,}$/);
    expect((await s.request('GET', `/network-tokens/${nt.body.id}`)).body).toEqual(nt.body);
    const c = await s.request('POST', `/network-tokens/${nt.body.id}/cryptogram`);
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ object: 'network_token_cryptogram', network_token_id: nt.body.id, eci: '05' });
    expect(c.body.cryptogram.length).toBeGreaterThan(10);
    const pay = await confirm(s, await newSession(s), { token_id: nt.body.id });
    expect(pay.body).toMatchObject({ status: 'captured', card: { last4: '4444' } });
    const declining = await s.request('POST', '/network-tokens', { body: { token_id: 'tok_chargeDeclined' } });
    expect((await confirm(s, await newSession(s), { token_id: declining.body.id })).status).toBe(402);
    expect((await s.request('DELETE', `/network-tokens/${nt.body.id}`)).body).toEqual({
      id: nt.body.id,
      object: 'network_token',
      deleted: true,
    });
    expectError(
      await s.request('GET', `/network-tokens/${nt.body.id}`),
      404,
      'invalid_request_error',
      'resource_missing',
    );
    expectError(
      await s.request('POST', `/network-tokens/${nt.body.id}/cryptogram`),
      404,
      'invalid_request_error',
      'resource_missing',
    );
    expectError(
      await s.request('POST', '/network-tokens', { body: { token_id: 'tok_nope' } }),
      400,
      'invalid_request_error',
      'resource_missing',
      'token_id',
    );
    expectError(
      await s.request('POST', '/network-tokens', { body: {} }),
      400,
      'validation_error',
      'parameter_missing',
      'token_id',
    );
  });
});

describe('wallet merchant validation', () => {
  it('https only, session must allow walletone_pay; opaque merchant session; client secret on the session path', async () => {
    const sess = await newSession(s, { payment_method_types: ['card', 'walletone_pay'] });
    const body = {
      validation_url: 'https://apple-pay-gateway.example.com/paymentservices/startSession',
      domain: 'shop.example.com',
      session_id: sess.id,
    };
    const r = await s.request('POST', '/walletone-pay-validate-merchant', { body });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      object: 'walletone_merchant_session',
      session_id: sess.id,
      domain_name: 'shop.example.com',
    });
    expect(typeof r.body.merchant_session_identifier).toBe('string');
    expectError(
      await s.request('POST', '/walletone-pay-validate-merchant', {
        body: { ...body, validation_url: 'http://x.example.com/' },
      }),
      400,
      'validation_error',
      'parameter_invalid',
      'validation_url',
    );
    const cardOnly = await newSession(s);
    expectError(
      await s.request('POST', '/walletone-pay-validate-merchant', { body: { ...body, session_id: cardOnly.id } }),
      400,
      'invalid_request_error',
      'payment_method_not_allowed',
    );
    expectError(
      await s.request('POST', '/walletone-pay-validate-merchant', {
        body: { ...body, session_id: '00000000-0000-7000-8000-000000000000' },
      }),
      404,
      'invalid_request_error',
      'resource_missing',
    );
    expectError(
      await s.request('POST', '/walletone-pay-validate-merchant', { body: { ...body, session_id: 'nope' } }),
      400,
      'validation_error',
      'parameter_invalid',
      'session_id',
    );
    const viaSecret = await s.request('POST', `/walletone-pay-validate-merchant/${sess.id}`, {
      body: { validation_url: body.validation_url, domain: body.domain },
      key: sess.client_secret,
    });
    expect(viaSecret.status).toBe(200);
  });

  it('validation_url follows the rule of every URL a request gives: no whitespace or control character anywhere', async () => {
    const sess = await newSession(s, { payment_method_types: ['card', 'walletone_pay'] });
    // A URL parser drops or percent-encodes these, so the URL accepted would not be the URL a wallet gateway gets.
    for (const validation_url of [
      'https://gw.example.com/start\n',
      ' https://gw.example.com/',
      'https://gw.example.com/a b',
      'https://gw.example.com/\t',
      'https:\\\\gw.example.com/',
      'https:/gw.example.com/',
    ]) {
      expectError(
        await s.request('POST', '/walletone-pay-validate-merchant', {
          body: { validation_url, domain: 'shop.example.com', session_id: sess.id },
        }),
        400,
        'validation_error',
        'parameter_invalid',
        'validation_url',
      );
      expectError(
        await s.request('POST', `/walletone-pay-validate-merchant/${sess.id}`, {
          body: { validation_url, domain: 'shop.example.com' },
        }),
        400,
        'validation_error',
        'parameter_invalid',
        'validation_url',
      );
    }
    const ok = await s.request('POST', '/walletone-pay-validate-merchant', {
      body: {
        validation_url: 'https://gw.example.com/paymentservices/startSession',
        domain: 'shop.example.com',
        session_id: sess.id,
      },
    });
    expect(ok.status).toBe(200);
  });
});

describe('session config and test values', () => {
  it('get-session-config with the client secret or the API key', async () => {
    const sess = await newSession(s, { description: 'Order 42', success_url: 'https://shop.example.com/ok' });
    const a = await s.request('GET', `/get-session-config/${sess.id}`, { key: sess.client_secret });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({
      object: 'session_config',
      session_id: sess.id,
      status: 'requires_payment_method',
      amount: 5000,
      currency: 'USD',
      description: 'Order 42',
      success_url: 'https://shop.example.com/ok',
      payment: null,
    });
    // the live service's fields too: its browser SDK and e-commerce plugin read this object
    expect(a.body).toMatchObject({
      client_secret: sess.client_secret,
      payment_methods: ['card'],
      fallback_url: sess.fallback_url,
      environment: 'test',
      tokenize_url: `${s.baseUrl}/vault/tokens`,
    });
    await confirm(s, sess, { token_id: 'tok_threeDSecureRequired' });
    const b = await s.request('GET', `/get-session-config/${sess.id}`);
    expect(b.body.status).toBe('requires_action');
    expect(b.body.payment).toMatchObject({
      status: 'requires_action',
      next_action: { type: 'redirect_to_url', redirect_to_url: { url: `${s.baseUrl}/pay/${sess.id}?step=threeds` } },
    });
    expectError(
      await s.request('GET', `/get-session-config/${sess.id}`, { key: null }),
      401,
      'authentication_error',
      'missing_api_key',
    );
  });

  it('GET /test-cards lists the test values', async () => {
    const r = await s.request('GET', '/test-cards', { key: null });
    expect(r.status).toBe(200);
    expect(r.body.cards).toContainEqual(
      expect.objectContaining({ token: 'tok_visa', number: '4242424242424242', result: 'success' }),
    );
    expect(r.body.cards).toContainEqual(expect.objectContaining({ token: 'tok_processorUnavailable', number: null }));
    expect(r.body.bank_accounts.map((b: any) => b.account_number)).toEqual([
      '000123456789',
      '000222222227',
      '000111111116',
    ]);
    expect(r.body.microdeposit_amounts).toEqual([32, 45]);
  });
});

describe('money hooks and billing charger', () => {
  it('captures and refunds emit paymentCaptured / paymentRefunded with the moved amount', async () => {
    captured.length = 0;
    refunded.length = 0;
    const sess = await newSession(s, { capture_method: 'manual' });
    const p = (await confirm(s, sess, { token_id: 'tok_visa' })).body;
    expect(captured).toHaveLength(0);
    await s.request('POST', `/capture-payment/${p.id}`, { body: { amount: 4000 } });
    await s.request('POST', `/refund-payment/${p.id}`, { body: { amount: 1500 } });
    expect(captured).toEqual([
      expect.objectContaining({ acct: s.server.accountId, payment_id: p.id, amount: 4000, currency: 'USD' }),
    ]);
    expect(refunded).toEqual([expect.objectContaining({ payment_id: p.id, amount: 1500, currency: 'USD' })]);
    // a declined confirm emits nothing
    await confirm(s, await newSession(s), { token_id: 'tok_chargeDeclined' });
    expect(captured).toHaveLength(1);
  });

  it('services.charger creates real payment objects through routing', async () => {
    const { services } = s.server;
    const acct = s.server.accountId;
    const now = services.clock.now(acct);
    const ok = await services.store.tx(() =>
      services.charger.charge(
        acct,
        { amount: 1200, currency: 'USD', payment_method: 'tok_processorUnavailable', description: 'inv' },
        now,
      ),
    );
    expect(ok.status).toBe('succeeded');
    const p = (await s.request<Payment>('GET', `/payments/${ok.payment_id}`)).body;
    expect(p).toMatchObject({ session_id: null, amount: 1200, status: 'captured', description: 'inv' });
    expect(p.attempts.map((a) => a.status)).toEqual(['failed', 'succeeded']);
    const bad = await services.store.tx(() =>
      services.charger.charge(
        acct,
        { amount: 1200, currency: 'USD', payment_method: 'tok_chargeDeclinedInsufficientFunds' },
        now,
      ),
    );
    expect(bad).toMatchObject({ status: 'failed', code: 'insufficient_funds', decline_code: 'insufficient_funds' });
    expect((await s.request('GET', `/payments/${bad.payment_id}`)).body.status).toBe('failed');
    const threeds = await services.store.tx(() =>
      services.charger.charge(acct, { amount: 1200, currency: 'USD', payment_method: 'tok_threeDSecureRequired' }, now),
    );
    expect(threeds).toMatchObject({ status: 'failed', code: 'authentication_required' });
    const unknown = await services.store.tx(() =>
      services.charger.charge(acct, { amount: 1200, currency: 'USD', payment_method: 'tok_nope' }, now),
    );
    expect(unknown).toMatchObject({ status: 'failed', payment_id: null });
  });
});

describe('secrets', () => {
  it('no raw card or account number in responses, the log or the database file', async () => {
    const t = await startTestServer();
    const numbers = ['4000000000003220', '5555555555554444', '000123456789', '000222222227'];
    const seen: string[] = [];
    try {
      for (const number of numbers.slice(0, 2)) {
        const tok = await t.request('POST', '/vault/tokens', {
          body: { number, exp_month: 12, exp_year: 2040, cvc: '987' },
          key: null,
        });
        seen.push(tok.text);
        const sess = await newSession(t);
        const r = await confirm(t, sess, { token_id: tok.body.token_id });
        seen.push(r.text, (await t.request('GET', `/payments/${r.body.id}`)).text);
      }
      for (const number of numbers.slice(2)) {
        const ba = await t.request('POST', '/bank-accounts', {
          body: { account_number: number, routing_number: ROUTING, holder_name: 'J' },
          headers: { 'idempotency-key': `ba-key-${number.slice(-4)}` }, // the idempotency record must not keep the number either
        });
        seen.push(
          ba.text,
          (await t.request('GET', `/bank-accounts/${ba.body.id}`)).text,
          (await t.request('GET', '/bank-accounts')).text,
        );
      }
      seen.push(
        (
          await t.request('POST', '/vault/tokens', {
            body: { number: '4242424242424241', exp_month: 12, exp_year: 2040 },
            key: null,
          })
        ).text,
      );
    } finally {
      await t.close();
    }
    const dir = t.dataDir!;
    const files = readdirSync(dir).map((f) => join(dir, f));
    const blobs = files.map((f) => readFileSync(f).toString('latin1'));
    const log = files.find((f) => f.endsWith('.log'));
    expect(log).toBeDefined();
    expect(readFileSync(log!, 'utf8')).toContain('/bank-accounts'); // the log was written, so its absence of numbers means something
    for (const n of [...numbers, '4242424242424241', ROUTING]) {
      for (const text of seen) expect(text).not.toContain(n);
      for (const [i, blob] of blobs.entries()) expect(blob.includes(n), `${n} in ${files[i]}`).toBe(false);
    }
  });

  it('a card number sent where a token goes (confirm, network tokens) is refused without being echoed', async () => {
    for (const number of ['4000056655665556', '4000 0566 5566 5556', '4000-0566-5566-5556', '378282246310005']) {
      const sess = await newSession(s);
      const r = await confirm(s, sess, { token_id: number });
      expectError(r, 400, 'invalid_request_error', 'resource_missing', 'token_id');
      expect(r.body.error.message).toMatch(/card number/);
      const nt = await s.request('POST', '/network-tokens', { body: { token_id: number } });
      expectError(nt, 400, 'invalid_request_error', 'resource_missing', 'token_id');
      for (const text of [r.text, nt.text]) {
        expect(text).not.toContain(number);
        expect(text).not.toContain(number.replace(/\D/g, '').slice(0, 12)); // not even most of it
      }
      expect(await sessionStatus(s, sess.id)).toBe('requires_payment_method');
    }
    // an unknown token that is not a card number is still named
    expect((await confirm(s, await newSession(s), { token_id: 'tok_nope' })).body.error.message).toBe(
      "No such token: 'tok_nope'",
    );
  });
});
