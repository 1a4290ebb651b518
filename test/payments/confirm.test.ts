// Confirm-payment end to end over HTTP: every outcome of contract §7, routing and failover visible in
// `attempts`, forced psp, processors down, capture/refund/void, races.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { ProcessorsState, RoutingRule } from '../../dist/lib/contract/payments.js';
import { tempDir } from '../helpers/tmp.js';
import { advance, confirm, expectError, newSession, sessionStatus, UUID } from './util.js';

/** A USD card payment of the account whose key is `key`: the processor it went to. */
async function paidThrough(t: TestServer, key: string): Promise<{ psp: string }> {
  const made = await t.request('POST', '/create-session', { body: { amount: 5000, currency: 'usd' }, key });
  const paid = await t.request('POST', `/confirm-payment/${made.body.id}`, {
    body: { token_id: 'tok_visa' },
    key: made.body.client_secret,
  });
  if (paid.status !== 200) throw new Error(`confirm: ${paid.status} ${paid.text}`);
  return paid.body;
}

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('card outcomes (contract §7 test values)', () => {
  it.each(['tok_visa', 'tok_mastercard', 'tok_amex'])('%s → captured, session succeeded', async (tok) => {
    const sess = await newSession(s);
    const r = await confirm(s, sess, { token_id: tok });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      object: 'payment',
      session_id: sess.id,
      amount: 5000,
      currency: 'USD',
      status: 'captured',
      payment_method_type: 'card',
      captured_amount: 5000,
      refunded_amount: 0,
      livemode: false,
      next_action: null,
    });
    expect(r.body.id).toMatch(UUID);
    expect(r.body.psp).toBe('aurora'); // first candidate of the default USD card rule
    expect(r.body.psp_transaction_id).toMatch(/^aurora_/);
    expect(r.body.attempts).toEqual([{ psp: 'aurora', status: 'succeeded', code: null }]);
    expect(r.body.card).toMatchObject({ last4: { tok_visa: '4242', tok_mastercard: '4444', tok_amex: '0005' }[tok] });
    expect(await sessionStatus(s, sess.id)).toBe('succeeded');
    const got = await s.request('GET', `/payments/${r.body.id}`);
    expect(got.body).toEqual(r.body);
  });

  it.each([
    ['tok_chargeDeclined', 'card_declined', 'generic_decline'],
    ['tok_chargeDeclinedInsufficientFunds', 'insufficient_funds', 'insufficient_funds'],
    ['tok_chargeDeclinedExpiredCard', 'expired_card', 'expired_card'],
    ['tok_chargeDeclinedIncorrectCvc', 'incorrect_cvc', 'incorrect_cvc'],
  ])('%s → 402 %s, failed payment committed, no retry', async (tok, code, decline) => {
    const sess = await newSession(s);
    const r = await confirm(s, sess, { token_id: tok });
    expectError(r, 402, 'card_error', code);
    expect(r.body.error.decline_code).toBe(decline);
    const pid = r.body.error.payment_id;
    expect(pid).toMatch(UUID);
    const p = await s.request('GET', `/payments/${pid}`);
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ status: 'failed', failure_code: code, decline_code: decline, captured_amount: 0 });
    expect(p.body.attempts).toEqual([{ psp: 'aurora', status: 'failed', code }]); // hard declines are never retried
    expect(await sessionStatus(s, sess.id)).toBe('failed');
  });

  it('processing_error on every processor: failover exhausts after 3 attempts', async () => {
    const sess = await newSession(s);
    const r = await confirm(s, sess, { token_id: 'tok_chargeDeclinedProcessingError' });
    expectError(r, 402, 'card_error', 'processing_error');
    const p = (await s.request('GET', `/payments/${r.body.error.payment_id}`)).body;
    expect(p.attempts).toEqual([
      { psp: 'aurora', status: 'failed', code: 'processing_error' },
      { psp: 'basalt', status: 'failed', code: 'processing_error' },
      { psp: 'cobalt', status: 'failed', code: 'processing_error' },
    ]);
    expect(p.status).toBe('failed');
    expect(await sessionStatus(s, sess.id)).toBe('failed');
  });

  it('tok_processorUnavailable: the first processor fails retryably, the next succeeds', async () => {
    const sess = await newSession(s);
    const r = await confirm(s, sess, { token_id: 'tok_processorUnavailable' });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('captured');
    expect(r.body.psp).toBe('basalt');
    expect(r.body.attempts).toEqual([
      { psp: 'aurora', status: 'failed', code: 'processor_unavailable' },
      { psp: 'basalt', status: 'succeeded', code: null },
    ]);
  });

  it('forced psp disables failover', async () => {
    const ok = await newSession(s);
    const r1 = await confirm(s, ok, { token_id: 'tok_visa', psp: 'krypton' });
    expect(r1.body).toMatchObject({
      status: 'captured',
      psp: 'krypton',
      attempts: [{ psp: 'krypton', status: 'succeeded', code: null }],
    });
    const bad = await newSession(s);
    const r2 = await confirm(s, bad, { token_id: 'tok_processorUnavailable', psp: 'ember' });
    expectError(r2, 402, 'card_error', 'processing_error');
    const p = (await s.request('GET', `/payments/${r2.body.error.payment_id}`)).body;
    expect(p.attempts).toEqual([{ psp: 'ember', status: 'failed', code: 'processor_unavailable' }]);
    const unknown = await confirm(s, await newSession(s), { token_id: 'tok_visa', psp: 'zeus' });
    expectError(unknown, 400, 'validation_error', 'parameter_invalid', 'psp');
  });

  it('routes by currency and amount (default rules)', async () => {
    const eur = await confirm(s, await newSession(s, { currency: 'eur' }), { token_id: 'tok_visa' });
    expect(eur.body.psp).toBe('dune');
    const jpy = await confirm(s, await newSession(s, { currency: 'jpy' }), { token_id: 'tok_visa' });
    expect(jpy.body.psp).toBe('garnet');
    const big = await confirm(s, await newSession(s, { amount: 2_000_000 }), { token_id: 'tok_visa' });
    expect(big.body.psp).toBe('iris');
  });
});

describe('processors marked down', () => {
  it('a down processor is skipped (recorded as an attempt) at runtime via the test-mode endpoint', async () => {
    const down = await s.request('POST', '/test-helpers/processors/aurora', { body: { status: 'down' } });
    expect(down.status).toBe(200);
    expect(down.body.processors.find((p: any) => p.id === 'aurora')).toEqual({ id: 'aurora', status: 'down' });
    try {
      const r = await confirm(s, await newSession(s), { token_id: 'tok_visa' });
      expect(r.body.status).toBe('captured');
      expect(r.body.attempts).toEqual([
        { psp: 'aurora', status: 'failed', code: 'processor_unavailable' },
        { psp: 'basalt', status: 'succeeded', code: null },
      ]);
      // with the first down, tok_processorUnavailable's retryable failure lands on basalt and cobalt takes it
      const r2 = await confirm(s, await newSession(s), { token_id: 'tok_chargeDeclinedProcessingError' });
      expect(
        (await s.request('GET', `/payments/${r2.body.error.payment_id}`)).body.attempts.map((a: any) => a.code),
      ).toEqual(['processor_unavailable', 'processing_error', 'processing_error']);
    } finally {
      const up = await s.request('POST', '/test-helpers/processors/aurora', { body: { status: 'up' } });
      expect(up.body.processors.every((p: any) => p.status === 'up')).toBe(true);
    }
    expectError(
      await s.request('POST', '/test-helpers/processors/zeus', { body: { status: 'down' } }),
      404,
      'invalid_request_error',
      'resource_missing',
    );
    expectError(
      await s.request('POST', '/test-helpers/processors/aurora', { body: { status: 'sideways' } }),
      400,
      'validation_error',
      'parameter_invalid',
      'status',
    );
  });

  it("a mark is the account's own test state: another account still routes to the processor, and the mark outlives a restart; --psp-down is each account's default", async () => {
    const dir = tempDir();
    let t = await startTestServer({ dataDir: dir, pspDown: ['cobalt'] });
    try {
      const other = (await t.server.services.accounts.createAccountWithKey()).api_key;
      const statusOf = async (psp: string, key?: string) =>
        (await t.request<ProcessorsState>('GET', '/test-helpers/processors', { key })).body.processors.find(
          (p) => p.id === psp,
        )?.status;
      expect((await t.request('POST', '/test-helpers/processors/aurora', { body: { status: 'down' } })).status).toBe(
        200,
      );
      expect(await statusOf('aurora')).toBe('down');
      expect(await statusOf('aurora', other)).toBe('up');
      // The other account's payment goes to aurora; this account's fails over past it.
      const theirs = await paidThrough(t, other);
      expect(theirs.psp).toBe('aurora');
      const mine = await confirm(t, await newSession(t), { token_id: 'tok_visa' });
      expect(mine.body.psp).toBe('basalt');
      // --psp-down at start: every account's default; an account's own mark overrides it.
      expect(await statusOf('cobalt')).toBe('down');
      await t.request('POST', '/test-helpers/processors/cobalt', { body: { status: 'up' } });
      expect(await statusOf('cobalt')).toBe('up');
      expect(await statusOf('cobalt', other)).toBe('down');
      await t.close();
      t = await startTestServer({ dataDir: dir });
      expect(await statusOf('aurora')).toBe('down');
      expect(await statusOf('aurora', other)).toBe('up');
    } finally {
      await t.close();
    }
  });

  it('a processor is replaceable behind the interface (an adapter answering a retryable error)', async () => {
    const t = await startTestServer({ memory: true });
    try {
      const calls: any[] = [];
      t.server.services.processors.register({
        id: 'aurora',
        authorize(req) {
          calls.push({ amount: req.amount, currency: req.currency, method: req.method });
          return { kind: 'error', code: 'processing_error', message: 'adapter timeout' };
        },
      });
      const r = await confirm(t, await newSession(t), { token_id: 'tok_visa' });
      expect(calls).toEqual([{ amount: 5000, currency: 'USD', method: 'card' }]); // never a card number
      expect(r.body.attempts).toEqual([
        { psp: 'aurora', status: 'failed', code: 'processing_error' },
        { psp: 'basalt', status: 'succeeded', code: null },
      ]);
    } finally {
      await t.close();
    }
  });

  it('lists the eleven processors and the routing rules', async () => {
    const r = await s.request('GET', '/test-helpers/processors');
    expect(r.status).toBe(200);
    expect(r.body.processors.map((p: any) => p.id)).toEqual([
      'aurora',
      'basalt',
      'cobalt',
      'dune',
      'ember',
      'fjord',
      'garnet',
      'harbor',
      'iris',
      'jasper',
      'krypton',
    ]);
    expect(r.body.max_attempts).toBe(3);
    expect(r.body.routing.length).toBeGreaterThan(0);
  });

  it('pspDown and routing given at start', async () => {
    const t = await startTestServer({
      memory: true,
      pspDown: ['harbor'],
      routing: [{ candidates: ['harbor', 'fjord', 'iris', 'jasper'] }],
    });
    try {
      const r = await confirm(t, await newSession(t), { token_id: 'tok_chargeDeclinedProcessingError' });
      const p = (await t.request('GET', `/payments/${r.body.error.payment_id}`)).body;
      expect(p.attempts).toEqual([
        { psp: 'harbor', status: 'failed', code: 'processor_unavailable' },
        { psp: 'fjord', status: 'failed', code: 'processing_error' },
        { psp: 'iris', status: 'failed', code: 'processing_error' },
      ]); // at most 3, jasper never tried
    } finally {
      await t.close();
    }
    // @ts-expect-error no processor is called zeus: the server refuses the rule however it was typed (a JSON file's)
    const unknown: RoutingRule = { candidates: ['zeus'] };
    await expect(startTestServer({ memory: true, routing: [unknown] })).rejects.toThrow(/routing/i);
  });
});

describe('manual capture, refunds, void', () => {
  it('manual → authorized, session processing; partial capture → captured, session succeeded', async () => {
    const sess = await newSession(s, { capture_method: 'manual' });
    const r = await confirm(s, sess, { token_id: 'tok_visa' });
    expect(r.body).toMatchObject({ status: 'authorized', captured_amount: 0, capture_method: 'manual' });
    expect(await sessionStatus(s, sess.id)).toBe('processing');
    expectError(
      await s.request('POST', `/capture-payment/${r.body.id}`, { body: { amount: 5001 } }),
      400,
      'validation_error',
      'parameter_invalid',
      'amount',
    );
    expectError(
      await s.request('POST', `/refund-payment/${r.body.id}`, { body: {} }),
      409,
      'invalid_request_error',
      'payment_unexpected_state',
    );
    const c = await s.request('POST', `/capture-payment/${r.body.id}`, { body: { amount: 3000 } });
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ status: 'captured', captured_amount: 3000, amount: 5000 });
    expect(await sessionStatus(s, sess.id)).toBe('succeeded');
    expectError(
      await s.request('POST', `/capture-payment/${r.body.id}`, { body: {} }),
      409,
      'invalid_request_error',
      'payment_unexpected_state',
    );
    // refunds are limited to what was captured
    expectError(
      await s.request('POST', `/refund-payment/${r.body.id}`, { body: { amount: 3001 } }),
      400,
      'validation_error',
      'parameter_invalid',
      'amount',
    );
    const full = await s.request('POST', `/refund-payment/${r.body.id}`, { body: {} });
    expect(full.body).toMatchObject({ status: 'refunded', refunded_amount: 3000 });
  });

  it('partial then full refund; idempotent with a key; refunded → 409', async () => {
    const sess = await newSession(s);
    const p = (await confirm(s, sess, { token_id: 'tok_visa' })).body;
    const h = { 'idempotency-key': `refund-${p.id}` };
    const r1 = await s.request('POST', `/refund-payment/${p.id}`, {
      body: { amount: 1000, reason: 'requested_by_customer' },
      headers: h,
    });
    expect(r1.body).toMatchObject({
      status: 'captured',
      refunded_amount: 1000,
      refunds: [{ amount: 1000, reason: 'requested_by_customer' }],
    });
    const again = await s.request('POST', `/refund-payment/${p.id}`, {
      body: { amount: 1000, reason: 'requested_by_customer' },
      headers: h,
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.refunded_amount).toBe(1000);
    const r2 = await s.request('POST', `/refund-payment/${p.id}`, { body: {} });
    expect(r2.body).toMatchObject({ status: 'refunded', refunded_amount: 5000 });
    expect(r2.body.refunds.map((x: any) => x.amount)).toEqual([1000, 4000]);
    expectError(
      await s.request('POST', `/refund-payment/${p.id}`, { body: { amount: 1 } }),
      409,
      'invalid_request_error',
      'payment_unexpected_state',
    );
    expectError(
      await s.request('POST', `/refund-payment/${p.id}`, { body: { reason: '' } }),
      400,
      'validation_error',
      'parameter_invalid',
      'reason',
    );
  });

  it('canceling a processing session voids its authorized payment', async () => {
    const sess = await newSession(s, { capture_method: 'manual' });
    const p = (await confirm(s, sess, { token_id: 'tok_visa' })).body;
    const c = await s.request('POST', `/sessions/${sess.id}/cancel`, { body: {} });
    expect(c.body.status).toBe('canceled');
    const got = (await s.request('GET', `/payments/${p.id}`)).body;
    expect(got.status).toBe('canceled');
    expect(typeof got.canceled_at).toBe('number');
    expectError(
      await s.request('POST', `/capture-payment/${p.id}`, { body: {} }),
      409,
      'invalid_request_error',
      'payment_unexpected_state',
    );
  });

  it('a succeeded session cannot be canceled, and its payment stays captured', async () => {
    const sess = await newSession(s);
    const p = (await confirm(s, sess, { token_id: 'tok_visa' })).body;
    expectError(
      await s.request('POST', `/sessions/${sess.id}/cancel`, { body: {} }),
      409,
      'invalid_request_error',
      'session_unexpected_state',
    );
    expect((await s.request('GET', `/payments/${p.id}`)).body.status).toBe('captured');
  });
});

describe('3DS', () => {
  it('tok_threeDSecureRequired: requires_action + next_action, result challenge_required, complete → authenticated, captured', async () => {
    const sess = await newSession(s);
    const r = await confirm(s, sess, { token_id: 'tok_threeDSecureRequired' });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('requires_action');
    const challenge = `${s.baseUrl}/pay/${sess.id}?step=threeds`;
    expect(r.body.next_action).toEqual({
      type: 'redirect_to_url',
      url: challenge,
      redirect_to_url: { url: challenge, return_url: `${s.baseUrl}/pay/${sess.id}` },
    });
    expect(r.body.three_d_secure).toEqual({ version: '2.2.0', authentication_status: 'challenge_required', eci: null });
    expect(r.body.attempts).toEqual([{ psp: 'aurora', status: 'requires_action', code: null }]);
    expect(await sessionStatus(s, sess.id)).toBe('requires_action');
    const before = await s.request('GET', `/threeds-authenticate/sessions/${sess.id}/result`);
    expect(before.body).toMatchObject({
      status: 'challenge_required',
      liability_shift: false,
      eci: null,
      authentication_value: null,
    });
    expect(before.body.ds_transaction_id).toMatch(UUID);
    // the client secret works too (for the checkout page)
    const done = await s.request('POST', `/threeds-authenticate/sessions/${sess.id}/challenge-complete`, {
      key: sess.client_secret,
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      status: 'authenticated',
      liability_shift: true,
      eci: '05',
      payment_status: 'captured',
      ds_transaction_id: before.body.ds_transaction_id,
    });
    expect(typeof done.body.authentication_value).toBe('string');
    const p = (await s.request('GET', `/payments/${r.body.id}`)).body;
    expect(p).toMatchObject({
      status: 'captured',
      captured_amount: 5000,
      next_action: null,
      attempts: [{ psp: 'aurora', status: 'succeeded', code: null }],
    });
    expect(await sessionStatus(s, sess.id)).toBe('succeeded');
    // completing again answers the same result
    const again = await s.request('POST', `/threeds-authenticate/sessions/${sess.id}/challenge-complete`, { body: {} });
    expect(again.body).toMatchObject({ status: 'authenticated', authentication_value: done.body.authentication_value });
  });

  it('3DS with manual capture → authorized, session processing', async () => {
    const sess = await newSession(s, { capture_method: 'manual' });
    await confirm(s, sess, { token_id: 'tok_threeDSecureRequired' });
    const done = await s.request('POST', `/threeds-authenticate/sessions/${sess.id}/challenge-complete`, { body: {} });
    expect(done.body.payment_status).toBe('authorized');
    expect(await sessionStatus(s, sess.id)).toBe('processing');
  });

  it('tok_threeDSecureFail: challenge, then authentication_failed; payment and session fail', async () => {
    const sess = await newSession(s);
    const r = await confirm(s, sess, { token_id: 'tok_threeDSecureFail' });
    expect(r.body.status).toBe('requires_action');
    const done = await s.request('POST', `/threeds-authenticate/sessions/${sess.id}/challenge-complete`, { body: {} });
    expect(done.body).toMatchObject({ status: 'failed', liability_shift: false, payment_status: 'failed' });
    const p = (await s.request('GET', `/payments/${r.body.id}`)).body;
    expect(p).toMatchObject({
      status: 'failed',
      failure_code: 'authentication_failed',
      decline_code: 'authentication_failed',
    });
    expect(await sessionStatus(s, sess.id)).toBe('failed');
    expect((await s.request('GET', `/threeds-authenticate/sessions/${sess.id}/result`)).body.status).toBe('failed');
  });

  it('no 3DS on the session → 404; another session’s secret → 401; cancel voids a pending 3DS payment', async () => {
    const plain = await newSession(s);
    expectError(
      await s.request('GET', `/threeds-authenticate/sessions/${plain.id}/result`),
      404,
      'invalid_request_error',
      'resource_missing',
    );
    await confirm(s, plain, { token_id: 'tok_visa' });
    expectError(
      await s.request('POST', `/threeds-authenticate/sessions/${plain.id}/challenge-complete`, { body: {} }),
      404,
      'invalid_request_error',
      'resource_missing',
    );
    const sess = await newSession(s);
    const r = await confirm(s, sess, { token_id: 'tok_threeDSecureRequired' });
    expectError(
      await s.request('GET', `/threeds-authenticate/sessions/${sess.id}/result`, { key: plain.client_secret }),
      401,
      'authentication_error',
      'invalid_client_secret',
    );
    await s.request('POST', `/sessions/${sess.id}/cancel`, { body: {} });
    expect((await s.request('GET', `/payments/${r.body.id}`)).body.status).toBe('canceled');
    expectError(
      await s.request('POST', `/threeds-authenticate/sessions/${sess.id}/challenge-complete`, { body: {} }),
      409,
      'invalid_request_error',
      'payment_unexpected_state',
    );
  });

  it('an unfinished 3DS session expires after 24 h: payment canceled', async () => {
    const t = await startTestServer({ memory: true });
    try {
      const sess = await newSession(t);
      const r = await confirm(t, sess, { token_id: 'tok_threeDSecureRequired' });
      await advance(t, 24 * 3600 + 1);
      expect((await t.request('GET', `/sessions/${sess.id}`)).body).toMatchObject({
        status: 'canceled',
        cancellation_reason: 'abandoned',
      });
      expect((await t.request('GET', `/payments/${r.body.id}`)).body.status).toBe('canceled');
    } finally {
      await t.close();
    }
  });
});

describe('wallets', () => {
  it.each([
    ['walletone_pay_token', 'walletone_pay', 'jasper'],
    ['wallettwo_pay_token', 'wallettwo_pay', 'krypton'],
    ['walletthree_token', 'walletthree', 'jasper'],
  ])('%s succeeds with any token; wallet_declined declines', async (field, type, psp) => {
    const sess = await newSession(s, { payment_method_types: [type] });
    const r = await confirm(s, sess, { [field]: 'opaque-wallet-token' });
    expect(r.body).toMatchObject({ status: 'captured', payment_method_type: type, wallet: { type }, card: null, psp });
    const sess2 = await newSession(s, { payment_method_types: [type] });
    const d = await confirm(s, sess2, { [field]: 'wallet_declined' });
    expectError(d, 402, 'card_error', 'card_declined');
    expect(d.body.error.payment_id).toMatch(UUID);
  });
});

describe('confirm validation and auth', () => {
  it('exactly one source; type must match and be allowed by the session', async () => {
    const sess = await newSession(s);
    expectError(await confirm(s, sess, {}), 400, 'validation_error', 'parameter_missing', 'token_id');
    expectError(
      await confirm(s, sess, { token_id: 'tok_visa', walletone_pay_token: 'x' }),
      400,
      'validation_error',
      'parameter_invalid',
      'walletone_pay_token',
    );
    expectError(
      await confirm(s, sess, { walletone_pay_token: 'x' }),
      400,
      'invalid_request_error',
      'payment_method_not_allowed',
      'payment_method_type',
    );
    expectError(
      await confirm(s, sess, { token_id: 'tok_visa', payment_method_type: 'walletthree' }),
      400,
      'validation_error',
      'parameter_invalid',
      'payment_method_type',
    );
    expectError(
      await confirm(s, sess, { token_id: 'tok_nope' }),
      400,
      'invalid_request_error',
      'resource_missing',
      'token_id',
    );
    expectError(
      await confirm(s, sess, { token_id: 'tok_visa', extra: 1 }),
      400,
      'validation_error',
      'parameter_unknown',
      'extra',
    );
    // nothing was created by the failures
    expect((await s.request('GET', `/payments?session_id=${sess.id}`)).body.total_count).toBe(0);
    expect(await sessionStatus(s, sess.id)).toBe('requires_payment_method');
  });

  it('only the session’s client secret authenticates; the API key does not', async () => {
    const sess = await newSession(s);
    const other = await newSession(s);
    expectError(
      await s.request('POST', `/confirm-payment/${sess.id}`, { body: { token_id: 'tok_visa' } }),
      401,
      'authentication_error',
      'invalid_client_secret',
    );
    expectError(
      await s.request('POST', `/confirm-payment/${sess.id}`, {
        body: { token_id: 'tok_visa' },
        key: other.client_secret,
      }),
      401,
      'authentication_error',
      'invalid_client_secret',
    );
    expectError(
      await s.request('POST', `/confirm-payment/${sess.id}`, { body: { token_id: 'tok_visa' }, key: null }),
      401,
      'authentication_error',
      'missing_client_secret',
    );
  });

  it('confirm is only allowed from requires_payment_method', async () => {
    const sess = await newSession(s);
    await confirm(s, sess, { token_id: 'tok_visa' });
    expectError(
      await confirm(s, sess, { token_id: 'tok_visa' }),
      409,
      'invalid_request_error',
      'session_unexpected_state',
    );
    const failed = await newSession(s);
    await confirm(s, failed, { token_id: 'tok_chargeDeclined' });
    expectError(
      await confirm(s, failed, { token_id: 'tok_visa' }),
      409,
      'invalid_request_error',
      'session_unexpected_state',
    );
    const canceled = await newSession(s);
    await s.request('POST', `/sessions/${canceled.id}/cancel`, { body: {} });
    expectError(
      await confirm(s, canceled, { token_id: 'tok_visa' }),
      409,
      'invalid_request_error',
      'session_unexpected_state',
    );
  });

  it('20 concurrent confirms of one session → exactly one payment', async () => {
    const sess = await newSession(s);
    const results = await Promise.all(Array.from({ length: 20 }, () => confirm(s, sess, { token_id: 'tok_visa' })));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200))
      expectError(r, 409, 'invalid_request_error', 'session_unexpected_state');
    const list = await s.request('GET', `/payments?session_id=${sess.id}`);
    expect(list.body.total_count).toBe(1);
    expect(list.body.data[0].id).toBe(ok[0]!.body.id);
  });

  it('a retried confirm with the same Idempotency-Key replays the decline', async () => {
    const sess = await newSession(s);
    const h = { 'idempotency-key': `confirm-${sess.id}` };
    const a = await confirm(s, sess, { token_id: 'tok_chargeDeclined' }, h);
    const b = await confirm(s, sess, { token_id: 'tok_chargeDeclined' }, h);
    expect(b.status).toBe(402);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body.error.payment_id).toBe(a.body.error.payment_id);
  });
});

describe('payments list and get', () => {
  it('lists by session_id and status, newest first; 404 for unknown ids and other accounts', async () => {
    const sess = await newSession(s);
    const p = (await confirm(s, sess, { token_id: 'tok_visa' })).body;
    const bySession = await s.request('GET', `/payments?session_id=${sess.id}`);
    expect(bySession.body).toMatchObject({ object: 'list', total_count: 1, has_more: false });
    const failed = await s.request('GET', '/payments?status=failed&limit=2');
    expect(failed.status).toBe(200);
    expect(failed.body.data.every((x: any) => x.status === 'failed')).toBe(true);
    expectError(
      await s.request('GET', '/payments/00000000-0000-7000-8000-000000000000'),
      404,
      'invalid_request_error',
      'resource_missing',
    );
    const key2 = await s.request('GET', '/payments'); // sanity
    expect(key2.status).toBe(200);
    expect(p.id).toMatch(UUID);
  });
});
