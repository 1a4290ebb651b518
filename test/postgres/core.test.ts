// The core's ports on PostgreSQL answer as SQLite's: accounts and keys, clocks, payment sessions, the trigger's event
// reads, idempotency records and the server's own records (cells included, through commits and rollbacks), run in
// the same sequence on both engines. And what SQLite's one writer gave for free holds across processes (two pools on
// one database): an Idempotency-Key sent to two at once has one effect, two opening one fresh database at once agree
// on one default account, a key revoked by one is refused by the other, and two never expire the same session.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteDatabase, type SqliteDatabase } from '../../dist/lib/server/adapters/sqlite/db.js';
import {
  sqliteAccountsStore,
  sqliteClockStore,
  sqliteSessionsStore,
  sqliteTriggerStore,
} from '../../dist/lib/server/adapters/sqlite/core.js';
import { sqliteEngine } from '../../dist/lib/server/adapters/sqlite/engine.js';
import { openPostgresDatabase, type PostgresDatabase } from '../../dist/lib/server/adapters/postgres/db.js';
import {
  moveChangeMark,
  pgAccountsStore,
  pgClockStore,
  pgSessionsStore,
  pgTriggerStore,
} from '../../dist/lib/server/adapters/postgres/core.js';
import { pgIdempotencyRecords } from '../../dist/lib/server/adapters/postgres/idempotency.js';
import { pgServerRecords } from '../../dist/lib/server/adapters/postgres/records.js';
import { Accounts } from '../../dist/lib/server/domain/accounts.js';
import { IdempotencyKeys } from '../../dist/lib/server/http/idempotency.js';
import { Seed } from '../../dist/lib/server/seed.js';
import { ScopedStore } from '../../dist/lib/server/store/scoped.js';
import type { Store } from '../../dist/lib/server/store/seam.js';
import type { StoredSession } from '../../dist/lib/server/domain/sessions.js';
import type { SessionStatus } from '../../dist/lib/contract/sessions.js';
import { postgresServer } from '../helpers/postgres.js';

const pg = postgresServer();

/** A promise and the function that resolves it: a signal one part of a test gives another. */
function signal<T = void>(): { promise: Promise<T>; give: (v: T) => void } {
  let give!: (v: T) => void;
  const promise = new Promise<T>((resolve) => (give = resolve));
  return { promise, give };
}

/** What a call answered, or the error it threw (its class and whether it threw at all). */
async function outcome<T>(fn: () => Promise<T>): Promise<{ ok: T } | { threw: true }> {
  try {
    return { ok: await fn() };
  } catch {
    return { threw: true };
  }
}

/** A fresh migrated database's URL. */
const database = (): Promise<string> => pg.migrated();

/** One engine's ports under test, and a way to write an event row (the events' own port is another area's). */
interface Engine {
  store: Store;
  accounts: ReturnType<typeof pgAccountsStore>;
  clock: ReturnType<typeof pgClockStore>;
  sessions: ReturnType<typeof pgSessionsStore>;
  triggers: ReturnType<typeof pgTriggerStore>;
  idem: ReturnType<typeof pgIdempotencyRecords>;
  records: ReturnType<typeof pgServerRecords>;
  addEvent(accountId: string, id: string, type: string): Promise<void>;
}

const sqliteSide = (lite: SqliteDatabase): Engine => ({
  store: lite,
  accounts: sqliteAccountsStore(lite),
  clock: sqliteClockStore(lite),
  sessions: sqliteSessionsStore(lite),
  triggers: sqliteTriggerStore(lite),
  idem: sqliteEngine.idempotency(lite),
  records: sqliteEngine.records(lite),
  async addEvent(accountId, id, type) {
    lite.db
      .prepare('INSERT INTO events (id, account_id, type, object_id, created_ms, body) VALUES (?, ?, ?, ?, ?, ?)')
      .run(id, accountId, type, 'obj', 1, JSON.stringify({ id, type }));
  },
});

const pgSide = (store: PostgresDatabase): Engine => ({
  store,
  accounts: pgAccountsStore(store),
  clock: pgClockStore(store),
  sessions: pgSessionsStore(store),
  triggers: pgTriggerStore(store),
  idem: pgIdempotencyRecords(store),
  records: pgServerRecords(store),
  async addEvent(accountId, id, type) {
    await store.current()`INSERT INTO events (id, account_id, type, object_id, created_ms, body)
      VALUES (${id}, ${accountId}, ${type}, 'obj', 1, ${JSON.stringify({ id, type })})`;
  },
});

/** A session document with the fields the port's columns and queries read: it stores and answers what it is given. */
const session = (id: string, status: SessionStatus, expires: number, form?: 'named'): StoredSession => {
  const doc: Partial<StoredSession> = {
    id,
    object: 'payment_session',
    status,
    external_id: null,
    expires_ms: expires,
    client_secret_hash: form ? `hash_${id}` : undefined,
    ...(form ? { secret_form: form } : {}),
  };
  return doc as StoredSession;
};

/** The same sequence of port calls on one engine; every answer, in order. */
async function play(e: Engine): Promise<unknown[]> {
  const out: unknown[] = [];
  const note = async (fn: () => Promise<unknown>) => out.push(await outcome(fn));
  const { accounts: a, clock, sessions: s, triggers: t, idem, records: r } = e;
  const tx = <T>(fn: () => Promise<T>) => e.store.grouped(fn);

  // ---- accounts and keys
  await tx(async () => {
    await a.addAccount('acct_b', 10);
    await a.addAccount('acct_a', 20);
    await a.keepAccount('acct_a', 99); // kept as it is
    await a.keepAccount('acct_c', 30);
    await a.addKey({ id: 'key_2', account_id: 'acct_a', last4: 'bbbb', created_ms: 5 }, 'hash2');
    await a.addKey({ id: 'key_1', account_id: 'acct_a', last4: 'aaaa', created_ms: 5 }, 'hash1');
    await a.addKey({ id: 'key_0', account_id: 'acct_b', last4: 'cccc', created_ms: 1 }, 'hash0');
  });
  await note(() => tx(() => a.addAccount('acct_a', 1))); // a duplicate: refused
  await note(() => tx(() => a.addKey({ id: 'key_9', account_id: 'acct_b', last4: 'x', created_ms: 1 }, 'hash0')));
  await tx(async () => {
    await note(() => a.keyFacts('hash1'));
    await note(() => a.keyFacts('nope'));
    await note(() => a.keyAccount('hash0'));
    await note(() => a.keyAccount('nope'));
    await note(() => a.keys());
    await a.revokeKey('key_1', 77);
    await a.revokeKey('key_nope', 78);
    await note(() => a.keyByHash('hash1'));
    await note(() => a.keyById('key_1'));
    await note(() => a.keyById('nope'));
    await note(() => a.keyByHash('nope'));
    await a.unrevokeKey('hash1');
    await a.unrevokeKey('hash2'); // not revoked: stays so
    await note(() => a.keys());
  });

  // ---- clocks
  await tx(async () => {
    await note(() => clock.offset('acct_a'));
    await note(() => clock.offset('acct_nope'));
    await note(() => clock.offsets());
    await clock.setOffset('acct_c', 5000);
    await clock.setOffset('acct_a', 7);
    await clock.setOffset('acct_nope', 1);
    await note(() => clock.offset('acct_c'));
    await note(async () => (await clock.offsets()).sort());
    await note(() => clock.accounts());
  });

  // ---- sessions
  await tx(async () => {
    await note(() => s.nextExpiry('acct_a', ['requires_payment_method', 'processing']));
    await note(() => s.expiring(['requires_payment_method'], 1000, undefined, -1));
    await s.sessions.insert('acct_a', session('ps_3', 'requires_payment_method', 300, 'named'));
    await s.sessions.insert('acct_b', session('ps_1', 'requires_payment_method', 100));
    await s.sessions.insert('acct_a', session('ps_2', 'processing', 200));
    await s.sessions.insert('acct_a', session('ps_4', 'succeeded', 50));
    await s.sessions.insert('acct_a', session('ps_0', 'requires_payment_method', 900));
  });
  await tx(async () => {
    await note(() => s.secretFacts('ps_3'));
    await note(() => s.secretFacts('ps_1'));
    await note(() => s.secretFacts('nope'));
    await note(() => s.find('ps_2'));
    await note(() => s.find('nope'));
    await note(() => s.nextExpiry('acct_a', ['requires_payment_method', 'processing']));
    await note(() => s.nextExpiry('acct_a', ['requires_payment_method']));
    await note(() => s.nextExpiry('acct_a', ['canceled']));
    await note(() => s.expiring(['requires_payment_method', 'processing'], 300, undefined, -1));
    await note(() => s.expiring(['requires_payment_method', 'processing'], 300, undefined, 2));
    await note(() => s.expiring(['requires_payment_method', 'processing'], 1000, 'acct_a', -1));
    await note(() => s.expiring(['requires_payment_method'], 1000, 'acct_a', 0));
    await note(() => s.expiring(['succeeded'], 10, undefined, -1));
    await note(() =>
      s.sessions.list('acct_a', '/v1/payment_sessions', { where: { status: 'requires_payment_method' } }),
    );
  });

  // ---- sessions expiring in sets: in order of expiry time, then of creation (made out of that order); written whole
  await tx(async () => {
    const at = [500, 300, 500, 100, 300, 500, 700, 500];
    for (const [i, ms] of at.entries()) {
      const doc = session(
        `ps_c${i}`,
        i === 5 ? 'requires_action' : i === 6 ? 'succeeded' : 'requires_payment_method',
        ms,
      );
      if (i === 2) doc.external_id = 'order-2';
      await s.sessions.insert('acct_c', doc);
    }
    await s.sessions.insert('acct_d', session('ps_d0', 'requires_payment_method', 100));
  });
  const statuses = ['requires_payment_method', 'requires_action'] as const;
  await tx(async () => {
    await note(() => s.expiringInOrder('acct_c', statuses, 1000, 100));
    await note(() => s.expiringInOrder('acct_c', statuses, 500, 3));
    await note(() => s.expiringInOrder('acct_c', statuses, 500, 4));
    await note(() => s.expiringInOrder('acct_c', statuses, 299, 10));
    await note(() => s.expiringInOrder('acct_c', ['requires_action'], 1000, 10));
    await note(() => s.expiringInOrder('acct_c', statuses, 1000, 0));
    await note(() => s.expiringInOrder('acct_c', [], 1000, 10));
    await note(() => s.expiringInOrder('acct_none', statuses, 1000, 10));
  });
  await tx(async () => {
    const due = await s.expiringInOrder('acct_c', statuses, 500, 4);
    for (const [i, doc] of due.entries()) {
      doc.status = 'canceled';
      doc.external_id = i === 0 ? 'renamed' : null;
      doc.expires_ms += 1;
    }
    await note(() => s.updateAll('acct_c', due));
    await note(() => s.updateAll('acct_c', []));
  });
  await tx(async () => {
    await note(() => s.expiringInOrder('acct_c', statuses, 1000, 100));
    await note(() => s.sessions.list('acct_c', '/v1/payment_sessions', { where: { status: 'canceled' } }));
    await note(() => s.sessions.list('acct_c', '/v1/payment_sessions', { where: { external_id: 'renamed' } }));
    await note(() => s.sessions.total('acct_c', { status: 'requires_payment_method' }));
  });
  // A session of another account is none of the account's: the write throws and writes nothing.
  await tx(async () => {
    const other = await s.sessions.require('acct_d', 'ps_d0', 'payment_session');
    await note(() => s.updateAll('acct_c', [{ ...other, status: 'canceled' }]));
  });
  await tx(async () => {
    await note(() => s.sessions.get('acct_d', 'ps_d0'));
  });

  // ---- the trigger's reads of the event log
  await tx(async () => {
    await note(() => t.lastEvent());
    await e.addEvent('acct_a', 'evt_1', 'x.one');
    await e.addEvent('acct_b', 'evt_2', 'x.two');
  });
  await tx(async () => {
    const mark = await t.lastEvent();
    await e.addEvent('acct_a', 'evt_3', 'x.three');
    await e.addEvent('acct_b', 'evt_4', 'x.four');
    await e.addEvent('acct_a', 'evt_5', 'x.five');
    await note(() => t.eventsAfter('acct_a', mark));
    await note(() => t.eventsAfter('acct_b', mark));
    await note(() => t.eventsAfter('acct_a', 0));
    await note(() => t.eventsAfter('acct_c', 0));
  });

  // ---- idempotency records
  const rec = (state: 'in_progress' | 'done', body: Buffer | string | null, created: number, owner = 'o1') => ({
    fingerprint: `fp_${created}`,
    state,
    owner,
    status: state === 'done' ? 200 : null,
    body,
    created_ms: created,
  });
  const order = async () => (await idem.oldest(100)).map((x) => x.created_ms);
  await tx(async () => {
    await note(() => idem.find('acct_a', 'k1'));
    await note(() => idem.oldest(10));
    await idem.save('acct_a', 'k1', rec('in_progress', null, 1));
    await idem.save('acct_a', 'k2', rec('done', '{"a":1}', 2));
    await idem.save('acct_b', 'k1', rec('done', Buffer.from([0, 1, 2, 255, 0x62]), 3));
    await note(() => idem.find('acct_a', 'k1'));
    await note(() => idem.find('acct_b', 'k1'));
    await note(order);
  });
  await tx(async () => {
    // Replaced in place: it keeps its place (the oldest).
    await idem.save('acct_a', 'k1', rec('done', Buffer.from('sealed'), 4, 'o2'));
    await note(() => idem.find('acct_a', 'k1'));
    await note(() => idem.find('acct_a', 'k2'));
    await note(order);
    await idem.forget('acct_a', 'k2');
    await idem.forget('acct_a', 'nope');
    await idem.save('acct_a', 'k2', rec('done', 'v1.a.b.c', 5));
    await note(order);
    await note(async () => (await idem.oldest(1)).map((x) => x.created_ms));
  });
  await tx(async () => {
    const [, second] = await idem.oldest(2);
    await note(() => idem.forgetUpTo(second!.seq));
    await note(order);
    await note(() => idem.forgetUpTo(0));
    await note(() => idem.find('acct_a', 'k1'));
  });

  // ---- the server's own records
  await tx(async () => {
    await note(() => r.get('default_account'));
    await note(() => r.has('default_account'));
    await r.put('default_account', 'acct_a');
    await r.put('default_account', 'acct_b');
    await r.add('default_account', 'acct_c');
    await r.add('seed', 'f00d');
    await r.change('seed', 'beef');
    await r.change('nope', 'x');
    await note(() => r.get('default_account'));
    await note(() => r.get('seed'));
    await note(() => r.has('nope'));
    await note(() => r.get('nope'));
    await note(() => r.hasAccounts());
  });
  await note(() => r.exclusive(async () => (await r.put('stream', '0:0'), r.get('default_account'))));
  const cell = r.cell('stream');
  const none = r.cell('no_such');
  out.push(cell.get(), none.get());
  await tx(async () => {
    cell.change('1:0');
    none.change('1:1'); // nothing to change
    out.push(cell.get(), none.get());
  });
  out.push(cell.get(), none.get());
  // A rollback: back to what was committed.
  await note(() =>
    tx(async () => {
      cell.change('2:0');
      cell.change('3:0');
      throw new Error('undone');
    }),
  );
  out.push(cell.get());
  // A savepoint's rollback: back to what the transaction held before it.
  await tx(async () => {
    cell.change('4:0');
    await note(() =>
      e.store.tx(async () => {
        cell.change('5:0');
        await Promise.resolve();
        throw new Error('only the savepoint');
      }),
    );
    out.push(cell.get());
    await e.store.tx(async () => {
      cell.change('6:0');
      await Promise.resolve();
    });
    out.push(cell.get());
  });
  out.push(cell.get(), await r.get('stream'));
  // What a fresh process reads: the committed value.
  await note(() => r.get('stream'));
  await note(() => r.hasAccounts());
  return out;
}

describe.skipIf(pg.missing !== '')(
  `the core's ports on PostgreSQL${pg.missing ? ` (skipped: ${pg.missing})` : ''}`,
  () => {
    const stores: PostgresDatabase[] = [];
    const open = (url: string) => {
      const s = openPostgresDatabase(url, { max: 3 });
      stores.push(s);
      return s;
    };
    afterAll(async () => {
      await Promise.all(stores.map((s) => s.end()));
    });
    let url: string;
    beforeAll(async () => {
      url = await database();
    }, 60_000);

    it('answer every call as SQLite does, in the same order, errors included', async () => {
      const lite = openSqliteDatabase(':memory:');
      try {
        const expected = await play(sqliteSide(lite));
        const got = await play(pgSide(open(url)));
        expect(got).toEqual(expected);
        // The sequence reached what it was written to reach.
        expect(expected).toContainEqual({
          ok: [
            ['acct_a', 7],
            ['acct_c', 5000],
          ],
        });
        expect(expected.filter((x) => JSON.stringify(x) === '{"threw":true}').length).toBeGreaterThanOrEqual(4);
      } finally {
        lite.close();
      }
    }, 60_000);

    it("a seeded id stream draws SQLite's values through commits, rollbacks, savepoints, reads and a restart", async () => {
      /** Draws on one engine: `open` gives a fresh store over the same database each time (a restart). */
      const draws = async (
        open: () => { store: Store; records: ReturnType<typeof pgServerRecords>; end?: () => Promise<void> },
      ) => {
        const out: string[] = [];
        const hex = (ids: { bytes(n: number): Uint8Array }) => Buffer.from(ids.bytes(6)).toString('hex');
        for (let start = 0; start < 2; start++) {
          const { store, records, end } = open();
          const { ids } = await new Seed(7).open(store, records);
          await store.grouped(async () => void out.push(hex(ids), hex(ids)));
          await outcome(() =>
            store.grouped(async () => {
              out.push(hex(ids));
              throw new Error('rolled back: its draw is given back');
            }),
          );
          await store.grouped(async () => {
            out.push(hex(ids));
            await outcome(() =>
              store.tx(async () => {
                out.push(hex(ids));
                await Promise.resolve();
                throw new Error('the savepoint only');
              }),
            );
            out.push(hex(ids));
          });
          await store.read(async () => void out.push(hex(ids)));
          await store.grouped(async () => void out.push(hex(ids)));
          out.push(`stored ${await store.read(() => records.get('seed_stream'))}`);
          if (end) await end();
          else store.close();
        }
        return out;
      };
      const dir = mkdtempSync(join(tmpdir(), 'payorch-core-'));
      try {
        const expected = await draws(() => {
          const store = openSqliteDatabase(join(dir, 'seeded.db'));
          return { store, records: sqliteEngine.records(store) };
        });
        const db = await database();
        const got = await draws(() => {
          // A seeded server's store runs one transaction at a time (seed.ts): the composition root's wrapping.
          const raw = openPostgresDatabase(db, { max: 2 });
          return { store: new ScopedStore(raw, { inTurn: true }), records: pgServerRecords(raw), end: () => raw.end() };
        });
        expect(got).toEqual(expected);
        // Given back: the rolled-back draw and the savepoint's are drawn again next.
        expect(expected[3]).toBe(expected[2]);
        expect(expected[5]).toBe(expected[4]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('a cell in a read-only transaction keeps its draws in memory and writes nothing; the next write stores them', async () => {
      const store = open(await database());
      const r = pgServerRecords(store);
      expect(() => r.cell('stream')).toThrow(/exclusive/);
      await r.exclusive(() => r.put('stream', '0:0'));
      const cell = r.cell('stream');
      await store.read(async () => {
        cell.change('1:0');
        expect(await store.current()`SELECT 1 AS one`).toEqual([{ one: 1 }]); // the transaction goes on
      });
      expect(await r.get('stream')).toBe('0:0');
      await store.grouped(async () => cell.change('2:0'));
      expect(await r.get('stream')).toBe('2:0');
      expect(cell.get()).toBe('2:0');
    });

    it('an Idempotency-Key sent to two processes at once has one effect: the other replays it', async () => {
      const db = await database();
      const racers = [open(db), open(db)];
      for (const s of racers) await s.grouped(() => s.current()`CREATE TABLE IF NOT EXISTS effects (n bigint)`);
      const bothLooked = signal();
      let looked = 0;
      const request = async (store: PostgresDatabase, i: number) => {
        const idem = new IdempotencyKeys(store, pgIdempotencyRecords(store), `owner${i}`, () => 1_000);
        let attempts = 0;
        const answer = await store.grouped(async () => {
          attempts++;
          const hit = await idem.lookup('acct_a', 'key_same', 'fp');
          if (hit) return `replayed ${hit.body}`;
          // Both looked and found nothing before either writes: the race at its worst.
          if (attempts === 1 && ++looked === 2) bothLooked.give();
          if (attempts === 1) await bothLooked.promise;
          await store.current()`INSERT INTO effects (n) VALUES (${i})`;
          await idem.save('acct_a', 'key_same', 'fp', 200, `{"by":${i}}`, false);
          return 'ran';
        });
        return { answer, attempts };
      };
      const results = await Promise.all([request(racers[0]!, 0), request(racers[1]!, 1)]);
      const effects = await racers[0]!.read(() => racers[0]!.current()<{ n: number }[]>`SELECT n FROM effects`);
      expect(effects).toHaveLength(1);
      const winner = effects[0]!.n;
      expect(results[winner]!.answer).toBe('ran');
      expect(results[1 - winner]!.answer).toBe(`replayed {"by":${winner}}`);
      expect(results[1 - winner]!.attempts).toBeGreaterThan(1); // aborted once, then saw the first one's record
    });

    it('a key claimed by two processes at once: the second gets the conflict, never its own claim', async () => {
      const db = await database();
      const racers = [open(db), open(db)];
      const bothLooked = signal();
      let looked = 0;
      const claim = async (store: PostgresDatabase, i: number) => {
        const idem = new IdempotencyKeys(store, pgIdempotencyRecords(store), `owner${i}`, () => 1_000);
        let attempts = 0;
        return outcome(() =>
          store.grouped(async () => {
            attempts++;
            await idem.lookup('acct_a', 'key_claimed', 'fp');
            if (attempts === 1 && ++looked === 2) bothLooked.give();
            if (attempts === 1) await bothLooked.promise;
            await idem.claim('acct_a', 'key_claimed', 'fp');
            return i;
          }),
        );
      };
      const results = await Promise.all([claim(racers[0]!, 0), claim(racers[1]!, 1)]);
      expect(results.filter((x) => 'ok' in x)).toHaveLength(1);
      const rows = await racers[0]!.read(
        () => racers[0]!.current()<{ owner: string }[]>`SELECT owner FROM idempotency_keys`,
      );
      expect(rows).toEqual([{ owner: `owner${(results.find((x) => 'ok' in x) as { ok: number }).ok}` }]);
    });

    it('two processes opening one fresh database run exclusive() one after the other and agree on one account', async () => {
      const db = await database();
      const [s1, s2] = [open(db), open(db)];
      const init = (store: PostgresDatabase, inside?: () => Promise<void>) => {
        const r = pgServerRecords(store);
        const a = new Accounts(store, pgAccountsStore(store));
        return r.exclusive(async () => {
          const known = await r.get('default_account');
          if (known) return known;
          await inside?.();
          const { account_id } = await a.createAccountWithKey();
          await r.put('default_account', account_id);
          return account_id;
        });
      };
      // The first is inside its exclusive() when the second asks for its own: the second waits on the lock.
      const inFirst = signal();
      const release = signal();
      const first = init(s1, async () => {
        inFirst.give();
        await release.promise;
      });
      await inFirst.promise;
      const second = init(s2);
      const watcher = open(db);
      while (
        (
          await watcher.read(
            () => watcher.current()`SELECT 1 FROM pg_locks WHERE NOT granted AND locktype = 'relation'`,
          )
        ).length === 0
      )
        await new Promise((resolve) => setImmediate(resolve));
      release.give();
      const [a, b] = await Promise.all([first, second]);
      expect(b).toBe(a);
      const n = await watcher.read(() => watcher.current()<{ n: number }[]>`SELECT COUNT(*) AS n FROM accounts`);
      expect(n).toEqual([{ n: 1 }]);
    });

    it('a key revoked by one process is refused by another that had it cached; adding keys does not move the mark', async () => {
      const db = await database();
      const [s1, s2] = [open(db), open(db)];
      const a1 = new Accounts(s1, pgAccountsStore(s1));
      const a2 = new Accounts(s2, pgAccountsStore(s2));
      const marks = pgAccountsStore(s2);
      const { api_key } = await a1.createAccountWithKey();
      // One event-loop turn per check of the mark (Accounts looks once per turn).
      const turn = () => new Promise((resolve) => setImmediate(resolve));
      expect(await a2.authenticate(api_key)).toMatchObject({ keyId: expect.any(String) });
      const before = await marks.changeMark();
      await a1.createAccountWithKey();
      expect(await marks.changeMark()).toBe(before);
      await turn();
      await a1.revoke(api_key);
      const revoked = await marks.changeMark();
      expect(revoked).not.toBe(before);
      await turn();
      await expect(a2.authenticate(api_key)).rejects.toMatchObject({ code: 'api_key_revoked' });
      // Un-revoked (a restart's keepKey): active again everywhere.
      await a1.keepKey((await a1.listKeys())[0]!.account_id, api_key);
      expect(await marks.changeMark()).not.toBe(revoked);
      await turn();
      expect(await a2.authenticate(api_key)).toMatchObject({ keyId: expect.any(String) });
      // The keys replaced (a snapshot restored): the mark moves with them.
      const now = await marks.changeMark();
      await s1.grouped(async () => {
        await s1.current()`DELETE FROM api_keys`;
        await moveChangeMark(s1);
      });
      expect(await marks.changeMark()).not.toBe(now);
      await turn();
      await expect(a2.authenticate(api_key)).rejects.toMatchObject({ code: 'invalid_api_key' });
    });

    it('two processes expiring sessions at once never take the same one', async () => {
      const db = await database();
      const [s1, s2] = [open(db), open(db)];
      const p1 = pgSessionsStore(s1);
      const p2 = pgSessionsStore(s2);
      await s1.grouped(async () => {
        for (let i = 0; i < 10; i++)
          await p1.sessions.insert('acct_a', session(`ps_${i}`, 'requires_payment_method', i));
      });
      const firstTook = signal();
      const secondTook = signal();
      const take = (store: PostgresDatabase, p: typeof p1, took: () => void, wait: Promise<void>) =>
        store.grouped(async () => {
          const due = await p.expiring(['requires_payment_method'], 100, undefined, 4);
          took();
          await wait;
          return due.map((d) => d.doc.id);
        });
      const first = take(s1, p1, firstTook.give, secondTook.promise);
      await firstTook.promise;
      const second = take(s2, p2, secondTook.give, Promise.resolve());
      const [a, b] = await Promise.all([first, second]);
      expect(a).toEqual(['ps_0', 'ps_1', 'ps_2', 'ps_3']);
      expect(b).toEqual(['ps_4', 'ps_5', 'ps_6', 'ps_7']);
    });
  },
);
