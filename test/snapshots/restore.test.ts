// Snapshots of a running server (docs/api.md "Snapshots"): a restore is atomic under 20 clients reading and
// writing, keeps keys, clocks and deliveries consistent with the restored data, works for in-memory servers, and
// a snapshot that cannot be restored (corrupt, cut short, missing, another data directory's, a newer schema) is a
// clear error that leaves the data as it was.
import { readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';
import { newSession } from '../payments/util.js';
import { startReceiver, until } from '../webhooks/receiver.js';
import { onSqlite } from '../helpers/engine.js';

const open: TestServer[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});
async function server(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const s = await startTestServer({ dueWorkIntervalMs: 0, ...options });
  open.push(s);
  return s;
}

const restore = (s: TestServer, name: string) =>
  s.request('POST', `/test-helpers/snapshots/${name}/restore`, { body: {} });
const count = async (s: TestServer, key?: string) =>
  (await s.request('GET', '/sessions?limit=1', { key })).body.total_count as number;

describe('a restore under load', () => {
  it('every response of 20 clients reading and writing is of the state before the restore or after it, never a mix', async () => {
    const s = await server();
    // Writers use an account of their own (its key made before the snapshot, so it works after the restore too).
    const writerKey = (await s.server.services.accounts.createAccountWithKey()).api_key;
    for (let i = 0; i < 5; i++) await newSession(s);
    expect((await s.request('POST', '/test-helpers/snapshots', { body: { name: 'base' } })).status).toBe(201);
    const x = await newSession(s); // after the snapshot: the restore removes it
    // Before: 6 sessions of the default account, x among them; after: 5, no x.
    let stop = false;
    const violations: string[] = [];
    const readers = Array.from({ length: 10 }, async (_, c) => {
      let sawAfter = false;
      while (!stop) {
        const [n, got] = [await count(s), (await s.request('GET', `/sessions/${x.id}`)).status];
        const after = n === 5;
        if (n !== 5 && n !== 6) violations.push(`reader ${c}: count ${n}`);
        if (got !== 200 && got !== 404) violations.push(`reader ${c}: get ${got}`);
        // Once a client has seen the state after the restore, it never sees the state before it again.
        if (sawAfter && (n === 6 || got === 200))
          violations.push(`reader ${c}: the state before the restore after the state after it`);
        if (after !== (got === 404) && sawAfter) violations.push(`reader ${c}: count ${n} with get ${got}`);
        sawAfter ||= after || got === 404;
      }
      return sawAfter;
    });
    const writes: { id?: string; status: number; start: number; end: number }[] = [];
    const writers = Array.from({ length: 10 }, async () => {
      while (!stop) {
        const start = performance.now();
        const r = await s.request('POST', '/create-session', {
          body: { amount: 100, currency: 'usd' },
          key: writerKey,
        });
        writes.push({ id: r.body?.id, status: r.status, start, end: performance.now() });
      }
    });
    await until(async () => (writes.length >= 20 ? true : undefined), 'writes before the restore');
    const restoreStart = performance.now();
    const r = await restore(s, 'base');
    const restoreEnd = performance.now();
    expect(r.status, r.text).toBe(200);
    const writesAtRestore = writes.length;
    await until(async () => (writes.length >= writesAtRestore + 20 ? true : undefined), 'writes after the restore');
    stop = true;
    const sawAfter = await Promise.all(readers);
    await Promise.all(writers);

    expect(violations).toEqual([]);
    expect(sawAfter.every(Boolean)).toBe(true);
    expect(writes.every((w) => w.status === 201)).toBe(true); // nothing failed: held, then answered
    // A write answered before the restore began is gone; one sent after it ended is there.
    const exists = await Promise.all(
      writes.map(async (w) => (await s.request('GET', `/sessions/${w.id}`, { key: writerKey })).status === 200),
    );
    writes.forEach((w, i) => {
      if (w.end < restoreStart) expect(exists[i], 'a write from before the restore').toBe(false);
      if (w.start > restoreEnd) expect(exists[i], 'a write from after the restore').toBe(true);
    });
    // The writer account's list counts agree with its rows.
    expect(await count(s, writerKey)).toBe(exists.filter(Boolean).length);
  });
});

describe('what a restore puts back', () => {
  it('keys: those of the snapshot work, one made after it does not, the default key always does', async () => {
    const s = await server();
    const before = (await s.server.services.accounts.createAccountWithKey()).api_key;
    const snap = await s.server.snapshot();
    const after = (await s.server.services.accounts.createAccountWithKey()).api_key;
    expect((await s.request('GET', '/sessions', { key: after })).status).toBe(200); // cached as valid
    await s.server.restore(snap);
    expect((await s.request('GET', '/sessions', { key: before })).status).toBe(200);
    expect((await s.request('GET', '/sessions', { key: after })).body.error.code).toBe('invalid_api_key');
    expect((await s.request('GET', '/sessions')).status).toBe(200);
  });

  it('the default key keeps working even when it was revoked in the snapshot', async () => {
    const s = await server();
    await s.server.services.accounts.revoke(s.apiKey);
    const snap = await s.server.snapshot();
    await s.server.services.accounts.keepKey(s.server.accountId, s.apiKey);
    await s.server.restore(snap);
    expect((await s.request('GET', '/sessions')).status).toBe(200);
  });

  it("each account's test clock goes back to the snapshot's", async () => {
    const s = await server();
    const clock = async () => (await s.request('GET', '/test-helpers/clock')).body.now as number;
    await s.request('POST', '/test-helpers/advance-clock', { body: { seconds: 3600 } });
    const snap = await s.server.snapshot();
    const atSnapshot = await clock();
    await s.request('POST', '/test-helpers/advance-clock', { body: { seconds: 30 * 86400 } });
    expect((await clock()) - atSnapshot).toBeGreaterThanOrEqual(30 * 86400);
    await s.server.restore(snap);
    const now = await clock();
    expect(now - atSnapshot).toBeGreaterThanOrEqual(0);
    expect(now - atSnapshot).toBeLessThan(86400); // real time went on; the 30 days did not
  });

  it('deliveries: one pending at the snapshot is sent after the restore; an endpoint made after the snapshot gets nothing', async () => {
    const rx1 = await startReceiver('hang');
    const rx2 = await startReceiver(200);
    try {
      const s = await server({ dataDir: tempDir(), webhooks: { timeoutMs: 60_000 } });
      await s.request('POST', '/webhook-endpoints', {
        body: { url: rx1.url, enabled_events: ['payment_session.created'] },
      });
      const pending = await newSession(s);
      await rx1.waitFor(1); // its POST is open: the delivery is pending
      expect((await s.request('POST', '/test-helpers/snapshots', { body: { name: 'pending' } })).status).toBe(201);
      const e2 = await s.request('POST', '/webhook-endpoints', {
        body: { url: rx2.url, enabled_events: ['payment_session.created'] },
      });
      expect(e2.status).toBe(201);
      await newSession(s);
      await rx2.waitFor(1); // the endpoint made after the snapshot works before the restore
      rx1.answer = 200;
      expect((await restore(s, 'pending')).status).toBe(200);
      // The pending delivery is sent again (the POST that was open was aborted), and answered this time.
      await until(
        async () => (rx1.received.filter((r) => r.body.includes(pending.id)).length >= 2 ? true : undefined),
        'the pending delivery again',
      );
      const later = await newSession(s);
      await until(
        async () => (rx1.received.some((r) => r.body.includes(later.id)) ? true : undefined),
        'a delivery made after the restore',
      );
      expect(rx2.received).toHaveLength(1);
      expect((await s.request('GET', `/webhook-endpoints/${e2.body.id}`)).status).toBe(404);
      // The request log starts over with the restored data.
      const log = (await s.request('GET', '/request-log')).body.data as { path: string }[];
      expect(log.some((e) => e.path === '/webhook-endpoints')).toBe(false);
    } finally {
      await rx1.close();
      await rx2.close();
    }
  });
});

describe('in-memory servers', () => {
  it.runIf(onSqlite)(
    'snapshot() and restore() through the library; a named snapshot needs a data directory',
    async () => {
      const s = await server({ memory: true });
      const a = await newSession(s);
      const snap = await s.server.snapshot();
      const b = await newSession(s);
      await s.request('POST', '/test-helpers/advance-clock', { body: { seconds: 86400 } });
      const r = await s.server.restore(snap);
      expect(r.object).toBe('snapshot_restore');
      expect((await s.request('GET', `/sessions/${a.id}`)).status).toBe(200);
      expect((await s.request('GET', `/sessions/${b.id}`)).status).toBe(404);
      expect(await count(s)).toBe(1);
      // …and again: the snapshot is not used up.
      await newSession(s);
      await s.server.restore(snap);
      expect(await count(s)).toBe(1);
      const named = await s.request('POST', '/test-helpers/snapshots', { body: { name: 'x' } });
      expect(named.status).toBe(400);
      expect(named.body.error.code).toBe('snapshots_unavailable');
    },
  );

  it("another server's snapshot is refused (its secrets are sealed with another key), and nothing changes", async () => {
    const s1 = await server({ memory: true });
    const s2 = await server({ memory: true });
    const snap = await s1.server.snapshot();
    const mine = await newSession(s2);
    await expect(s2.server.restore(snap)).rejects.toThrow(/another data directory/);
    expect((await s2.request('GET', `/sessions/${mine.id}`)).status).toBe(200);
  });
});

describe('snapshots that cannot be restored', () => {
  it.runIf(onSqlite)(
    'corrupt, cut short, missing, of a newer schema: a clear error, and the data directory is untouched',
    async () => {
      const dataDir = tempDir();
      const s = await server({ dataDir });
      const kept = await newSession(s);
      expect((await s.request('POST', '/test-helpers/snapshots', { body: { name: 'good' } })).status).toBe(201);
      const file = (n: string) => join(dataDir, 'snapshots', `${n}.sqlite`);
      expect(statSync(file('good')).mode & 0o777).toBe(0o600);
      expect(statSync(join(dataDir, 'snapshots')).mode & 0o777).toBe(0o700);
      const after = await newSession(s);

      writeFileSync(file('garbage'), 'this is not a database, just some bytes'.repeat(100));
      writeFileSync(file('short'), readFileSync(file('good')));
      truncateSync(file('short'), statSync(file('good')).size - 4096);
      writeFileSync(file('newer'), readFileSync(file('good')));
      const db = new Database(file('newer'));
      db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999999, 'future', '')").run();
      db.close();

      const cases: [string, number, RegExp][] = [
        ['garbage', 400, /not a SQLite database/],
        ['short', 400, /cut short/],
        ['newer', 400, /newer payorch/],
        ['nope', 404, /No snapshot named "nope"/],
      ];
      for (const [name, status, message] of cases) {
        const r = await restore(s, name);
        expect(r.status, name).toBe(status);
        expect(r.body.error.message, name).toMatch(message);
        expect((await s.request('GET', `/sessions/${after.id}`)).status, name).toBe(200);
        expect((await s.request('GET', `/sessions/${kept.id}`)).status, name).toBe(200);
      }
      expect((await restore(s, '.good.spare')).body.error.code).toBe('invalid_snapshot_name'); // not a hidden file of the directory
      expect(
        (await s.request('POST', '/test-helpers/snapshots', { body: { name: '../../etc/x' } })).body.error.code,
      ).toBe('invalid_snapshot_name');
      expect((await s.request('POST', '/test-helpers/snapshots', { body: { name: ' ' } })).body.error.code).toBe(
        'invalid_snapshot_name',
      );
      expect((await s.request('POST', '/test-helpers/snapshots', { body: {} })).body.error.code).toBe(
        'parameter_missing',
      );
      // …and the good one still restores.
      expect((await restore(s, 'good')).status).toBe(200);
      expect((await s.request('GET', `/sessions/${after.id}`)).status).toBe(404);
    },
  );

  it("only a key of the data directory's default account may use the snapshot routes", async () => {
    const s = await server();
    const other = (await s.server.services.accounts.createAccountWithKey()).api_key;
    const r = await s.request('GET', '/test-helpers/snapshots', { key: other });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('default_account_only');
    expect((await s.request('GET', '/test-helpers/snapshots', { key: null })).status).toBe(401);
  });
});
