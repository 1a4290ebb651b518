// A seeded server gives the same bytes on PostgreSQL as on SQLite (docs/api.md "Deterministic mode"): the scripted run
// of test/server/deterministic.test.ts — sessions, confirms, a decline, refunds, a subscription over a clock
// advance, webhooks — once on each engine, with the same seed and port, gives the same answers, event log and webhook
// bodies. So a suite's snapshots taken against one engine hold on the other.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startServer } from '../../dist/index.js';
import { postgresServer } from '../helpers/postgres.js';
import { tempDir } from '../helpers/tmp.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { expectSameBytes, scriptedRun } from '../server/scripted-run.js';

const pg = postgresServer();

describe.skipIf(pg.missing !== '')(`one seed, two engines${pg.missing ? ` (skipped: ${pg.missing})` : ''}`, () => {
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
  });
  afterAll(() => rx.close());

  it('the same answers, event log and webhook bodies on PostgreSQL as on SQLite', async () => {
    const sqlite = await scriptedRun(rx, 42, 0, (options) => startServer({ ...options, memory: true }));
    const database = await pg.database();
    // The same port: hosted-page links (in answers and webhook bodies) are made from the server's address.
    const postgres = await scriptedRun(rx, 42, sqlite.port, (options) =>
      startServer({ ...options, memory: undefined, database, dataDir: tempDir() }),
    );
    expectSameBytes(postgres, sqlite);
  }, 120_000);
});
