// KYC verifications over HTTP: checks per level, submit → processing, outcomes on the test clock by the
// documented test values (docs/api.md "KYC verifications").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type List, type TestServer } from '../helpers/server.js';
import type { KycVerification } from '../../dist/lib/contract/identity.js';
import { expectError, ISO_MS } from '../helpers/util.js';

let s: TestServer;
beforeAll(async () => {
  // Due work only when the test says so (catchUp), so that what a read shows in between is deterministic.
  s = await startTestServer({ memory: true, dueWorkIntervalMs: 0 });
});
afterAll(() => s.close());

async function token(type: string, value: string): Promise<string> {
  const r = await s.request('POST', '/identity-tokens', { body: { type, value } });
  expect(r.status).toBe(201);
  return r.body.token_id;
}

async function kyc(body: Record<string, unknown>): Promise<KycVerification> {
  const r = await s.request<KycVerification>('POST', '/kyc-verifications', {
    body: { customer_id: 'cus_kyc', verification_level: 'basic', ...body },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

const advance = (seconds: number) => s.request('POST', '/test-helpers/advance-clock', { body: { seconds } });
const fetchKyc = async (id: string) => (await s.request<KycVerification>('GET', `/kyc-verifications/${id}`)).body;

/** Creates, submits, waits out processing; returns the decided verification. */
async function decide(level: 'basic' | 'enhanced', tokens: string[]): Promise<KycVerification> {
  const k = await kyc({ verification_level: level, identity_token_ids: tokens });
  const sub = await s.request('POST', `/kyc-verifications/${k.id}/submit`);
  expect(sub.body.status).toBe('processing');
  await advance(30);
  return fetchKyc(k.id);
}

describe('KYC verifications', () => {
  it('creates a pending verification with the checks of its level', async () => {
    const basic = await kyc({ metadata: { ref: 'a' } });
    expect(basic).toMatchObject({
      object: 'kyc_verification',
      status: 'pending',
      customer_id: 'cus_kyc',
      verification_level: 'basic',
      identity_token_ids: [],
      provider: 'payorch_test',
      risk_score: null,
      submitted_at: null,
      completed_at: null,
      metadata: { ref: 'a' },
    });
    expect(basic.id).toMatch(/^kyc_/);
    expect(basic.provider_session_token).toMatch(/^kst_/);
    expect(basic.created_at).toMatch(ISO_MS);
    expect(basic.checks.map((c) => c.check_type)).toEqual(['identity', 'watchlist']);
    for (const c of basic.checks) {
      expect(c).toMatchObject({ status: 'pending', status_reason: null, confidence_score: null, completed_at: null });
      expect(c.id).toMatch(/^kchk_/);
    }
    const enhanced = await kyc({ verification_level: 'enhanced' });
    expect(enhanced.checks.map((c) => c.check_type)).toEqual(['identity', 'watchlist', 'document', 'address']);
    expect(await fetchKyc(basic.id)).toEqual(basic);
  });

  it('rejects bad input', async () => {
    expectError(
      await s.request('POST', '/kyc-verifications', { body: { customer_id: 'c', verification_level: 'gold' } }),
      400,
      'validation_error',
      'parameter_invalid',
      'verification_level',
    );
    expectError(
      await s.request('POST', '/kyc-verifications', { body: { verification_level: 'basic' } }),
      400,
      'validation_error',
      'parameter_missing',
      'customer_id',
    );
    expectError(
      await s.request('POST', '/kyc-verifications', {
        body: { customer_id: 'c', verification_level: 'basic', identity_token_ids: ['idt_nope'] },
      }),
      404,
      'invalid_request_error',
      'resource_missing',
      'identity_token_ids[0]',
    );
    expectError(
      await s.request('GET', '/kyc-verifications/kyc_nope'),
      404,
      'invalid_request_error',
      'resource_missing',
      'verification_id',
    );
  });

  it('submit → processing → verified after 30 s on the clock, with a risk score', async () => {
    const k = await kyc({ identity_token_ids: [await token('ssn', '123456789')] });
    const sub = await s.request('POST', `/kyc-verifications/${k.id}/submit`);
    expect(sub.status).toBe(200);
    expect(sub.body).toMatchObject({ status: 'processing', completed_at: null });
    expect(sub.body.submitted_at).toMatch(ISO_MS);
    expectError(
      await s.request('POST', `/kyc-verifications/${k.id}/submit`),
      409,
      'invalid_request_error',
      'kyc_verification_unexpected_state',
    );
    await advance(29);
    expect((await fetchKyc(k.id)).status).toBe('processing');
    const adv = await advance(1);
    expect(adv.body.ran).toEqual([expect.objectContaining({ name: 'kyc processing', count: 1 })]);
    const done = await fetchKyc(k.id);
    expect(done).toMatchObject({ status: 'verified', status_reason: null, risk_score: 10 });
    expect(done.completed_at).toMatch(ISO_MS);
    for (const c of done.checks)
      expect(c).toMatchObject({ status: 'passed', confidence_score: 95, completed_at: done.completed_at });
    expectError(
      await s.request('POST', `/kyc-verifications/${k.id}/submit`),
      409,
      'invalid_request_error',
      'kyc_verification_unexpected_state',
    );
  });

  it('test values: 000000000 → rejected (identity_mismatch), 222222222 → rejected (watchlist_match), 111111111 → requires_input', async () => {
    const mismatch = await decide('basic', [await token('ssn', '000000000')]);
    expect(mismatch).toMatchObject({ status: 'rejected', status_reason: 'identity_mismatch', risk_score: 90 });
    expect(mismatch.checks.find((c) => c.check_type === 'identity')).toMatchObject({
      status: 'failed',
      status_reason: 'identity_mismatch',
    });

    const watch = await decide('basic', [await token('itin', '922222222'), await token('ssn', '222222222')]);
    expect(watch).toMatchObject({ status: 'rejected', status_reason: 'watchlist_match', risk_score: 100 });
    expect(watch.checks.find((c) => c.check_type === 'watchlist')).toMatchObject({ status: 'failed' });

    const unsure = await decide('basic', [await token('ssn', '111111111')]);
    expect(unsure).toMatchObject({ status: 'requires_input', status_reason: 'identity_unverifiable', risk_score: 50 });
  });

  it('missing data → requires_input; resubmitting with more tokens can verify (enhanced needs a document)', async () => {
    const none = await decide('basic', []);
    expect(none).toMatchObject({ status: 'requires_input', status_reason: 'missing_identity_number' });

    const enhanced = await decide('enhanced', [await token('ssn', '123456780')]);
    expect(enhanced).toMatchObject({ status: 'requires_input', status_reason: 'missing_document' });
    expect(enhanced.checks.map((c) => [c.check_type, c.status])).toEqual([
      ['identity', 'passed'],
      ['watchlist', 'passed'],
      ['document', 'failed'],
      ['address', 'passed'],
    ]);
    const passport = await token('passport', 'P1234567');
    const re = await s.request('POST', `/kyc-verifications/${enhanced.id}/submit`, {
      body: { identity_token_ids: [passport] },
    });
    expect(re.body).toMatchObject({ status: 'processing', completed_at: null });
    expect(re.body.identity_token_ids).toHaveLength(2);
    for (const c of re.body.checks) expect(c.status).toBe('pending');
    await advance(30);
    expect(await fetchKyc(enhanced.id)).toMatchObject({ status: 'verified', risk_score: 5 });
  });

  it('a read never decides: past the due time it shows what is committed until the scheduler has run', async () => {
    const k = await kyc({ identity_token_ids: [await token('ssn', '123456781')] });
    await s.request('POST', `/kyc-verifications/${k.id}/submit`);
    // Move the clock without running due work through the scheduler: a direct clock advance.
    await s.server.services.clock.advance(s.server.accountId, 31_000);
    expect((await fetchKyc(k.id)).status).toBe('processing');
    expect(
      (await s.request<List<KycVerification>>('GET', `/kyc-verifications?status=processing`)).body.data.map(
        (v) => v.id,
      ),
    ).toContain(k.id);
    // The server's catch-up (its tick runs exactly this) decides it.
    await s.server.catchUp();
    expect((await fetchKyc(k.id)).status).toBe('verified');
  });

  it('lists newest first with status and customer filters; cancel from pending', async () => {
    const a = await kyc({ customer_id: 'cus_list_kyc' });
    const b = await kyc({ customer_id: 'cus_list_kyc' });
    const canceled = await s.request('POST', `/kyc-verifications/${a.id}/cancel`);
    expect(canceled.body.status).toBe('canceled');
    expectError(
      await s.request('POST', `/kyc-verifications/${a.id}/submit`),
      409,
      'invalid_request_error',
      'kyc_verification_unexpected_state',
    );
    const list = await s.request<List<KycVerification>>('GET', '/kyc-verifications?customer=cus_list_kyc');
    expect(list.body).toMatchObject({ object: 'list', total_count: 2 });
    expect(list.body.data.map((k) => k.id)).toEqual([b.id, a.id]);
    const pending = await s.request<List<KycVerification>>(
      'GET',
      '/kyc-verifications?customer=cus_list_kyc&status=pending',
    );
    expect(pending.body.data.map((k) => k.id)).toEqual([b.id]);
  });
});
