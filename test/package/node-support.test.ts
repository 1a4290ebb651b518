// The oldest Node the package supports (engines: >= 20.18) cannot require() an ES module: that came unflagged in
// 20.19. A dependency that does (light-my-request 6.8 requires cookie 2, which is ES-module only) breaks the
// embedded default there while every test on a newer Node passes. This runs the real binary with require() of ES
// modules turned off, as 20.18 has it, on the path that loads the most: the in-process server.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const FLAG = '--no-experimental-require-module';
const hasFlag = process.allowedNodeEnvironmentFlags.has(FLAG);

describe.skipIf(!hasFlag)(`without require() of ES modules (Node 20.18; ${FLAG})`, () => {
  it('the embedded default creates a session (fastify, its inject(), SQLite, the client)', async () => {
    const env = { NODE_OPTIONS: FLAG, PAYORCH_DAEMON: '0' };
    const created = await runCli(['sessions', 'create', '--amount', '1999', '--currency', 'usd', '--json'], {
      env,
      timeoutMs: 60_000,
    });
    expect(created.stderr).not.toMatch(/ERR_REQUIRE_ESM|require\(\) of ES Module/);
    expect(created.code).toBe(0);
    const session = created.json<{ id: string; object: string; amount: number }>();
    expect(session).toMatchObject({ object: 'payment_session', amount: 1999 });
  });
});
