// What a Stripe CLI user types at the terminal: `api -d key=value` (brackets nest) and `--expand`, `version`,
// fish completion, and `--color on|off|auto` against NO_COLOR/FORCE_COLOR — the real binary, a real server.
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { against, runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const ESC = '\u001b[';

describe('payorch api -d key=value and --expand', () => {
  it('-d amount=100 -d "metadata[order]=7" creates a session of amount 100 with metadata order "7" (read back)', async () => {
    const r = await runCli([
      'api',
      'POST',
      '/create-session',
      '-d',
      'amount=100',
      '-d',
      'currency=usd',
      '-d',
      'metadata[order]=7',
      '-d',
      'description=007',
      '--json',
      '--yes',
      ...against(s),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const got = (await s.request('GET', `/sessions/${r.json().id}`)).body;
    expect([got.amount, got.currency, got.metadata, got.description]).toEqual([100, 'USD', { order: '7' }, '007']);
  });

  it('brackets nest into objects and arrays (items[0][price], items[0][quantity]) as the server takes them', async () => {
    const price = (
      await s.request('POST', '/prices', {
        body: { product_data: { name: 'Pro' }, currency: 'usd', unit_amount: 500, recurring: { interval: 'month' } },
      })
    ).body;
    const cus = (await s.request('POST', '/customers', { body: { default_payment_method: 'tok_visa' } })).body;
    const r = await runCli([
      'api',
      'POST',
      '/subscriptions',
      '-d',
      `customer=${cus.id}`,
      '-d',
      `items[0][price]=${price.id}`,
      '-d',
      'items[0][quantity]=3',
      '-d',
      'cancel_at_period_end=true',
      '--json',
      '--yes',
      ...against(s),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const sub = (await s.request('GET', `/subscriptions/${r.json().id}`)).body;
    expect([sub.items.data[0].price.id, sub.items.data[0].quantity, sub.cancel_at_period_end]).toEqual([
      price.id,
      3,
      true,
    ]);
  });

  it('malformed pairs, a key given twice, and JSON mixed with pairs are exit 2 before any request', async () => {
    const before = (await s.request('GET', '/request-log?limit=100')).body.data.length;
    for (const data of [
      ['amount=1', 'amount=2'],
      ['metadata=x', 'metadata[a]=b'],
      ['items[1][price]=p'],
      ['{"amount":1}', 'currency=usd'],
      ['a[b=1'],
    ]) {
      const r = await runCli([
        'api',
        'POST',
        '/create-session',
        ...data.flatMap((d) => ['-d', d]),
        '--yes',
        ...against(s),
      ]);
      expect(r.code, data.join(' ')).toBe(2);
      expect(r.stderr).toContain('-d');
    }
    expect((await s.request('GET', '/request-log?limit=100')).body.data.length).toBe(before);
  });

  it('--expand sends expand[] (products expand prices); where nothing expands, the server says so (exit 1, 400)', async () => {
    const product = (await s.request('POST', '/products', { body: { name: 'Expandable' } })).body;
    await s.request('POST', '/prices', { body: { product: product.id, currency: 'usd', unit_amount: 100 } });
    const plain = await runCli(['api', 'GET', `/products/${product.id}`, '--json', ...against(s)]);
    expect(plain.json().prices).toBeUndefined();
    const r = await runCli(['api', 'GET', `/products/${product.id}`, '--expand', 'prices', '--json', ...against(s)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().prices.map((p: any) => p.product)).toEqual([product.id]);
    const no = await runCli(['api', 'GET', '/sessions', '--expand', 'customer', '--json', ...against(s)]);
    expect(no.code).toBe(1);
    expect(no.json().error).toMatchObject({ code: 'parameter_unknown', param: 'expand[]' });
  });
});

describe('payorch version', () => {
  it('prints the --version line; --json the same facts', async () => {
    const [flag, cmd, json] = await Promise.all([
      runCli(['--version']),
      runCli(['version']),
      runCli(['version', '--json']),
    ]);
    expect(cmd.code).toBe(0);
    expect(cmd.stdout).toBe(flag.stdout);
    const v = json.json();
    expect(`${v.name}/${v.version} ${v.platform}-${v.arch} node-${v.node}\n`).toBe(flag.stdout);
  });
});

describe('payorch completion fish', () => {
  const hasFish = spawnSync('fish', ['--version']).status === 0;
  it('is a fish script completing through one function from the commands’ tables', async () => {
    const r = await runCli(['completion', 'fish']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^complete -c payorch -f -a '\(_payorch_complete\)'$/m);
    expect(r.stdout).toContain("'sessions\tcancel confirm create get list open update'");
  });
  it.skipIf(!hasFish)('completes topics, commands and flags in fish', async () => {
    const file = join(tempDir(), 'payorch.fish');
    writeFileSync(file, (await runCli(['completion', 'fish'])).stdout);
    const complete = (line: string) =>
      execFileSync('fish', ['-c', `source $argv[1]; complete -C"payorch ${line}"`, file], { encoding: 'utf8' })
        .split('\n')
        .filter(Boolean);
    expect(complete('ses')).toEqual(['sessions']);
    expect(complete('sessions ')).toEqual(['cancel', 'confirm', 'create', 'get', 'list', 'open', 'update']);
    expect(complete('ledger holds c')).toEqual(['capture', 'create']);
    expect(complete('sessions get ID --ti')).toEqual(['--timeout']);
    expect(complete('logs tail --filter-http')).toEqual([]); // aliases are not offered: one name per flag
    expect(complete('logs tail --me')).toEqual(['--method']);
  });
});

describe('--color on|off|auto', () => {
  it('on colours even with NO_COLOR, off never even with FORCE_COLOR, auto keeps the environment’s rules; a bad value is exit 2', async () => {
    await s.request('POST', '/create-session', { body: { amount: 100, currency: 'usd' } });
    const list = (color: string[], env: Record<string, string | undefined>) =>
      runCli(['sessions', 'list', '--limit', '1', ...color, ...against(s)], { env });
    const on = await list(['--color', 'on'], { NO_COLOR: '1' });
    const off = await list(['--color=off'], { NO_COLOR: undefined, FORCE_COLOR: '1' });
    const autoForced = await list(['--color', 'auto'], { NO_COLOR: undefined, FORCE_COLOR: '1' });
    const autoNo = await list([], { NO_COLOR: '1', FORCE_COLOR: '1' });
    for (const r of [on, off, autoForced, autoNo]) expect(r.code, r.stderr).toBe(0);
    expect(on.stdout).toContain(ESC);
    expect(off.stdout).not.toContain(ESC);
    expect(off.stderr).not.toContain(ESC);
    expect(autoForced.stdout).toContain(ESC);
    expect(autoNo.stdout).not.toContain(ESC);
    // --json is never coloured
    const json = await runCli(['sessions', 'list', '--limit', '1', '--json', '--color', 'on', ...against(s)]);
    expect(json.stdout).not.toContain(ESC);
    const bad = await runCli(['sessions', 'list', '--color', 'maybe', ...against(s)]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--color');
  });
});
