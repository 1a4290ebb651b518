// Profiles (file mode, masking, add/list/show/use/remove), the precedence flags > env > active profile >
// embedded default checked against two different servers, and live keys (issue 2, CLI).
import { createServer, type Server } from 'node:http';
import { readFileSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { limiter } from '../helpers/util.js';

let A: TestServer;
let B: TestServer;
/** A stand-in server that records every request it gets (to prove that none was sent). */
let recorder: Server;
let recorderUrl: string;
const recorded: string[] = [];

beforeAll(async () => {
  [A, B] = await Promise.all([startTestServer({ memory: true }), startTestServer({ memory: true })]);
  recorder = createServer((req, res) => {
    recorded.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(401, { 'content-type': 'application/json', 'request-id': 'req_recorder' });
    res.end(
      JSON.stringify({
        error: {
          type: 'authentication_error',
          code: 'livemode_unavailable',
          message: 'recorder',
          request_id: 'req_recorder',
        },
      }),
    );
  });
  await new Promise<void>((r) => recorder.listen(0, '127.0.0.1', () => r()));
  recorderUrl = `http://127.0.0.1:${(recorder.address() as { port: number }).port}/functions/v1`;
});
afterAll(async () => {
  await Promise.all([A?.close(), B?.close(), new Promise((r) => recorder?.close(r))]);
});

const mode = (path: string) => statSync(path).mode & 0o777;
// Tests run concurrently (both cores), with at most 3 CLI processes at a time.
const slot = limiter(3);
const run = (args: string[], opts: Parameters<typeof runCli>[1] = {}) => slot(() => runCli(args, opts));
const LIVE_KEY = 'sk_live_' + 'L1veKey'.repeat(4) + 'WXYZ';

// Every scenario below is independent: they run side by side (CLI processes capped by `slot`).
// Concurrent tests share 3 CLI slots, so a test's time includes waiting for slots: a wider timeout.
describe.concurrent('cli', { timeout: 120_000 }, () => {
  describe.concurrent('profiles', () => {
    it('add/list/show/use/remove keep $PAYORCH_HOME/config.json at mode 0600 and never print a key in full', async () => {
      const home = tempDir();
      const file = join(home, 'config.json');
      const add1 = await run(['profiles', 'add', 'alpha', '--api-key', A.apiKey, '--base-url', A.baseUrl], { home });
      expect(add1.code).toBe(0);
      expect(add1.stdout).toContain('alpha');
      expect(add1.stdout).not.toContain(A.apiKey);
      expect(mode(file)).toBe(0o600);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
        active: 'alpha',
        profiles: { alpha: { api_key: A.apiKey, base_url: A.baseUrl } },
      });

      const add2 = await run(['profiles', 'add', 'beta', '--api-key', B.apiKey, '--base-url', B.baseUrl, '--json'], {
        home,
      });
      expect(add2.code).toBe(0);
      expect(add2.stdout).not.toContain(B.apiKey);
      expect(add2.json()).toMatchObject({ name: 'beta', active: false, live: false });
      expect(add2.json().api_key).toBe(`sk_test_…${B.apiKey.slice(-4)}`);
      expect(mode(file)).toBe(0o600);

      const [list, listJson, show, showJson] = await Promise.all([
        run(['profiles', 'list'], { home }),
        run(['profiles', 'list', '--json'], { home }),
        run(['profiles', 'show'], { home }),
        run(['profiles', 'show', 'beta', '--json'], { home }),
      ]);
      for (const r of [list, listJson, show, showJson]) {
        expect(r.code).toBe(0);
        expect(r.stdout).not.toContain(A.apiKey);
        expect(r.stdout).not.toContain(B.apiKey);
      }
      expect(list.stdout).toMatch(/\*\s+alpha\s+test\s+sk_test_…/);
      expect(list.stdout).toContain(A.apiKey.slice(-4));
      expect(list.stdout).toMatch(/beta/);
      expect(listJson.json().data.map((p: { name: string; active: boolean }) => [p.name, p.active])).toEqual([
        ['alpha', true],
        ['beta', false],
      ]);
      expect(show.stdout).toMatch(/^Profile alpha/);
      expect(show.stdout).toContain(A.baseUrl);
      expect(showJson.json()).toMatchObject({
        name: 'beta',
        active: false,
        base_url: B.baseUrl,
        api_key: `sk_test_…${B.apiKey.slice(-4)}`,
      });

      const use = await run(['profiles', 'use', 'beta'], { home });
      expect(use.code).toBe(0);
      expect(JSON.parse(readFileSync(file, 'utf8')).active).toBe('beta');
      expect(mode(file)).toBe(0o600);

      const rm = await run(['profiles', 'remove', 'alpha'], { home });
      expect(rm.code).toBe(0);
      expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).profiles)).toEqual(['beta']);
      expect(mode(file)).toBe(0o600);
    });

    it('piped stdin is never taken for a left-out argument: `echo ghost | profiles show` shows no profile "ghost"', async () => {
      const home = tempDir();
      const r = await run(['profiles', 'show'], { home, input: 'ghost\n' });
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('No active profile');
      expect(r.stderr).not.toContain('ghost');
    });

    it('refuses bad input with exit 2/3 and writes nothing; no prompt for the key without a TTY', async () => {
      const home = tempDir();
      const [noKey, badKey, badUrl, badName, useUnknown, showNone] = await Promise.all([
        run(['profiles', 'add', 'x'], { home, input: `${A.apiKey}\n` }),
        run(['profiles', 'add', 'x', '--api-key', 'hunter2'], { home }),
        run(['profiles', 'add', 'x', '--api-key', A.apiKey, '--base-url', 'ftp://nope'], { home }),
        run(['profiles', 'add', 'no/slash', '--api-key', A.apiKey], { home }),
        run(['profiles', 'use', 'ghost'], { home }),
        run(['profiles', 'show'], { home }),
      ]);
      expect(noKey.code).toBe(2);
      expect(noKey.stderr).toContain('--api-key');
      expect(noKey.stdout).toBe('');
      expect(badKey.code).toBe(2);
      expect(badKey.stderr).not.toContain('hunter2');
      expect(badUrl.code).toBe(2);
      expect(badName.code).toBe(2);
      expect(useUnknown.code).toBe(3);
      expect(showNone.code).toBe(3);
      expect(existsSync(join(home, 'config.json'))).toBe(false);

      expect((await run(['profiles', 'add', 'x', '--api-key', A.apiKey], { home })).code).toBe(0);
      const dup = await run(['profiles', 'add', 'x', '--api-key', B.apiKey], { home });
      expect(dup.code).toBe(2);
      expect(dup.stderr).toContain('--force');
      expect(JSON.parse(readFileSync(join(home, 'config.json'), 'utf8')).profiles.x.api_key).toBe(A.apiKey);
      expect((await run(['profiles', 'add', 'x', '--api-key', B.apiKey, '--force'], { home })).code).toBe(0);
      expect(JSON.parse(readFileSync(join(home, 'config.json'), 'utf8')).profiles.x.api_key).toBe(B.apiKey);
    });
  });

  describe.concurrent('precedence: flags > env > active profile > embedded default', () => {
    let home: string;
    beforeAll(async () => {
      home = tempDir();
      expect((await run(['profiles', 'add', 'a', '--api-key', A.apiKey, '--base-url', A.baseUrl], { home })).code).toBe(
        0,
      );
      expect((await run(['profiles', 'add', 'b', '--api-key', B.apiKey, '--base-url', B.baseUrl], { home })).code).toBe(
        0,
      );
    });

    /** Which server a `sessions create` went to: the session's checkout URL carries the server's base URL. */
    async function whereTo(args: string[], env: Record<string, string> = {}, h = home): Promise<string> {
      const r = await run(['sessions', 'create', '--amount', '100', '--currency', 'usd', '--json', ...args], {
        home: h,
        env,
      });
      expect(r.code, r.stderr).toBe(0);
      const url: string = r.json().fallback_url;
      if (url.startsWith(A.baseUrl)) return 'A';
      if (url.startsWith(B.baseUrl)) return 'B';
      expect(r.stderr).toMatch(/embedded/);
      return 'embedded';
    }
    const envB = () => ({ PAYORCH_API_KEY: B.apiKey, PAYORCH_BASE_URL: B.baseUrl });

    it('resolves each level against two different servers', async () => {
      const results = await Promise.all([
        whereTo([]), // active profile a
        whereTo([], { PAYORCH_PROFILE: 'b' }), // env profile beats the active one
        whereTo([], envB()), // env key + URL beat the active profile
        whereTo(['--api-key', A.apiKey, '--base-url', A.baseUrl], envB()), // flags beat env
        whereTo(['--profile', 'a'], { PAYORCH_PROFILE: 'b' }), // --profile beats PAYORCH_PROFILE
        whereTo(['--profile', 'a'], envB()), // --profile (a flag) beats env key + URL
        whereTo([], {}, tempDir()), // nothing configured: embedded
      ]);
      expect(results).toEqual(['A', 'B', 'B', 'A', 'A', 'A', 'embedded']);
    });
  });

  describe.concurrent('live keys', () => {
    it('a state-changing command without a TTY and without --yes is refused (exit 2) and sends no request', async () => {
      const home = tempDir();
      expect(
        (await run(['profiles', 'add', 'prod', '--api-key', LIVE_KEY, '--base-url', recorderUrl, '--use'], { home }))
          .code,
      ).toBe(0);
      const [list, show] = await Promise.all([
        run(['profiles', 'list'], { home }),
        run(['profiles', 'show', 'prod'], { home }),
      ]);
      expect(list.stdout).toMatch(/prod\s+LIVE/);
      expect(show.stdout).toMatch(/mode\s+LIVE/);
      expect(list.stdout + show.stdout).not.toContain(LIVE_KEY);

      recorded.length = 0;
      const refused = await Promise.all([
        run(['sessions', 'create', '--amount', '100', '--currency', 'usd'], { home }),
        run(['sessions', 'update', '0190a8b0-0000-7000-8000-000000000000', '--amount', '5', '--json'], { home }),
        run(['sessions', 'cancel', '0190a8b0-0000-7000-8000-000000000000'], { home }),
        run(['api', 'POST', '/create-session', '--data', '{"amount":1,"currency":"usd"}'], { home }),
      ]);
      for (const r of refused) {
        expect(r.code).toBe(2);
        expect(r.stderr).toContain('--yes');
        expect(r.stderr).toContain('LIVE');
        expect(r.stderr + r.stdout).not.toContain(LIVE_KEY);
      }
      expect(refused[1]!.json().error.message).toContain('--yes');
      expect(recorded).toEqual([]);

      // reads are not state changes: they go out (and the recorder says 401 → exit 3)
      const read = await run(['sessions', 'list'], { home });
      expect(read.code).toBe(3);
      expect(recorded).toEqual(['GET /functions/v1/sessions']);
    });

    it('the first profile added is not made active when its key is live (without a terminal); --use or `profiles use` makes it so', async () => {
      const home = tempDir();
      const file = join(home, 'config.json');
      const add = await run(['profiles', 'add', 'live', '--api-key', LIVE_KEY, '--base-url', recorderUrl], { home });
      expect(add.code, add.stderr).toBe(0);
      expect(add.stdout).toBe(
        'Saved profile live (LIVE sk_live_…WXYZ), not active: a live profile becomes active only when asked (`payorch profiles use live`).\n',
      );
      expect(JSON.parse(readFileSync(file, 'utf8')).active).toBeUndefined();
      const json = await run(['profiles', 'add', 'live2', '--api-key', LIVE_KEY, '--json'], { home });
      expect(json.json()).toMatchObject({ name: 'live2', live: true, active: false });
      // Replacing a test profile that is active with a live key does not leave it active either.
      expect(
        (await run(['profiles', 'add', 'local', '--api-key', A.apiKey, '--base-url', A.baseUrl], { home })).stdout,
      ).toMatch(/, active\.$/m);
      const replaced = await run(['profiles', 'add', 'local', '--api-key', LIVE_KEY, '--force'], { home });
      expect(replaced.stdout).toContain('not active');
      expect(JSON.parse(readFileSync(file, 'utf8')).active).toBeUndefined();
      // Asked for: --use, or profiles use.
      expect(
        (await run(['profiles', 'add', 'asked', '--api-key', LIVE_KEY, '--use', '--json'], { home })).json(),
      ).toMatchObject({ live: true, active: true });
      expect((await run(['profiles', 'use', 'live'], { home })).code).toBe(0);
      expect(JSON.parse(readFileSync(file, 'utf8')).active).toBe('live');
      // A test key as the first profile is still made active.
      expect(
        (await run(['profiles', 'add', 'first', '--api-key', A.apiKey, '--base-url', A.baseUrl], { home: tempDir() }))
          .stdout,
      ).toMatch(/^Saved profile first \(sk_test_…\w{4}\), active\.$/m);
    });

    it('a restricted live key (rk_live_) is live too: labelled LIVE, not made active unasked, and a write with it needs --yes', async () => {
      const home = tempDir();
      const restricted = 'rk_live_' + 'R3str1ct'.repeat(3) + 'WXYZ';
      const add = await run(['profiles', 'add', 'rk', '--api-key', restricted, '--base-url', A.baseUrl, '--json'], {
        home,
      });
      expect(add.json()).toMatchObject({ live: true, active: false });
      const write = await run([
        'sessions',
        'create',
        '--amount',
        '100',
        '--currency',
        'usd',
        '--api-key',
        restricted,
        '--base-url',
        A.baseUrl,
      ]);
      expect(write.code).toBe(2);
      expect(write.stderr).toMatch(/LIVE key rk_live_…WXYZ/);
    });

    it('with --yes the request is made; the local server answers 401 livemode_unavailable → exit 3', async () => {
      const r = await run([
        'sessions',
        'create',
        '--amount',
        '100',
        '--currency',
        'usd',
        '--yes',
        '--api-key',
        LIVE_KEY,
        '--base-url',
        A.baseUrl,
      ]);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('livemode_unavailable');
      expect(r.stderr).toMatch(/LIVE key sk_live_…WXYZ/);
      expect(r.stderr).not.toContain(LIVE_KEY);
      expect(
        (await A.request('GET', '/sessions?limit=100')).body.data.every((x: { amount: number }) => x.amount === 100),
      ).toBe(true);
    });
  });
});
