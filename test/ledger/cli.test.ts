// The support-staff CLI, running the real binary against a real server: ledger create/list/post/get/holds/
// freeze/events, and the unfreeze confirmation — refused without a terminal, skipped with --yes, asked on a
// pseudo-terminal (yes/no with a test key; typing the account id with a live key).
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { against, runCli } from '../helpers/cli.js';
import { account, fundedWallet, get } from './helpers.js';
import { hasPty, runPty } from './pty.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const cli = (...args: string[]) => runCli([...args, ...against(s)]);

async function frozenWallet(): Promise<string> {
  const { wallet } = await fundedWallet(s, 2500);
  await s.request('POST', `/ledger-accounts/${wallet.id}/holds`, {
    body: { amount: 400, description: 'pending auth' },
  });
  const f = await s.request('POST', `/ledger-accounts/${wallet.id}/freeze`, {
    body: { reason: 'chargeback review', actor: 'agent:bob' },
  });
  expect(f.body.status).toBe('frozen');
  return wallet.id;
}

describe('ledger commands', () => {
  it('create, list with filters, post from flags and from --data on stdin, entries, holds, reverse', async () => {
    const cash = await cli(
      'ledger',
      'create',
      '--name',
      'Cash',
      '--type',
      'asset',
      '--currency',
      'usd',
      '--system',
      '--json',
    );
    expect(cash.code, cash.stderr).toBe(0);
    const cashId = cash.json().id;
    expect(cash.json()).toMatchObject({ object: 'ledger_account', is_system_account: true, normal_balance: 'debit' });
    const w = await cli(
      'ledger',
      'create',
      '--name',
      'Wallet',
      '--type',
      'liability',
      '--currency',
      'usd',
      '--customer',
      'cus_cli_1',
    );
    expect(w.code).toBe(0);
    expect(w.stdout).toContain('Ledger account created');
    const walletId = /\b(la_\w+)/.exec(w.stdout)![1]!;

    const posted = await cli(
      'ledger',
      'post',
      '--debit',
      `${cashId}=5000`,
      '--credit',
      `${walletId}=5000`,
      '--description',
      'top-up',
      '--json',
    );
    expect(posted.code, posted.stderr).toBe(0);
    expect(posted.json()).toMatchObject({ object: 'journal_entry', amount: 5000 });
    const body = JSON.stringify({
      description: 'fee',
      entries: [
        { account_id: walletId, direction: 'debit', amount: 250 },
        { account_id: cashId, direction: 'credit', amount: 250 },
      ],
    });
    const fromStdin = await runCli(['ledger', 'post', '--data', '-', '--json', ...against(s)], { input: body });
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    const feeId = fromStdin.json().id;

    const bad = await cli('ledger', 'post', '--debit', `${cashId}=10`, '--credit', `${walletId}=9`);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('journal_entry_unbalanced');
    const usage = await cli('ledger', 'post', '--debit', 'nonsense');
    expect(usage.code).toBe(2);

    const list = await cli('ledger', 'list', '--customer', 'cus_cli_1', '--json');
    expect(list.json().data.map((a: any) => a.id)).toEqual([walletId]);
    const human = await cli('ledger', 'list', '--customer', 'cus_cli_1', '--status', 'active');
    expect(human.stdout).toMatch(/Wallet\s+liability\s+active\s+47\.50 USD/);

    const entries = await cli('ledger', 'entries', walletId);
    expect(entries.code).toBe(0);
    expect(entries.stdout).toMatch(/debit\s+2\.50 USD\s+47\.50 USD\s+fee/);
    expect(entries.stdout).toMatch(/credit\s+50\.00 USD\s+50\.00 USD\s+top-up/);

    const hold = await cli(
      'ledger',
      'holds',
      'create',
      walletId,
      '--amount',
      '1000',
      '--description',
      'auth',
      '--json',
    );
    expect(hold.code, hold.stderr).toBe(0);
    const holdId = hold.json().id;
    const merchant = await account(s, { name: 'Merchant' });
    const cap = await cli('ledger', 'holds', 'capture', holdId, '--destination', merchant.id, '--amount', '600');
    expect(cap.code, cap.stderr).toBe(0);
    expect(cap.stdout).toContain('Hold captured');
    expect(cap.stdout).toMatch(/captured\s+6\.00 USD into la_/);
    const h2 = (await cli('ledger', 'holds', 'create', walletId, '--amount', '100', '--json')).json().id;
    const rel = await cli('ledger', 'holds', 'release', h2, '--json');
    expect(rel.json().status).toBe('released');
    expect(await get(s, walletId)).toMatchObject({ balance: 4150, pending_balance: 0, available_balance: 4150 });
    expect((await get(s, merchant.id)).balance).toBe(600);

    const rev = await cli('ledger', 'reverse', feeId, '--json');
    expect(rev.json()).toMatchObject({ reverses: feeId });
    expect((await get(s, walletId)).balance).toBe(4400);
  });

  it('get shows balances, holds, recent entries and who/why/when while frozen; freeze needs a reason; events list the audit trail', async () => {
    const { wallet } = await fundedWallet(s, 1234);
    await s.request('POST', `/ledger-accounts/${wallet.id}/holds`, { body: { amount: 200, description: 'card auth' } });
    const noReason = await cli('ledger', 'freeze', wallet.id);
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toContain('--reason');
    const fr = await cli('ledger', 'freeze', wallet.id, '--reason', 'fraud alert #77', '--actor', 'agent:carol');
    expect(fr.code, fr.stderr).toBe(0);
    const g = await cli('ledger', 'get', wallet.id);
    expect(g.code).toBe(0);
    expect(g.stdout).toMatch(/status\s+frozen/);
    expect(g.stdout).toMatch(/balance\s+12\.34 USD/);
    expect(g.stdout).toMatch(/pending\s+2\.00 USD/);
    expect(g.stdout).toMatch(/available\s+10\.34 USD/);
    expect(g.stdout).toMatch(/frozen\s+by agent:carol at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC — fraud alert #77/);
    expect(g.stdout).toMatch(/Active holds \(1\)[\s\S]*card auth/);
    expect(g.stdout).toMatch(/Recent entries \(1, newest first\)[\s\S]*credit\s+12\.34 USD\s+12\.34 USD\s+top-up/);
    const json = await cli('ledger', 'get', wallet.id, '--json');
    expect(json.json()).toMatchObject({
      id: wallet.id,
      status: 'frozen',
      recent_entries: [expect.objectContaining({ amount: 1234 })],
      active_holds: [expect.objectContaining({ amount: 200 })],
    });

    const ev = await cli('ledger', 'events', wallet.id);
    expect(ev.stdout).toMatch(/frozen\s+agent:carol \(key key_\w+\)\s+fraud alert #77/);
    expect(ev.stdout).toMatch(/created\s+key_\w+/);
  });

  it('close refuses a non-zero balance (exit 1) and closes an empty account', async () => {
    const { wallet } = await fundedWallet(s, 1);
    const r = await cli('ledger', 'close', wallet.id);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ledger_account_unexpected_state');
    const empty = await account(s);
    const ok = await cli('ledger', 'close', empty.id, '--reason', 'duplicate', '--json');
    expect(ok.json().status).toBe('closed');
  });
});

describe('ledger unfreeze confirmation', () => {
  it('without a terminal and without --yes it refuses (exit 2) and changes nothing', async () => {
    const id = await frozenWallet();
    const r = await cli('ledger', 'unfreeze', id);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--yes');
    expect((await get(s, id)).status).toBe('frozen');
    const j = await cli('ledger', 'unfreeze', id, '--json');
    expect(j.code).toBe(2);
    expect(j.json().error.code).toBe('usage_error');
    expect((await get(s, id)).status).toBe('frozen');
  });

  it('--yes skips the question; the answer has no recent_entries/active_holds; the reason and actor land in the audit trail', async () => {
    const id = await frozenWallet();
    const r = await cli(
      'ledger',
      'unfreeze',
      id,
      '--yes',
      '--reason',
      'cleared by risk',
      '--actor',
      'agent:dana',
      '--json',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ id, status: 'active' });
    expect(r.json()).not.toHaveProperty('recent_entries');
    const ev = await s.request('GET', `/ledger-accounts/${id}/events?limit=1`);
    expect(ev.body.data[0]).toMatchObject({ type: 'unfrozen', reason: 'cleared by risk', actor: 'agent:dana' });
    // Not frozen: nothing to confirm; the server's 409 is the answer (exit 1), with or without --yes.
    for (const extra of [['--yes'], []]) {
      const again = await cli('ledger', 'unfreeze', id, ...extra);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('ledger_account_unexpected_state');
    }
  });

  it.skipIf(!hasPty)(
    'on a terminal it shows the summary and asks; "n" leaves the account frozen, "y" unfreezes it',
    async () => {
      const id = await frozenWallet();
      const no = runPty(['ledger', 'unfreeze', id, ...against(s)]);
      const screen = await no.waitFor(`Unfreeze ledger account ${id}?`);
      expect(screen).toContain('About to unfreeze');
      expect(screen).toMatch(/frozen\s+by agent:bob at .* — chargeback review/);
      expect(screen).toMatch(/available\s+21\.00 USD/);
      expect(screen).toMatch(/Active holds \(1\)[\s\S]*pending auth/);
      expect(screen).toMatch(/Recent entries \(1, newest first\)/);
      no.type('n\r');
      const n = await no.done;
      expect(n.code).toBe(2); // "no" at a confirmation: exit 2, as gh does
      expect(n.output).toContain('Aborted; nothing was changed.');
      expect((await get(s, id)).status).toBe('frozen');

      const yes = runPty(['ledger', 'unfreeze', id, '--reason', 'ok after review', ...against(s)]);
      await yes.waitFor(`Unfreeze ledger account ${id}?`);
      yes.type('y\r');
      const y = await yes.done;
      expect(y.code, y.output).toBe(0);
      expect(y.output).toContain('Ledger account unfrozen');
      expect(await get(s, id)).toMatchObject({ status: 'active', frozen_by: null });
      const ev = await s.request('GET', `/ledger-accounts/${id}/events?limit=1`);
      expect(ev.body.data[0]).toMatchObject({ type: 'unfrozen', reason: 'ok after review' });
      expect(ev.body.data[0].actor).toMatch(/^cli/);
    },
  );

  describe.skipIf(!hasPty)('with a live key', () => {
    // The local server refuses live keys (401 livemode_unavailable), so the CLI talks to it through a
    // loopback proxy that swaps the live key for the server's test key — the server and the CLI are real.
    let proxy: Server;
    let proxyUrl: string;
    const LIVE = 'sk_live_' + 'L'.repeat(32);
    beforeAll(async () => {
      proxy = createServer(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          if (typeof v === 'string' && k !== 'host' && k !== 'connection') headers[k] = v;
        if (headers.authorization === `Bearer ${LIVE}`) headers.authorization = `Bearer ${s.apiKey}`;
        const origin = new URL(s.baseUrl).origin;
        const upstream = await fetch(origin + req.url, {
          method: req.method,
          headers,
          body: chunks.length ? Buffer.concat(chunks) : undefined,
        });
        const out: Record<string, string> = {};
        upstream.headers.forEach((v, k) => {
          if (k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection' && k !== 'keep-alive')
            out[k] = v;
        });
        res.writeHead(upstream.status, out).end(Buffer.from(await upstream.arrayBuffer()));
      });
      await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
      proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}/functions/v1`;
    });
    afterAll(() => new Promise<void>((r) => proxy.close(() => r())));

    it('the confirmation is typing the account id: a wrong id aborts, the right one unfreezes', async () => {
      const id = await frozenWallet();
      const wrong = runPty(['ledger', 'unfreeze', id, '--base-url', proxyUrl, '--api-key', LIVE]);
      await wrong.waitFor(`Type ${id} to confirm`);
      expect(await wrong.waitFor('LIVE')).toContain('LIVE');
      wrong.type('y\r');
      const w = await wrong.done;
      expect(w.code).toBe(2);
      expect(w.output).toContain('Aborted; nothing was changed.');
      // The wrong answer is not marked as accepted (inquirer's ✔ on every answer).
      expect(w.output).not.toContain('✔');
      expect(w.output).toMatch(/confirm: y ✘ does not match/);
      expect((await get(s, id)).status).toBe('frozen');

      const right = runPty(['ledger', 'unfreeze', id, '--base-url', proxyUrl, '--api-key', LIVE]);
      await right.waitFor(`Type ${id} to confirm`);
      right.type(`${id}\r`);
      const r = await right.done;
      expect(r.code, r.output).toBe(0);
      expect(r.output).toContain(`confirm: ${id} ✔`);
      expect((await get(s, id)).status).toBe('active');
    });

    it('--yes skips even the typed confirmation; without a terminal it refuses', async () => {
      const id = await frozenWallet();
      const refused = await runCli(['ledger', 'unfreeze', id, '--base-url', proxyUrl, '--api-key', LIVE]);
      expect(refused.code).toBe(2);
      expect((await get(s, id)).status).toBe('frozen');
      const ok = await runCli(['ledger', 'unfreeze', id, '--yes', '--base-url', proxyUrl, '--api-key', LIVE, '--json']);
      expect(ok.code, ok.stderr).toBe(0);
      expect((await get(s, id)).status).toBe('active');
    });
  });
});
