// The real binary against a real server on loopback, and against the embedded default (issue 2, CLI):
// --json output, human views, errors on stderr, exit codes, no prompts without a TTY, `payorch api`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { against, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { closedPort, CLIENT_SECRET, limiter, UUID } from '../helpers/util.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
});
afterAll(() => s?.close());

// Tests run concurrently (both cores), with at most 3 CLI processes at a time.
const slot = limiter(3);
const run = (args: string[], opts: Parameters<typeof runCli>[1] = {}) => slot(() => runCli(args, opts));
const cli = (args: string[], opts: Parameters<typeof runCli>[1] = {}) => run([...args, ...against(s)], opts);

// Every scenario below is independent: they run side by side (CLI processes capped by `slot`).
// Concurrent tests share 3 CLI slots, so a test's time includes waiting for slots: a wider timeout.
describe.concurrent('cli', { timeout: 120_000 }, () => {
  describe.concurrent('sessions commands over HTTP', () => {
    it('create --json prints exactly the API object (client_secret included, as the API returns it) and nothing else', async () => {
      const r = await cli([
        'sessions',
        'create',
        '--amount',
        '1999',
        '--currency',
        'usd',
        '--external-id',
        'cli-1',
        '--metadata',
        'a=1',
        '--metadata',
        'b=x=y',
        '--json',
      ]);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout.trim().startsWith('{')).toBe(true);
      const out = r.json();
      const stored = (await s.request('GET', `/sessions/${out.id}`)).body;
      expect(out.id).toMatch(UUID);
      expect(stored.client_secret).toMatch(CLIENT_SECRET);
      expect(out).toEqual(stored); // --json is the API object exactly (README "Output and exit codes")
      expect(out).toMatchObject({
        amount: 1999,
        currency: 'USD',
        external_id: 'cli-1',
        metadata: { a: '1', b: 'x=y' },
      });
    });

    it('get/update/cancel/list: human views are readable text, never JSON, never the secret', async () => {
      const created = (
        await s.request('POST', '/create-session', {
          body: { amount: 2500, currency: 'eur', external_id: 'human', metadata: { keep: '1', drop: '2' } },
        })
      ).body;
      const [get, list] = await Promise.all([
        cli(['sessions', 'get', created.id]),
        cli(['sessions', 'list', '--limit', '3', '--external-id', 'human']),
      ]);
      expect(get.code).toBe(0);
      expect(get.stdout).toMatch(/^Payment session\n/);
      expect(get.stdout).toContain(created.id);
      expect(get.stdout).toMatch(/status\s+requires_payment_method/);
      expect(get.stdout).toMatch(/amount\s+25\.00 EUR/);
      expect(get.stdout).toContain(`cs_…${created.client_secret.slice(-4)}`);
      expect(get.stdout).not.toContain(created.client_secret);
      expect(get.stdout).not.toContain('\x1b['); // no colour without a TTY / with NO_COLOR
      expect(() => JSON.parse(get.stdout)).toThrow();
      expect(list.code).toBe(0);
      expect(list.stdout.split('\n')[0]).toMatch(/^ID\s+STATUS\s+AMOUNT/);
      expect(list.stdout).toContain(created.id);
      expect(list.stdout).not.toContain(created.client_secret);

      const upd = await cli([
        'sessions',
        'update',
        created.id,
        '--amount',
        '3000',
        '--metadata',
        'drop=',
        '--description',
        'changed',
        '--json',
      ]);
      expect(upd.code).toBe(0);
      expect(upd.json()).toMatchObject({ amount: 3000, description: 'changed', metadata: { keep: '1' } });
      expect(upd.json().metadata).not.toHaveProperty('drop');

      const cancel = await cli(['sessions', 'cancel', created.id, '--reason', 'duplicate']);
      expect(cancel.code).toBe(0);
      expect(cancel.stdout).toMatch(/^Payment session canceled/);
      expect(cancel.stdout).toMatch(/canceled\s+duplicate at /);
      expect((await s.request('GET', `/sessions/${created.id}`)).body).toMatchObject({
        status: 'canceled',
        cancellation_reason: 'duplicate',
      });
    });

    it('list --json prints the list object; filters and cursors reach the server', async () => {
      const ext = `cli-list-${Date.now()}`;
      const ids: string[] = [];
      for (let i = 0; i < 3; i++)
        ids.push(
          (await s.request('POST', '/create-session', { body: { amount: 100 + i, currency: 'usd', external_id: ext } }))
            .body.id,
        );
      const [page, next, all] = await Promise.all([
        cli(['sessions', 'list', '--external-id', ext, '--limit', '2', '--json']),
        cli(['sessions', 'list', '--external-id', ext, '--starting-after', ids[1]!, '--json']),
        cli(['sessions', 'list', '--external-id', ext, '--all', '--limit', '1', '--json']),
      ]);
      expect(page.code).toBe(0);
      expect(page.json()).toMatchObject({ object: 'list', has_more: true, total_count: 3 });
      expect(page.json().data.map((x: { id: string }) => x.id)).toEqual([ids[2], ids[1]]);
      for (const x of page.json().data) expect(x.client_secret).toMatch(CLIENT_SECRET);
      expect(next.json().data.map((x: { id: string }) => x.id)).toEqual([ids[0]]);
      expect(all.json().data.map((x: { id: string }) => x.id)).toEqual([ids[2], ids[1], ids[0]]);
    });

    it('an API error goes to stderr with code and request id, exit 1; with --json stdout is the error body', async () => {
      const id = '0190a8b0-0000-7000-8000-000000000000';
      const [human, json, conflict] = await Promise.all([
        cli(['sessions', 'get', id]),
        cli(['sessions', 'get', id, '--json']),
        (async () => {
          const c = (await s.request('POST', '/create-session', { body: { amount: 1, currency: 'usd' } })).body;
          await s.request('POST', `/sessions/${c.id}/cancel`);
          return cli(['sessions', 'update', c.id, '--amount', '5']);
        })(),
      ]);
      expect(human.code).toBe(1);
      expect(human.stdout).toBe('');
      expect(human.stderr).toContain('resource_missing');
      expect(human.stderr).toMatch(/request req_[0-9A-Za-z]+/);
      expect(human.stderr).toContain(id);
      expect(json.code).toBe(1);
      const body = json.json();
      expect(body.error).toMatchObject({
        type: 'invalid_request_error',
        code: 'resource_missing',
        param: 'session_id',
        request_id: expect.stringMatching(/^req_/),
      });
      expect(json.stderr).toContain(body.error.request_id);
      expect(conflict.code).toBe(1);
      expect(conflict.stderr).toContain('session_unexpected_state');
    });

    it('a validation error from the server is exit 1 and names the param', async () => {
      const r = await cli(['sessions', 'create', '--amount', '100', '--currency', 'zzz', '--json']);
      expect(r.code).toBe(1);
      expect(r.json().error).toMatchObject({ type: 'validation_error', code: 'parameter_invalid', param: 'currency' });
      expect(r.stderr).toContain('param currency');
    });

    it('exit 2: missing required flag without a TTY names the flag and prompts nothing; bad flag values', async () => {
      const ext = ['--external-id', 'exit-two'];
      const [noAmount, jsonMode, badOpt, badMeta, noArg, unknownFlag] = await Promise.all([
        cli(['sessions', 'create', '--currency', 'usd', ...ext], { input: '1999\n' }),
        cli(['sessions', 'create', '--currency', 'usd', '--json', ...ext]),
        cli(['sessions', 'create', '--amount', '1', '--currency', 'usd', '--capture-method', 'later', ...ext]),
        cli(['sessions', 'create', '--amount', '1', '--currency', 'usd', '--metadata', 'novalue', ...ext]),
        cli(['sessions', 'get', '--json']),
        cli(['sessions', 'list', '--bogus']),
      ]);
      for (const r of [noAmount, jsonMode, badOpt, badMeta, noArg, unknownFlag]) expect(r.code).toBe(2);
      expect(noArg.json().error).toMatchObject({
        code: 'usage_error',
        message: expect.stringMatching(/^Missing the ID argument: `payorch sessions get ID`/),
      });
      expect(unknownFlag.stderr).toContain('--bogus');
      expect(noAmount.stderr).toContain('--amount');
      expect(noAmount.stdout).toBe(''); // no prompt was written
      expect(jsonMode.json().error.message).toContain('--amount');
      expect(badOpt.stderr).toContain('capture-method');
      expect(badMeta.stderr).toContain('key=value');
      expect((await s.request('GET', '/sessions?external_id=exit-two')).body.total_count).toBe(0);
    });

    it('exit 3 for a key the server rejects; exit 4 when the server cannot be reached (quickly)', async () => {
      const port = await closedPort();
      const [bad, live, unreachable] = await Promise.all([
        run(['sessions', 'list', '--base-url', s.baseUrl, '--api-key', 'sk_test_' + 'Z'.repeat(32)]),
        run(['sessions', 'list', '--base-url', s.baseUrl, '--api-key', 'sk_live_' + 'Z'.repeat(32), '--json']),
        run(['sessions', 'list', '--base-url', `http://127.0.0.1:${port}/functions/v1`, '--api-key', s.apiKey]),
      ]);
      expect(bad.code).toBe(3);
      expect(bad.stderr).toContain('invalid_api_key');
      expect(bad.stderr).not.toContain('Z'.repeat(32));
      expect(live.code).toBe(3);
      expect(live.json().error.code).toBe('livemode_unavailable');
      expect(unreachable.code).toBe(4);
      expect(unreachable.stderr).toContain(`127.0.0.1:${port}`);
      expect(unreachable.stdout).toBe('');
    });

    it('a configuration problem (key-less --base-url, unknown profile) is exit 3', async () => {
      const [noKey, noProfile] = await Promise.all([
        run(['sessions', 'list', '--base-url', s.baseUrl]),
        run(['sessions', 'list', '--profile', 'nope']),
      ]);
      expect(noKey.code).toBe(3);
      expect(noKey.stderr).toMatch(/No API key/);
      expect(noProfile.code).toBe(3);
      expect(noProfile.stderr).toContain('nope');
    });
  });

  describe.concurrent('payorch api', () => {
    it('GET /sessions prints the JSON answer; query flags and inline query strings work', async () => {
      for (let i = 0; i < 2; i++) await s.request('POST', '/create-session', { body: { amount: 1, currency: 'usd' } });
      const [plain, withQuery, inline] = await Promise.all([
        cli(['api', 'GET', '/sessions']),
        cli(['api', 'GET', '/sessions', '--query', 'limit=1', '--json']),
        cli(['api', 'get', 'sessions?limit=2']),
      ]);
      expect(plain.code).toBe(0);
      expect(JSON.parse(plain.stdout)).toMatchObject({ object: 'list', url: '/functions/v1/sessions' });
      expect(withQuery.json().data).toHaveLength(1);
      expect(withQuery.json().data[0].client_secret).toMatch(CLIENT_SECRET);
      expect(JSON.parse(inline.stdout).data).toHaveLength(2);
    });

    it('POST with --data @file and --data - (stdin), PATCH inline', async () => {
      const dir = tempDir();
      const file = join(dir, 'body.json');
      writeFileSync(file, JSON.stringify({ amount: 777, currency: 'chf', external_id: 'from-file' }));
      const [fromFile, fromStdin] = await Promise.all([
        cli(['api', 'POST', '/create-session', '--data', `@${file}`, '--json']),
        cli(['api', 'POST', '/create-session', '--data', '-', '--json'], {
          input: '{"amount": 888, "currency": "sek", "external_id": "from-stdin"}',
        }),
      ]);
      expect(fromFile.code).toBe(0);
      expect(fromFile.json()).toMatchObject({
        object: 'payment_session',
        amount: 777,
        currency: 'CHF',
        external_id: 'from-file',
      });
      expect(fromStdin.code).toBe(0);
      expect(fromStdin.json()).toMatchObject({ amount: 888, currency: 'SEK', external_id: 'from-stdin' });
      expect((await s.request('GET', `/sessions/${fromFile.json().id}`)).body.amount).toBe(777);

      const patched = await cli([
        'api',
        'PATCH',
        `/sessions/${fromFile.json().id}`,
        '--data',
        '{"amount": 778}',
        '--json',
      ]);
      expect(patched.json().amount).toBe(778);
    });

    it('an error answer is printed as the error body with exit 1; bad --data is exit 2 and sends nothing', async () => {
      const [err, badJson, missingFile, noRoute] = await Promise.all([
        cli(['api', 'POST', '/create-session', '--data', '{"amount": 1, "external_id": "api-err"}', '--json']),
        cli(['api', 'POST', '/create-session', '--data', '{"amount": 1, "currency": "usd", "external_id": "api-err"']),
        cli(['api', 'POST', '/create-session', '--data', '@/nonexistent/body.json']),
        cli(['api', 'GET', '/nope']),
      ]);
      expect(err.code).toBe(1);
      expect(err.json().error).toMatchObject({ code: 'parameter_missing', param: 'currency' });
      expect(badJson.code).toBe(2);
      expect(badJson.stderr).toContain('--data');
      expect(missingFile.code).toBe(2);
      expect(noRoute.code).toBe(1);
      expect(noRoute.stderr).toContain('route_not_found');
      expect((await s.request('GET', '/sessions?external_id=api-err')).body.total_count).toBe(0);
    });

    it('--idempotency-key makes a repeated command replay instead of creating twice', async () => {
      const key = `cli-${Date.now()}`;
      const args = [
        'sessions',
        'create',
        '--amount',
        '321',
        '--currency',
        'usd',
        '--external-id',
        key,
        '--idempotency-key',
        key,
        '--json',
      ];
      const a = await cli(args);
      const b = await cli(args);
      expect(a.code).toBe(0);
      expect(b.code).toBe(0);
      expect(b.json().id).toBe(a.json().id);
      expect((await s.request('GET', `/sessions?external_id=${key}`)).body.total_count).toBe(1);
    });
  });

  describe.concurrent('embedded default (no key configured anywhere)', () => {
    it('runs in-process with a one-line notice on stderr; commands started together on a fresh home share one account; objects persist', async () => {
      const home = tempDir();
      // three commands at once on a fresh PAYORCH_HOME: one data directory and account is created, not three
      const runs = await Promise.all(
        [1, 2, 3].map((i) =>
          run(['sessions', 'create', '--amount', String(1997 + i), '--currency', 'usd', '--json'], { home }),
        ),
      );
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      const created = runs[1]!;
      const notice = created.stderr.trim().split('\n');
      expect(notice).toHaveLength(1);
      expect(notice[0]).toMatch(/embedded/);
      const session = created.json();
      expect(session).toMatchObject({
        object: 'payment_session',
        amount: 1999,
        currency: 'USD',
        status: 'requires_payment_method',
      });
      expect(session.client_secret).toMatch(CLIENT_SECRET);

      const [got, list] = await Promise.all([
        run(['sessions', 'get', session.id, '--json'], { home }),
        run(['sessions', 'list', '--json'], { home }),
      ]);
      expect(got.code).toBe(0);
      expect(got.json()).toEqual(session);
      expect(list.json().total_count).toBe(3);
      expect(
        list
          .json()
          .data.map((x: { amount: number }) => x.amount)
          .sort(),
      ).toEqual([1998, 1999, 2000]);

      const canceled = await run(['sessions', 'cancel', session.id, '--json'], { home });
      expect(canceled.json()).toMatchObject({ status: 'canceled', cancellation_reason: 'requested_by_customer' });
      const [again, elsewhere] = await Promise.all([
        run(['sessions', 'cancel', session.id], { home }),
        run(['sessions', 'list', '--json'], { home: tempDir() }),
      ]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('session_unexpected_state');
      // the embedded server logs like a real one, and a one-command process keeps its lines
      const requestId = /request (req_[0-9A-Za-z]+)/.exec(again.stderr)?.[1];
      const log = readFileSync(join(home, 'server', 'server.log'), 'utf8');
      expect(log).toContain(requestId);
      expect(log).not.toContain(JSON.parse(readFileSync(join(home, 'server', 'credentials.json'), 'utf8')).api_key);
      // another PAYORCH_HOME is another embedded server
      expect(elsewhere.json().total_count).toBe(0);
    });

    it('the embedded server applies the same validation and errors', async () => {
      const home = tempDir();
      const [bad, api] = await Promise.all([
        run(['sessions', 'create', '--amount', '1', '--currency', 'zzz', '--json'], { home }),
        run(['api', 'POST', '/create-session', '--data', '{"amount":1,"currency":"usd","bogus":true}', '--json'], {
          home,
        }),
      ]);
      expect(bad.code, bad.stderr).toBe(1);
      expect(bad.json().error).toMatchObject({
        type: 'validation_error',
        code: 'parameter_invalid',
        param: 'currency',
        request_id: expect.stringMatching(/^req_/),
      });
      expect(api.code, api.stderr).toBe(1);
      expect(api.json().error).toMatchObject({ code: 'parameter_unknown', param: 'bogus' });
    });
  });
});
