// What the domain keeps in memory of a transaction in progress, on an engine that runs transactions at once
// (store/scoped.ts): the accounts' clocks (clock.ts) over PostgreSQL's store. A clock advanced in a transaction is
// seen by that transaction's own work only until it commits, and not at all once it rolled back — whatever other
// transactions commit or roll back meanwhile; a process whose offset is stale never moves a clock back; a seeded
// server's store (serial) runs its transactions one at a time, a part inside one at once.
//
// The accounts' offsets are read and written here by a ClockPort of the test's own over a table of the same shape
// as the schema's `accounts` (the PostgreSQL adapter's ports are written elsewhere): what is under test is the
// clock and the store's frames, on PostgreSQL's real transactions.
import { describe, expect, it } from 'vitest';
import { openPostgresDatabase, type PostgresDatabase } from '../../dist/lib/server/adapters/postgres/db.js';
import { AccountClock, type ClockPort } from '../../dist/lib/server/clock.js';
import { ScopedStore } from '../../dist/lib/server/store/scoped.js';
import { postgresServer } from '../helpers/postgres.js';

const pg = postgresServer();

const HOUR = 3_600_000;
const REAL = 1_700_000_000_000;

function signal<T = void>(): { promise: Promise<T>; give: (v: T) => void } {
  let give!: (v: T) => void;
  const promise = new Promise<T>((resolve) => (give = resolve));
  return { promise, give };
}

function clockStore(store: PostgresDatabase): ClockPort {
  return {
    async offset(id) {
      const rows = await store.current()<
        { o: string }[]
      >`SELECT clock_offset_ms::text AS o FROM accounts WHERE id = ${id}`;
      return rows[0] ? Number(rows[0].o) : undefined;
    },
    async offsets() {
      const rows = await store.current()<
        { id: string; o: string }[]
      >`SELECT id, clock_offset_ms::text AS o FROM accounts WHERE clock_offset_ms <> 0`;
      return rows.map((r): [string, number] => [r.id, Number(r.o)]);
    },
    async setOffset(id, ms) {
      await store.current()`UPDATE accounts SET clock_offset_ms = ${ms} WHERE id = ${id}`;
    },
    async accounts() {
      return (await store.current()<{ id: string }[]>`SELECT id FROM accounts`).map((r) => r.id);
    },
  };
}

/** A database with account `acct_a` at offset 0, and `n` stores over it (each as one server process would have). */
async function fresh(n = 1): Promise<PostgresDatabase[]> {
  const url = await pg.database();
  const stores = Array.from({ length: n }, () => openPostgresDatabase(url, { max: 4 }));
  await stores[0]!.grouped(async () => {
    const q = stores[0]!.current();
    await q`CREATE TABLE accounts (id text PRIMARY KEY, created_ms bigint NOT NULL, clock_offset_ms bigint NOT NULL DEFAULT 0)`;
    await q`INSERT INTO accounts (id, created_ms) VALUES ('acct_a', 0)`;
  });
  return stores;
}

/** The clock of one process over `store`, as domain/services.ts makes it. */
async function clockOver(engine: PostgresDatabase): Promise<{ store: ScopedStore; clock: AccountClock }> {
  const store = new ScopedStore(engine);
  const clock = new AccountClock(store, clockStore(engine), () => REAL);
  await store.read(() => clock.load());
  return { store, clock };
}

describe.skipIf(pg.missing !== '')(
  `the accounts' clocks on PostgreSQL${pg.missing ? ` (skipped: ${pg.missing})` : ''}`,
  () => {
    it("an advance is its transaction's until it commits, and gone when it rolls back, whatever others do meanwhile", async () => {
      const [engine] = await fresh();
      try {
        const { store, clock } = await clockOver(engine!);
        const advanced = signal();
        const release = signal();
        const seenInside: number[] = [];
        const first = store.grouped(async () => {
          await clock.advance('acct_a', HOUR);
          seenInside.push(clock.now('acct_a'));
          advanced.give();
          await release.promise;
          throw new Error('rolled back');
        });
        await advanced.promise;
        expect(clock.now('acct_a')).toBe(REAL); // outside the transaction: not committed
        // Another transaction, which commits meanwhile: it does not see the advance, and its COMMIT does not keep it.
        expect(await store.grouped(async () => clock.now('acct_a'))).toBe(REAL);
        release.give();
        await expect(first).rejects.toThrow('rolled back');
        expect(seenInside).toEqual([REAL + HOUR]);
        expect(clock.now('acct_a')).toBe(REAL);
        expect(await store.read(() => clockStore(engine!).offset('acct_a'))).toBe(0);
      } finally {
        await engine!.end();
      }
    });

    it('an advance that commits is everyone’s after its COMMIT, and a part rolled back inside it takes back its own', async () => {
      const [engine] = await fresh();
      try {
        const { store, clock } = await clockOver(engine!);
        const inside: number[] = [];
        await store.grouped(async () => {
          await clock.advance('acct_a', HOUR);
          await expect(
            store.tx(async () => {
              await clock.advance('acct_a', HOUR);
              inside.push(clock.now('acct_a'));
              throw new Error('part undone');
            }),
          ).rejects.toThrow('part undone');
          inside.push(clock.now('acct_a'));
          await store.tx(async () => {
            await clock.advance('acct_a', 2 * HOUR);
          });
          inside.push(clock.now('acct_a'));
          expect(clock.now('acct_a')).toBe(REAL + 3 * HOUR);
        });
        expect(inside).toEqual([REAL + 2 * HOUR, REAL + HOUR, REAL + 3 * HOUR]);
        expect(clock.now('acct_a')).toBe(REAL + 3 * HOUR);
        expect(await store.read(() => clockStore(engine!).offset('acct_a'))).toBe(3 * HOUR);
      } finally {
        await engine!.end();
      }
    });

    it('a process whose offset is stale does not move a clock back that another process advanced', async () => {
      const [a, b] = await fresh(2);
      try {
        const pa = await clockOver(a!);
        const pb = await clockOver(b!); // loaded at offset 0
        await pa.store.grouped(() => pa.clock.advance('acct_a', 2 * HOUR));
        expect(pb.clock.now('acct_a')).toBe(REAL); // stale until it reads again (its change mark, not here)
        // B, stale, is asked to move the clock one hour on from what it sees: the clock is already past that.
        const t = await pb.store.grouped(() => pb.clock.advance('acct_a', HOUR));
        expect(t).toBe(REAL + 2 * HOUR);
        expect(await pb.store.read(() => clockStore(b!).offset('acct_a'))).toBe(2 * HOUR);
        expect(pb.clock.now('acct_a')).toBe(REAL + 2 * HOUR);
      } finally {
        await a!.end();
        await b!.end();
      }
    });

    it("a transaction's afterCommit work runs at its own COMMIT, before the commit listeners, and never for a rollback", async () => {
      const [engine] = await fresh();
      try {
        const store = new ScopedStore(engine!);
        const heard: string[] = [];
        store.onCommit(() => heard.push('commit listener'));
        const inA = signal();
        const release = signal();
        const a = store.grouped(async () => {
          store.frame()!.afterCommit(() => heard.push('A committed'));
          await engine!.current()`UPDATE accounts SET clock_offset_ms = 1`;
          inA.give();
          await release.promise;
        });
        await inA.promise;
        // B commits while A is open: only B's own work follows B's COMMIT.
        await store.grouped(async () => {
          store.frame()!.afterCommit(() => heard.push('B committed'));
          await store
            .tx(async () => {
              store.frame()!.afterCommit(() => heard.push('B part undone'));
              throw new Error('undone');
            })
            .catch(() => undefined);
        });
        expect(heard).toEqual(['B committed', 'commit listener']);
        // C rolls back: nothing of it follows.
        await expect(
          store.grouped(async () => {
            store.frame()!.afterCommit(() => heard.push('C committed'));
            throw new Error('C');
          }),
        ).rejects.toThrow('C');
        release.give();
        await a;
        expect(heard).toEqual(['B committed', 'commit listener', 'A committed', 'commit listener']);
      } finally {
        await engine!.end();
      }
    });

    it('a serial store runs its transactions one at a time, in order, and a part inside one at once', async () => {
      const [engine] = await fresh();
      try {
        const store = new ScopedStore(engine!, { inTurn: true });
        expect(store.serial).toBe(true);
        const order: string[] = [];
        const firstIn = signal();
        const release = signal();
        const first = store.grouped(async () => {
          order.push('first starts');
          firstIn.give();
          await release.promise;
          await store.tx(async () => {
            await engine!.current()`UPDATE accounts SET clock_offset_ms = 1`;
            order.push('first part');
          });
          order.push('first ends');
        });
        await firstIn.promise;
        const second = store.grouped(async () => {
          order.push('second starts');
        });
        const read = store.read(async () => {
          order.push('read');
        });
        // Give the second transaction every chance to start: it must not while the first runs.
        for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
        expect(order).toEqual(['first starts']);
        release.give();
        await Promise.all([first, second, read]);
        expect(order).toEqual(['first starts', 'first part', 'first ends', 'second starts', 'read']);
        // A throw does not stop the line.
        await expect(store.grouped(() => Promise.reject(new Error('no')))).rejects.toThrow('no');
        expect(await store.grouped(async () => 'after')).toBe('after');
      } finally {
        await engine!.end();
      }
    });
  },
);
