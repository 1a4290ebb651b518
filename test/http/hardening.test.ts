// Hardening found in review: failed authentication is throttled per address, the log is private to its
// owner, and revoking the data directory's default key does not leave the CLI's embedded default stuck.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { testClock } from '../helpers/clock.js';
import { expectError } from '../helpers/util.js';

describe('hardening', () => {
  it('the test clock moves at most 366 days per call (each call runs everything due on the way)', async () => {
    const s = await startTestServer({ memory: true });
    try {
      const now = (await s.request('GET', '/test-helpers/clock')).body.now as number;
      expectError(
        await s.request('POST', '/test-helpers/advance-clock', { body: { to: 2 ** 40 } }),
        400,
        'validation_error',
        'parameter_invalid',
        'to',
      );
      expectError(
        await s.request('POST', '/test-helpers/advance-clock', { body: { to: '9999-01-01T00:00:00.000Z' } }),
        400,
        'validation_error',
        'parameter_invalid',
        'to',
      );
      expectError(
        await s.request('POST', '/test-helpers/advance-clock', { body: { seconds: 366 * 86400 + 1 } }),
        400,
        'validation_error',
        'parameter_invalid',
        'seconds',
      );
      const ok = await s.request('POST', '/test-helpers/advance-clock', { body: { to: now + 366 * 86400 - 5 } });
      expect(ok.status, ok.text).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('failed authentication counts against the caller address: guessing keys ends in 429', async () => {
    // the limiter reads the test's clock: the four requests share one window whatever the time
    const s = await startTestServer({ rateLimits: { perMinute: 3 }, rateLimitClock: testClock().now });
    try {
      for (let i = 0; i < 3; i++) {
        const r = await s.request('GET', '/sessions', { key: `sk_test_guess${i}` });
        expectError(r, 401, 'authentication_error', 'invalid_api_key');
        expect(r.headers.get('x-ratelimit-remaining')).toBe(String(2 - i));
      }
      const over = await s.request('GET', '/sessions', { key: 'sk_test_guess3' });
      expectError(over, 429, 'invalid_request_error', 'rate_limit_exceeded');
      expect(over.headers.get('retry-after')).toBe('50'); // 10 s into the minute
      // The real key has its own bucket and is unaffected.
      expect((await s.request('GET', '/sessions')).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('server.log is created with mode 0600', async () => {
    const s = await startTestServer();
    try {
      await s.request('GET', '/sessions');
    } finally {
      await s.close();
    }
    expect(statSync(join(s.dataDir!, 'server.log')).mode & 0o777).toBe(0o600);
  });

  it('after the default key is revoked, the embedded default gets a new key for the same account', async () => {
    const home = tempDir();
    const first = await runCli(['sessions', 'create', '--amount', '100', '--currency', 'usd', '--json'], { home });
    expect(first.code, first.stderr).toBe(0);
    const keys = await runCli(['server', 'keys', 'list', '--json', '--data-dir', join(home, 'server')], { home });
    const [key] = keys.json().data;
    const revoked = await runCli(['server', 'keys', 'revoke', key.id, '--data-dir', join(home, 'server')], { home });
    expect(revoked.code, revoked.stderr).toBe(0);

    const again = await runCli(['sessions', 'get', first.json().id, '--json'], { home });
    expect(again.code, again.stderr).toBe(0); // same account: the session is still visible
    const after = (
      await runCli(['server', 'keys', 'list', '--json', '--data-dir', join(home, 'server')], { home })
    ).json().data;
    expect(after).toHaveLength(2);
    expect(after.filter((k: { revoked_at: string | null }) => k.revoked_at === null)).toHaveLength(1);
    expect(new Set(after.map((k: { account_id: string }) => k.account_id)).size).toBe(1);
  });
});
