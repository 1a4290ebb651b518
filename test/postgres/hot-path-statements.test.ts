// How many statements a request on the hot path sends to PostgreSQL (issue 44): a count, not a time, so the same on
// any machine. The server (in this process) is given the URL of a proxy in front of the file's PostgreSQL, which
// counts the statements on the wire (bench/pg-wire.js): each BEGIN, LOCK, SAVEPOINT and COMMIT is one, as are the
// change mark's look (once per event-loop turn: here, once per request) and a confirm's client-secret authentication.
// The request log's write is not the request's: it goes out every 200 ms per process, one statement per account,
// whatever the rate (adapters/postgres/requestlog.ts). The requests are those SQLite's count is of
// (test/helpers/hot-path.ts), one after another; `node bench/statements.js create|journal|confirm --postgres` lists
// the statements behind each count.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementProxy, type StatementProxy } from '../../bench/pg-wire.js';
import { postgresServer } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { HOT_PATHS, hotPathWorkloads, MEASURED, WARM_UP, type HotPath, type Workload } from '../helpers/hot-path.js';

/**
 * The most statements one request may send: today's counts (17b531b: 8 / 15 / 21; a request now runs in a savepoint of
 * a shared transaction, +1, and a journal entry reads its accounts in one statement, -1). Most of them are not waited
 * for (adapters/postgres/db.ts `send`): a create-session is 3 round trips. Lower one when a change saves a statement.
 */
const STATEMENT_LIMITS: Record<HotPath, number> = {
  'create-session': 9,
  'journal entry (two lines)': 15,
  'confirm-payment (tok_visa)': 22,
};

/** The request log's write, off the request path (see the top). */
const REQUEST_LOG_WRITE = /^WITH s AS \(\s*INSERT INTO request_log_seqs\b/;

const pg = postgresServer();

describe.skipIf(pg.missing !== '')(
  `statements per request on the hot path, on PostgreSQL${pg.missing ? ` (skipped: ${pg.missing})` : ''}`,
  () => {
    let proxy: StatementProxy;
    let s: TestServer;
    let workloads: Record<HotPath, Workload>;
    beforeAll(async () => {
      const url = new URL(await pg.migrated());
      proxy = await statementProxy(Number(url.port));
      s = await startTestServer({
        database: proxy.url(url.pathname.slice(1)),
        sealingKey: randomBytes(32).toString('hex'),
        // No timers of the server's own (due work, the webhook dispatcher's poll) send statements between requests.
        dueWorkIntervalMs: 0,
        webhooks: { pollIntervalMs: 3_600_000 },
      });
      workloads = await hotPathWorkloads(s);
    });
    afterAll(async () => {
      await s?.close();
      await proxy?.close();
    });

    it.each(HOT_PATHS)('%s sends no more than its limit', async (name) => {
      const { prepare, request } = workloads[name];
      for (let i = 0; i < WARM_UP; i++) expect((await request(await prepare())).status).toBeLessThan(300);
      for (let i = 0; i < MEASURED; i++) {
        const prepared = await prepare();
        proxy.take();
        proxy.counting(true);
        const result = await request(prepared);
        proxy.counting(false);
        expect(result.status).toBeLessThan(300);
        const sent = proxy
          .take()
          .map((x) => x.text.replace(/\s+/g, ' '))
          .filter((text) => !REQUEST_LOG_WRITE.test(text));
        expect(
          sent.length,
          `${name} sent ${sent.length} statements (limit ${STATEMENT_LIMITS[name]}):\n${sent.join('\n')}`,
        ).toBeLessThanOrEqual(STATEMENT_LIMITS[name]);
      }
    });
  },
);
