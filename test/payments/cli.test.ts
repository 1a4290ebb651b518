// The payments commands through the real binary against a real server (no TTY).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { against, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { newSession } from './util.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const cli = (...args: string[]) => runCli([...args, ...against(s)]);

describe('payorch sessions confirm / payments', () => {
  it('confirms with --token, shows, lists, refunds', async () => {
    const sess = await newSession(s);
    const r = await cli('sessions', 'confirm', sess.id, '--token', 'tok_visa', '--json');
    expect(r.code, r.stderr).toBe(0);
    const p = r.json();
    expect(p).toMatchObject({ object: 'payment', status: 'captured', session_id: sess.id });
    const human = await cli('payments', 'get', p.id);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('captured');
    expect(human.stdout).toContain('aurora:succeeded');
    const list = await cli('payments', 'list', '--session', sess.id, '--json');
    expect(list.json().data.map((x: any) => x.id)).toEqual([p.id]);
    const ref = await cli('payments', 'refund', p.id, '--amount', '1000', '--reason', 'duplicate', '--json');
    expect(ref.json()).toMatchObject({ refunded_amount: 1000, status: 'captured' });
    const rest = await cli('payments', 'refund', p.id, '--json');
    expect(rest.json().status).toBe('refunded');
  });

  it('--card goes through the vault; a decline exits 1 with the decline code', async () => {
    const sess = await newSession(s);
    const r = await cli(
      'sessions',
      'confirm',
      sess.id,
      '--card',
      '4000000000009995',
      '--exp',
      '12/40',
      '--cvc',
      '123',
      '--json',
    );
    expect(r.code).toBe(1);
    const body = r.json();
    expect(body.error).toMatchObject({
      type: 'card_error',
      code: 'insufficient_funds',
      decline_code: 'insufficient_funds',
    });
    expect(r.stderr).toContain('decline insufficient_funds');
    expect(r.stdout + r.stderr).not.toContain('4000000000009995');
  });

  it('manual capture, 3DS complete/result, wallet, usage errors', async () => {
    const man = await newSession(s, { capture_method: 'manual' });
    const auth = (await cli('sessions', 'confirm', man.id, '--token', 'tok_mastercard', '--json')).json();
    expect(auth.status).toBe('authorized');
    const cap = await cli('payments', 'capture', auth.id, '--amount', '2500', '--json');
    expect(cap.json()).toMatchObject({ status: 'captured', captured_amount: 2500 });

    const tds = await newSession(s);
    const pending = await cli('sessions', 'confirm', tds.id, '--card', '4000000000003220');
    expect(pending.code).toBe(0);
    expect(pending.stdout).toContain(`payorch threeds complete ${tds.id}`);
    expect((await cli('threeds', 'result', tds.id, '--json')).json().status).toBe('challenge_required');
    const done = await cli('threeds', 'complete', tds.id);
    expect(done.stdout).toContain('authenticated');
    expect(done.stdout).toContain('captured');

    const w = await newSession(s, { payment_method_types: ['wallettwo_pay'] });
    const wr = await cli('sessions', 'confirm', w.id, '--wallet', 'wallettwo_pay', '--wallet-token', 'tk', '--json');
    expect(wr.json()).toMatchObject({ status: 'captured', payment_method_type: 'wallettwo_pay' });

    const none = await cli('sessions', 'confirm', w.id);
    expect(none.code).toBe(2);
    const two = await cli('sessions', 'confirm', w.id, '--token', 'tok_visa', '--card', '4242424242424242');
    expect(two.code).toBe(2);
  });

  it('sessions open prints the hosted page URL', async () => {
    const sess = await newSession(s);
    const r = await cli('sessions', 'open', sess.id);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`${s.baseUrl}/pay/${sess.id}`);
  });

  it('wallets validate-merchant', async () => {
    const sess = await newSession(s, { payment_method_types: ['walletone_pay'] });
    const r = await cli(
      'wallets',
      'validate-merchant',
      '--session',
      sess.id,
      '--validation-url',
      'https://wallet.example.com/start',
      '--domain',
      'shop.example.com',
      '--json',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().object).toBe('walletone_merchant_session');
  });
});

describe('payorch bank-accounts', () => {
  it('create → initiate → verify (wrong, then right) → confirm ACH; numbers never printed', async () => {
    const c = await cli(
      'bank-accounts',
      'create',
      '--routing-number',
      '110000000',
      '--account-number',
      '000123456789',
      '--holder-name',
      'Jenny Rosen',
      '--customer',
      'cus_cli',
    );
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toContain('••••6789');
    expect(c.stdout).not.toContain('000123456789');
    const id = /ba_[0-9A-Za-z]+/.exec(c.stdout)![0];
    const j = (await cli('bank-accounts', 'get', id, '--json')).json();
    expect(j).toMatchObject({ id, last4: '6789', verification_status: 'unverified' });
    expect((await cli('bank-accounts', 'initiate-microdeposits', id)).stdout).toContain('pending');
    const wrong = await cli('bank-accounts', 'verify', id, '--amounts', '1,2');
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain('2 attempts left');
    const right = await cli('bank-accounts', 'verify', id, '--amounts', '45,32', '--json');
    expect(right.code).toBe(0);
    expect(right.json()).toMatchObject({ verified: true });
    expect((await cli('bank-accounts', 'verify', id, '--amounts', '45')).code).toBe(2);
    const list = await cli('bank-accounts', 'list', '--customer', 'cus_cli', '--status', 'verified', '--json');
    expect(list.json().data.map((b: any) => b.id)).toEqual([id]);
    const sess = await newSession(s, { payment_method_types: ['bank_account'] });
    const pay = await cli('sessions', 'confirm', sess.id, '--bank-account', id, '--json');
    expect(pay.json()).toMatchObject({ status: 'pending', bank_account: { account_holder_name: 'Jenny Rosen' } });
    const bad = await cli(
      'bank-accounts',
      'create',
      '--routing-number',
      '110000001',
      '--account-number',
      '000123456789',
      '--holder-name',
      'J',
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('routing_number');
    expect(bad.stderr).not.toContain('000123456789');
    const missing = await cli('bank-accounts', 'create', '--routing-number', '110000000', '--holder-name', 'J');
    expect(missing.code).toBe(2);
    const del = await cli('bank-accounts', 'delete', id, '--json');
    expect(del.json()).toEqual({ id, object: 'bank_account', deleted: true });
  });
});

describe('payorch network-tokens, test-cards, server processors', () => {
  it('network tokens end to end', async () => {
    const c = (await cli('network-tokens', 'create', '--token', 'tok_amex', '--json')).json();
    expect(c).toMatchObject({ object: 'network_token', card: { brand: 'amex', last4: '0005' } });
    expect((await cli('network-tokens', 'get', c.id)).stdout).toContain('amex ••••0005');
    expect((await cli('network-tokens', 'cryptogram', c.id, '--json')).json().network_token_id).toBe(c.id);
    expect((await cli('network-tokens', 'delete', c.id)).stdout).toContain(`Deleted network token ${c.id}`);
    expect((await cli('network-tokens', 'get', c.id)).code).toBe(1);
  });

  it('test-cards prints the test values', async () => {
    const r = await cli('test-cards');
    expect(r.code).toBe(0);
    for (const v of ['tok_visa', '4242424242424242', 'tok_threeDSecureFail', '000222222227', '32 and 45'])
      expect(r.stdout).toContain(v);
  });

  it('server processors shows, marks down and up', async () => {
    const down = await cli('server', 'processors', '--down', 'cobalt', '--json');
    expect(down.json().processors.find((p: any) => p.id === 'cobalt').status).toBe('down');
    const shown = await cli('server', 'processors');
    expect(shown.stdout).toContain('cobalt down');
    expect(shown.stdout).toContain('aurora → basalt → cobalt');
    const up = await cli('server', 'processors', '--up', 'cobalt', '--json');
    expect(up.json().processors.every((p: any) => p.status === 'up')).toBe(true);
    expect((await cli('server', 'processors', '--down', 'zeus')).code).toBe(1);
  });

  it('server start --routing FILE --psp-down ID', async () => {
    const dir = tempDir();
    const file = join(dir, 'routing.json');
    writeFileSync(file, JSON.stringify({ rules: [{ name: 'all', candidates: ['fjord', 'garnet'] }] }));
    const started = await runCli(
      ['server', 'start', '--port', '0', '--memory', '--detach', '--json', '--routing', file, '--psp-down', 'fjord'],
      { home: dir },
    );
    expect(started.code, started.stderr).toBe(0);
    const info = started.json();
    try {
      const t = { baseUrl: info.base_url, apiKey: info.api_key };
      const p = (await runCli(['server', 'processors', '--json', ...against(t)])).json();
      expect(p.routing).toEqual([{ name: 'all', candidates: ['fjord', 'garnet'] }]);
      expect(p.processors.find((x: any) => x.id === 'fjord').status).toBe('down');
      const sess = (
        await runCli(['sessions', 'create', '--amount', '100', '--currency', 'usd', '--json', ...against(t)])
      ).json();
      const pay = (
        await runCli(['sessions', 'confirm', sess.id, '--token', 'tok_visa', '--json', ...against(t)])
      ).json();
      expect(pay.attempts).toEqual([
        { psp: 'fjord', status: 'failed', code: 'processor_unavailable' },
        { psp: 'garnet', status: 'succeeded', code: null },
      ]);
    } finally {
      process.kill(info.pid, 'SIGTERM');
    }
    writeFileSync(file, JSON.stringify({ rules: [{ candidates: ['zeus'] }] }));
    const bad = await runCli(['server', 'start', '--port', '0', '--memory', '--routing', file], { home: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Invalid routing rules/);
    const badDown = await runCli(['server', 'start', '--port', '0', '--memory', '--psp-down', 'zeus'], { home: dir });
    expect(badDown.code).toBe(2);
    expect(badDown.stderr).toMatch(/Unknown processor/);
  });
});
