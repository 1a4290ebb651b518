// identity-tokens and kyc commands through the real binary: the vault value comes from stdin or a masked
// prompt (never argv) and never shows up in output.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { against, runCli } from '../helpers/cli.js';
import { hasPty, runPty } from '../ledger/pty.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
});
afterAll(() => s.close());

const cli = (args: string[], input?: string) => runCli([...args, ...against(s)], { input });

describe('identity-tokens commands', () => {
  it('create reads the value from stdin, shows only the masked value; list and delete', async () => {
    const r = await cli(['identity-tokens', 'create', '--type', 'ssn', '--field-name', 'applicant'], '123-45-6789\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/masked value\s+\*\*\*-\*\*-6789/);
    expect(r.stdout + r.stderr).not.toContain('12345');
    const id = /(idt_\w+)/.exec(r.stdout)![1]!;
    const j = await cli(['identity-tokens', 'create', '--type', 'ein', '--json'], '987654321');
    expect(j.code).toBe(0);
    expect(j.json()).toMatchObject({ type: 'ein', masked_value: '**-***4321' });
    expect(j.stdout).not.toContain('98765');

    const list = await cli(['identity-tokens', 'list', '--type', 'ssn', '--json']);
    expect(list.json()).toMatchObject({
      data: [expect.objectContaining({ token_id: id })],
      pagination: { total: 1, limit: 10, offset: 0, has_more: false },
    });
    const human = await cli(['identity-tokens', 'list', '--limit', '1']);
    expect(human.stdout).toMatch(/ein\s+\*\*-\*\*\*4321/);
    expect(human.stdout).toContain('2 in all; next page: --offset 1');
    const page2 = await cli(['identity-tokens', 'list', '--limit', '1', '--offset', '1', '--json']);
    expect(page2.json().data[0].token_id).toBe(id);

    const del = await cli(['identity-tokens', 'delete', id]);
    expect(del.code).toBe(0);
    expect(del.stdout).toContain(`Identity token ${id} deleted.`);
    expect((await cli(['identity-tokens', 'delete', id])).code).toBe(1);
  });

  it('a bad value fails with exit 1 without echoing it; no value at all is a usage error; there is no --value flag', async () => {
    const bad = await cli(['identity-tokens', 'create', '--type', 'itin'], '812345678');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('parameter_invalid');
    expect(bad.stdout + bad.stderr).not.toContain('812345678');
    const empty = await cli(['identity-tokens', 'create', '--type', 'ssn'], '');
    expect(empty.code).toBe(2);
    const argv = await cli(['identity-tokens', 'create', '--type', 'ssn', '--value', '123456789'], '');
    expect(argv.code).toBe(2);
    expect(argv.stdout + argv.stderr).not.toContain('123456789');
  });

  it.skipIf(!hasPty)('on a terminal the value is asked for with a masked prompt and never echoed', async () => {
    const p = runPty(['identity-tokens', 'create', '--type', 'passport', ...against(s)]);
    await p.waitFor('input hidden');
    p.type('ZX98765432\r');
    const r = await p.done;
    expect(r.code, r.output).toBe(0);
    expect(r.output).not.toContain('ZX98765432');
    expect(r.output).toMatch(/masked value\s+\*\*\*\*5432/);
  });
});

describe('kyc commands', () => {
  it('create, submit, get after the clock moves, list', async () => {
    const tok = (await cli(['identity-tokens', 'create', '--type', 'ssn', '--json'], '000000000')).json().token_id;
    const c = await cli(['kyc', 'create', '--customer', 'cus_cli_kyc', '--level', 'basic', '--token', tok, '--json']);
    expect(c.code, c.stderr).toBe(0);
    const k = c.json();
    expect(k).toMatchObject({ status: 'pending', identity_token_ids: [tok] });
    const sub = await cli(['kyc', 'submit', k.id]);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toMatch(/status\s+processing/);
    await s.request('POST', '/test-helpers/advance-clock', { body: { seconds: 30 } });
    const g = await cli(['kyc', 'get', k.id]);
    expect(g.stdout).toMatch(/status\s+rejected/);
    expect(g.stdout).toMatch(/risk score\s+90/);
    expect(g.stdout).toMatch(/identity: failed \(identity_mismatch\)/);
    const list = await cli(['kyc', 'list', '--customer', 'cus_cli_kyc', '--status', 'rejected', '--json']);
    expect(list.json().data.map((x: any) => x.id)).toEqual([k.id]);
    const missing = await cli(['kyc', 'create', '--customer', 'c']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--level');
  });
});
