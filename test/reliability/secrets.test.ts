// Secrets never in clear (issue 6, brief "Secrets"): a representative flow over HTTP and through the real CLI
// (--json and human output) with API keys, client secrets, card numbers through the test vault, bank account numbers
// and identity-vault values — including requests with Idempotency-Keys (whose saved responses are stored) and
// rejected requests carrying secrets — then the server log, every CLI stdout/stderr and the raw database files
// (payorch.db, -wal, -shm; while running and after close) are scanned for every secret value used.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { against, runCli, type CliResult } from '../helpers/cli.js';
import { onSqlite } from '../helpers/engine.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const DB_FILES = ['payorch.db', 'payorch.db-wal', 'payorch.db-shm'];

describe('secrets at rest, in logs and in CLI output', () => {
  it.runIf(onSqlite)(
    'no API key, client secret, card number, account number or vault value appears in clear anywhere',
    { timeout: 120_000 },
    async () => {
      const secrets = new Map<string, string>(); // value → what it is
      const secret = (what: string, value: string) => (secrets.set(value, what), value);
      const cli: (CliResult & { jsonMode?: boolean })[] = [];
      const run = async (args: string[], input?: string) => {
        const r = await runCli([...args, ...against(s)], { input, timeoutMs: 60_000 });
        cli.push(Object.assign(r, { jsonMode: args.includes('--json') }));
        return r;
      };
      const post = (path: string, body: unknown, opts: { key?: string | null; idem?: string } = {}) =>
        s.request('POST', path, {
          body,
          key: opts.key,
          headers: opts.idem ? { 'idempotency-key': opts.idem } : undefined,
        });

      secret('API key', s.apiKey);
      const otherKey = secret('second API key', (await s.server.services.accounts.createAccountWithKey()).api_key);
      secret('unknown API key', 'sk_test_NotARealKeyButSecret0123456789');

      // Sessions and client secrets (with and without Idempotency-Key: saved responses hold the secret too).
      const sessions = [];
      for (let i = 0; i < 3; i++) {
        const r = await post(
          '/create-session',
          { amount: 1000 + i, currency: 'usd' },
          { idem: i < 2 ? `secrets-session-${i}` : undefined },
        );
        expect(r.status).toBe(201);
        secret('client secret', r.body.client_secret);
        sessions.push(r.body as { id: string; client_secret: string });
      }
      const replay = await post('/create-session', { amount: 1000, currency: 'usd' }, { idem: 'secrets-session-0' });
      expect(replay.body.client_secret).toBe(sessions[0]!.client_secret); // the replay hands the secret back, from storage
      const other = await post('/create-session', { amount: 5, currency: 'eur' }, { key: otherKey });
      secret('client secret', other.body.client_secret);
      expect(
        (await s.request('GET', `/get-session-config/${sessions[0]!.id}`, { key: sessions[0]!.client_secret })).status,
      ).toBe(200);
      expect((await s.request('GET', '/sessions', { key: 'sk_test_NotARealKeyButSecret0123456789' })).status).toBe(401);

      // Cards through the test vault, confirm with the client secret; a network token from a card.
      const card = secret('card number', '4012888888881881');
      const tok = await post(
        '/vault/tokens',
        { number: card, exp_month: 12, exp_year: 2040, cvc: '123' },
        { key: null },
      );
      expect(tok.status, tok.text).toBeLessThan(300);
      const paid = await s.request('POST', `/confirm-payment/${sessions[0]!.id}`, {
        body: { token_id: tok.body.token_id },
        key: sessions[0]!.client_secret,
        headers: { 'idempotency-key': 'secrets-confirm' },
      });
      expect(paid.status, paid.text).toBe(200);
      const declined = secret('card number', '4000000000000002');
      const tok2 = await post('/vault/tokens', { number: declined, exp_month: 11, exp_year: 2041 }, { key: null });
      expect(
        (
          await s.request('POST', `/confirm-payment/${sessions[2]!.id}`, {
            body: { token_id: tok2.body.token_id },
            key: sessions[2]!.client_secret,
          })
        ).status,
      ).toBe(402);
      await post(
        '/vault/tokens',
        { number: secret('card number (invalid Luhn)', '4242424242424241'), exp_month: 12, exp_year: 2040 },
        { key: null },
      );
      expect(
        (await post('/network-tokens', { token_id: tok.body.token_id }, { idem: 'secrets-nt' })).status,
      ).toBeLessThan(300);

      // Bank accounts (HTTP with a key, plus a rejected one), identity-vault values, KYC.
      const acct = secret('account number', '000246813579');
      expect(
        (
          await post(
            '/bank-accounts',
            { account_number: acct, routing_number: '110000000', holder_name: 'Jenny Rosen' },
            { idem: 'secrets-ba' },
          )
        ).status,
      ).toBe(201);
      expect(
        (
          await post('/bank-accounts', {
            account_number: secret('account number (too long)', '0002468135797531864'),
            routing_number: '110000000',
            holder_name: 'J',
          })
        ).status,
      ).toBe(400);
      const ssn = secret('SSN', '987650432');
      const idt = await post('/identity-tokens', { type: 'ssn', value: ssn }, { idem: 'secrets-idt' });
      expect(idt.status, idt.text).toBe(201);
      expect(
        (await post('/identity-tokens', { type: 'passport', value: secret('passport number', 'P7Q3Z9X1W5') })).status,
      ).toBe(201);
      expect(
        (await post('/identity-tokens', { type: 'ssn', value: secret('SSN (malformed)', '98765O43Z') })).status,
      ).toBe(400);
      expect(
        (
          await post('/kyc-verifications', {
            customer_id: 'cus_secrets',
            verification_level: 'basic',
            identity_token_ids: [idt.body.token_id],
          })
        ).status,
      ).toBe(201);

      // The CLI, --json and human output.
      const created = await run(['sessions', 'create', '--amount', '2500', '--currency', 'usd', '--json']);
      expect(created.code, created.stderr).toBe(0);
      const createdId = created.json().id as string;
      const cs = (await s.request('GET', `/sessions/${createdId}`)).body.client_secret as string | undefined;
      if (cs) secret('client secret (CLI session)', cs);
      expect((await run(['sessions', 'create', '--amount', '2600', '--currency', 'usd'])).code).toBe(0);
      expect((await run(['sessions', 'get', sessions[1]!.id, '--json'])).code).toBe(0);
      expect((await run(['sessions', 'get', sessions[1]!.id])).code).toBe(0);
      const cliCard = secret('card number (CLI)', '4000000000003220');
      const confirmed = await run([
        'sessions',
        'confirm',
        sessions[1]!.id,
        '--card',
        cliCard,
        '--exp',
        '12/39',
        '--cvc',
        '321',
        '--json',
      ]);
      expect(confirmed.code, confirmed.stderr).toBe(0);
      expect(
        (await run(['sessions', 'confirm', createdId, '--card', secret('card number (CLI)', '5555555555554444')])).code,
      ).toBe(0);
      const cliAcct = secret('account number (CLI)', '000135792468');
      expect(
        (
          await run([
            'bank-accounts',
            'create',
            '--account-number',
            cliAcct,
            '--routing-number',
            '110000000',
            '--holder-name',
            'Jenny Rosen',
            '--json',
          ])
        ).code,
      ).toBe(0);
      expect(
        (
          await run([
            'bank-accounts',
            'create',
            '--account-number',
            secret('account number (CLI)', '000975318642'),
            '--routing-number',
            '110000000',
            '--holder-name',
            'J',
          ])
        ).code,
      ).toBe(0);
      expect((await run(['bank-accounts', 'list', '--json'])).code).toBe(0);
      expect(
        (await run(['identity-tokens', 'create', '--type', 'itin', '--json'], secret('ITIN (CLI)', '912783456') + '\n'))
          .code,
      ).toBe(0);
      expect(
        (
          await run(
            ['identity-tokens', 'create', '--type', 'drivers_license'],
            secret('license (CLI)', 'D1234-5678-QZ') + '\n',
          )
        ).code,
      ).toBe(0);
      expect((await run(['identity-tokens', 'list'])).code).toBe(0);
      expect((await run(['payments', 'list', '--json'])).code).toBe(0);
      expect((await run(['payments', 'list'])).code).toBe(0);
      // errors carrying secrets: a bad key, a malformed value
      expect(
        (
          await runCli([
            'sessions',
            'list',
            '--base-url',
            s.baseUrl,
            '--api-key',
            'sk_test_NotARealKeyButSecret0123456789',
          ]).then((r) => (cli.push(r), r))
        ).code,
      ).toBe(3);
      expect((await run(['identity-tokens', 'create', '--type', 'ssn', '--json'], '98765O43Z\n')).code).toBe(1);

      // Scan: the database files while the server runs (the WAL holds the recent writes), the CLI's output, then
      // the log and the database again after a clean close (checkpointed).
      const found: string[] = [];
      const scan = (label: string, data: Buffer | string, allowed: (what: string) => boolean = () => false) => {
        const buf = typeof data === 'string' ? Buffer.from(data) : data;
        for (const [value, what] of secrets)
          if (buf.includes(value) && !allowed(what)) found.push(`${what} ${value.slice(0, 6)}… in ${label}`);
      };
      const dir = s.dataDir!;
      for (const f of DB_FILES) if (existsSync(join(dir, f))) scan(`${f} (running)`, readFileSync(join(dir, f)));
      expect(existsSync(join(dir, 'payorch.db-wal'))).toBe(true);
      cli.forEach((r, i) => {
        // --json prints the API object exactly (README "Output and exit codes"): a session's client secret is part
        // of it, as the API returns it; every other secret stays out, and human output masks it.
        scan(`CLI run ${i} stdout`, r.stdout, (what) => Boolean(r.jsonMode) && what.startsWith('client secret'));
        scan(`CLI run ${i} stderr`, r.stderr);
      });
      await s.close();
      const log = readFileSync(join(dir, 'server.log'), 'utf8');
      expect(log.split('\n').length).toBeGreaterThan(30); // the log did record the flow
      scan('server.log', log);
      for (const f of DB_FILES) if (existsSync(join(dir, f))) scan(`${f} (closed)`, readFileSync(join(dir, f)));
      expect(found).toEqual([]);
    },
  );
});
