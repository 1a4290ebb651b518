// What a CLI command loads at start-up over HTTP from the ES modules in dist/ (without the command path's bundle,
// PAYORCH_CLI_BUNDLE=0; test/cli/bundle.test.ts checks the bundle's run): no TypeBox (~200 ES modules
// — the contract's schemas are the server's, and a constant the client needed once pulled them all in) and no
// module of the server. Node 20 compiles ES modules afresh on each run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { against, runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ memory: true });
});
afterAll(() => s?.close());

/** Every ES module a run loaded (Node's own debug lines for its ES module loader), relative to the checkout. */
const esModules = (stderr: string) => [
  ...new Set([...stderr.matchAll(/Storing (file:\/\/\S+\.m?js)/g)].map((m) => m[1])),
];

describe('CLI start-up over HTTP', { timeout: 60_000 }, () => {
  it('`sessions list --json` loads neither TypeBox nor the contract schemas nor the server', async () => {
    const r = await runCli(['sessions', 'list', '--json', ...against(s)], {
      env: { NODE_DEBUG: 'esm', PAYORCH_CLI_BUNDLE: '0' },
    });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const loaded = esModules(r.stderr);
    expect(loaded.some((m) => m.endsWith('/dist/lib/client/client.js'))).toBe(true); // the probe sees our modules
    expect(loaded.filter((m) => m.includes('@sinclair/typebox'))).toEqual([]);
    // Of the contract, only its modules of constants (limits.ts, which the error report names, and the time units it
    // is written in).
    expect(
      loaded.filter((m) =>
        /\/dist\/lib\/(server\/(?!lock\.js|seed\.js)|contract\/(?!prefix|keys|simulate|limits|time))/.test(m),
      ),
    ).toEqual([]);
  });
});
