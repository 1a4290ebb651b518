// Events are kept 30 days on the account's clock: the scheduler deletes older ones (due work, in steps), and only
// the account whose clock moved loses its old events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { advance, newSession } from '../payments/util.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('event retention', () => {
  it('deletes events older than 30 days of the account’s clock, and only that account’s', async () => {
    const keyB = (await s.server.services.accounts.createAccountWithKey()).api_key;
    const old = await newSession(s);
    await s.request('POST', '/create-session', { key: keyB, body: { amount: 100, currency: 'usd' } });
    await advance(s, 29 * 86_400);
    const kept = await newSession(s);
    const ids = async (key?: string) =>
      (await s.request('GET', '/events?limit=100', key ? { key } : {})).body.data.map((e: any) => e.data.object.id);
    expect(await ids()).toEqual(expect.arrayContaining([old.id, kept.id]));
    await advance(s, 2 * 86_400); // the first event is now 31 days old, the second 2 days
    const after = await ids();
    expect(after).not.toContain(old.id);
    expect(after).toContain(kept.id);
    expect(await ids(keyB)).toHaveLength(1); // B's clock did not move
    const gone = await s.request('GET', '/events?type=payment_session.created&limit=100');
    expect(gone.body.total_count).toBe(1);
  });
});
