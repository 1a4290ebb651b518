// Shared commits on PostgreSQL (adapters/postgres/db.ts `grouped`): the requests' writes waiting when a transaction
// can start run in one transaction, each in a savepoint of its own, and are answered once it committed. What must hold:
// many writes share few COMMITs; a member that throws is undone alone; a member whose write fails after its work ended
// (the store does not wait for writes: `send`) is answered with that failure and undoes no other member's work; a
// batch only takes writes asked for before it started, so a write sees every write answered before it was asked for.
import { describe, expect, it } from 'vitest';
import { openPostgresDatabase, type PostgresDatabase } from '../../dist/lib/server/adapters/postgres/db.js';
import { postgresServer } from '../helpers/postgres.js';

const pg = postgresServer();

function signal(): { promise: Promise<void>; give: () => void } {
  let give!: () => void;
  const promise = new Promise<void>((resolve) => (give = resolve));
  return { promise, give };
}

async function fresh(): Promise<PostgresDatabase> {
  const store = openPostgresDatabase(await pg.database(), { max: 4 });
  await store.tx(async () => {
    await store.current()`CREATE TABLE t (k text PRIMARY KEY, v bigint NOT NULL)`;
  });
  return store;
}

/** Inserts (k, v), sent without waiting (as the adapters' writes are). */
const insert = (store: PostgresDatabase, k: string, v = 1) =>
  store.send((q) => q`INSERT INTO t (k, v) VALUES (${k}, ${v})`);

/** The id of the transaction the caller runs in. */
const txid = async (store: PostgresDatabase) =>
  Number((await store.current()<{ x: string }[]>`SELECT txid_current()::text AS x`)[0]!.x);

const keys = async (store: PostgresDatabase) =>
  (await store.read(() => store.current()<{ k: string }[]>`SELECT k FROM t ORDER BY k`)).map((r) => r.k);

/**
 * Holds the store's two batches (each running one write that waits for `release`), then asks for `more` writes: they
 * wait together, and the next batch takes them all. Answers the held writes' promises.
 */
async function holdBatches(store: PostgresDatabase, release: Promise<void>): Promise<Promise<unknown>[]> {
  const started = [signal(), signal()];
  const held = started.map((s, i) =>
    store.grouped(async () => {
      await insert(store, `held${i}`);
      s.give();
      await release;
    }),
  );
  await Promise.all(started.map((s) => s.promise));
  return held;
}

describe.skipIf(pg.missing !== '')(
  `shared commits on PostgreSQL${pg.missing ? ` (skipped: ${pg.missing})` : ''}`,
  () => {
    it('writes asked for together share one transaction; each is answered once it committed', async () => {
      const store = await fresh();
      try {
        const release = signal();
        const held = await holdBatches(store, release.promise);
        const together = Array.from({ length: 12 }, (_, i) =>
          store.grouped(async () => {
            await insert(store, `k${String(i).padStart(2, '0')}`);
            return txid(store);
          }),
        );
        release.give();
        await Promise.all(held);
        const ids = await Promise.all(together);
        expect(new Set(ids).size).toBe(1);
        expect(await keys(store)).toHaveLength(14);
      } finally {
        await store.end();
      }
    });

    it('a member that throws is undone alone; the others of its transaction commit', async () => {
      const store = await fresh();
      try {
        const release = signal();
        const held = await holdBatches(store, release.promise);
        const a = store.grouped(async () => insert(store, 'a'));
        const b = store.grouped(async () => {
          await insert(store, 'b');
          // A statement that fails (a duplicate key) after the write, and the member throws it.
          await store.current()`INSERT INTO t (k, v) VALUES ('held0', 2)`;
        });
        const c = store.grouped(async () => insert(store, 'c'));
        // A member that throws is answered at once, before its batch commits.
        const answers = Promise.allSettled([a, b, c]);
        release.give();
        await Promise.all(held);
        const settled = await answers;
        expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
        expect((settled[1] as PromiseRejectedResult).reason).toMatchObject({ code: '23505' });
        expect(await keys(store)).toEqual(['a', 'c', 'held0', 'held1']);
      } finally {
        await store.end();
      }
    });

    it('a write that fails after its member ended is that member’s failure; the members after it run again, once', async () => {
      const store = await fresh();
      try {
        let runsOfC = 0;
        const release = signal();
        const held = await holdBatches(store, release.promise);
        const a = store.grouped(async () => insert(store, 'a'));
        // B's last write fails (a duplicate key) after B's work has ended: C's statements went out behind it.
        const b = store.grouped(async () => {
          await insert(store, 'b');
          await insert(store, 'held1');
        });
        const c = store.grouped(async () => {
          runsOfC++;
          await insert(store, 'c');
          return (await store.current()<{ n: number }[]>`SELECT count(*)::int AS n FROM t WHERE k = 'c'`)[0]!.n;
        });
        // And as the last of a transaction: its failure comes with the COMMIT, which PostgreSQL turned into a ROLLBACK.
        const d = store.grouped(async () => insert(store, 'held0'));
        // A member that throws is answered at once, before its batch commits.
        const answers = Promise.allSettled([a, b, c, d]);
        release.give();
        await Promise.all(held);
        const settled = await answers;
        expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
        expect((settled[1] as PromiseRejectedResult).reason).toMatchObject({ code: '23505' });
        expect((settled[3] as PromiseRejectedResult).reason).toMatchObject({ code: '23505' });
        expect((settled[2] as PromiseFulfilledResult<number>).value).toBe(1);
        expect(runsOfC).toBeGreaterThanOrEqual(2);
        expect(await keys(store)).toEqual(['a', 'c', 'held0', 'held1']);
      } finally {
        await store.end();
      }
    });

    it('a write sees every write answered before it was asked for, whichever batch that was in', async () => {
      const store = await fresh();
      try {
        // One batch is held open (its snapshot taken) while a write in the other batch is answered; a write asked for
        // after that answer must not run in the held batch's old snapshot.
        const release = signal();
        const started = signal();
        const holder = store.grouped(async () => {
          await txid(store);
          started.give();
          await release.promise;
        });
        await started.promise;
        await store.grouped(async () => insert(store, 'first'));
        const seen = await store.grouped(async () => (await store.current()<{ k: string }[]>`SELECT k FROM t`).length);
        expect(seen).toBe(1);
        release.give();
        await holder;
      } finally {
        await store.end();
      }
    });
  },
);
