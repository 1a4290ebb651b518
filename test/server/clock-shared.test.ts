// An account's test clock is kept in memory by each server over a data directory (it is read on every request's
// path). Another connection that advances it on the same database — the CLI's embedded default on the same data
// directory here, another server process on a shared database in general — must be seen by the next request: the
// server reads the offsets again once the store says another connection has written (its change mark), and an
// advance it makes afterwards starts from there, never moving the clock back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbedded, type EmbeddedServer } from '../../dist/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { onSqlite } from '../helpers/engine.js';

const HOUR = 3600;

let s: TestServer;
let other: EmbeddedServer;

beforeAll(async () => {
  s = await startTestServer({ dueWorkIntervalMs: 0 });
  other = await openEmbedded(s.dataDir!);
});
afterAll(async () => {
  await other?.close();
  await s?.close();
});

/** The account's clock (unix seconds) as the running server answers. */
const serverClock = async (): Promise<number> => {
  const r = await s.request('GET', '/test-helpers/clock');
  expect(r.status).toBe(200);
  return r.body.now as number;
};

/** Advances the clock through the other connection (the embedded server, the same pipeline). */
const advanceElsewhere = async (seconds: number): Promise<number> => {
  const r = await other.app.inject({
    method: 'POST',
    url: '/functions/v1/test-helpers/advance-clock',
    headers: { authorization: `Bearer ${other.apiKey}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ seconds }),
  });
  expect(r.statusCode, r.body).toBe(200);
  return (JSON.parse(r.body) as { now: number }).now;
};

// The CLI's embedded default opens the data directory's SQLite file (test/postgres/multiprocess.test.ts: processes on one
// PostgreSQL database).
describe.runIf(onSqlite)('a clock advanced by another connection to the same database', () => {
  it('is seen by the next request, and an advance here starts from it', async () => {
    expect(other.apiKey).toBe(s.apiKey); // one account: the data directory's default
    const before = await serverClock();
    const there = await advanceElsewhere(30 * 24 * HOUR);
    expect(there).toBeGreaterThanOrEqual(before + 30 * 24 * HOUR);
    // The running server had the old offset in memory: it answers with the advanced clock now.
    expect(await serverClock()).toBeGreaterThanOrEqual(there);
    // Its own advance builds on the other's (not on its stale offset, which would move the clock back).
    const r = await s.request('POST', '/test-helpers/advance-clock', { body: { seconds: HOUR } });
    expect(r.status).toBe(200);
    expect(r.body.now).toBeGreaterThanOrEqual(there + HOUR);
    expect(r.body.now).toBeLessThan(there + 2 * HOUR);
    // And what the server wrote is what the other connection reads next.
    expect(await advanceElsewhere(0)).toBeGreaterThanOrEqual(there + HOUR);
  });
});
