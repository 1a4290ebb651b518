// How many SQLite statements a request on the hot path runs (issue 27): a count, not a time, so the same on any
// machine, and a regression in the hot path fails here for a reason that does not depend on the machine. Each
// request goes through the real server over HTTP, sequential (one BEGIN … COMMIT each), with an Idempotency-Key
// as the bench's load sends, after warm-up requests (test/helpers/hot-path.ts). `node bench/statements.js
// create|journal|confirm` lists the statements behind each count; PostgreSQL's: test/postgres/hot-path-statements.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { statementsRun } from '../helpers/statements.js';
import { onSqlite } from '../helpers/engine.js';
import { HOT_PATHS, hotPathWorkloads, MEASURED, WARM_UP, type HotPath, type Workload } from '../helpers/hot-path.js';

/** The most statements one request may run: today's counts. Lower one when a change saves a statement. */
const STATEMENT_LIMITS: Record<HotPath, number> = {
  'create-session': 11,
  'journal entry (two lines)': 19,
  'confirm-payment (tok_visa)': 30,
};

let s: TestServer;
let workloads: Record<HotPath, Workload>;

// SQLite's statements: on PostgreSQL (PAYORCH_TEST_ENGINE=postgres) the server runs none, and its own count is
// test/postgres/hot-path-statements.test.ts's.
describe.runIf(onSqlite)('statements per request on the hot path', () => {
  beforeAll(async () => {
    // No timers of the server's own (due work, the webhook dispatcher's poll) run statements between requests.
    s = await startTestServer({ dueWorkIntervalMs: 0, webhooks: { pollIntervalMs: 3_600_000 } });
    workloads = await hotPathWorkloads(s);
  });
  afterAll(() => s?.close());

  it.each(HOT_PATHS)('%s runs no more than its limit', async (name) => {
    const { prepare, request } = workloads[name];
    for (let i = 0; i < WARM_UP; i++) expect((await request(await prepare())).status).toBeLessThan(300);
    for (let i = 0; i < MEASURED; i++) {
      const prepared = await prepare();
      const { result, ran } = await statementsRun(() => request(prepared));
      expect(result.status).toBeLessThan(300);
      expect(
        ran.length,
        `${name} ran ${ran.length} statements (limit ${STATEMENT_LIMITS[name]}):\n${ran.join('\n')}`,
      ).toBeLessThanOrEqual(STATEMENT_LIMITS[name]);
    }
  });
});
