// The PostgreSQL store's transactions on a real PostgreSQL: what a request commits is seen only once committed, a throw
// undoes a transaction or only its nested part, transactions that PostgreSQL aborts for a conflict or a deadlock are
// run again and take effect once (an Idempotency-Key claimed by two pools at once included), many run at once over a
// small pool, a stopped server answers storage_unavailable at once and the store connects again after a restart, and no
// error carries the password.
import { describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { toServiceError } from '../../dist/lib/server/http/replies.js';
import {
  openPostgresDatabase,
  type PostgresDatabase,
  type PostgresDatabaseOptions,
} from '../../dist/lib/server/adapters/postgres/db.js';
import { postgresServer } from '../helpers/postgres.js';

const pg = postgresServer();

/** A promise and the function that resolves it: a signal one part of a test gives another. */
function signal<T = void>(): { promise: Promise<T>; give: (v: T) => void } {
  let give!: (v: T) => void;
  const promise = new Promise<T>((resolve) => (give = resolve));
  return { promise, give };
}

/** A fresh database with a table `t (k text primary key, v bigint)`, and a store over it. */
async function fresh(
  options: PostgresDatabaseOptions = {},
  url?: string,
): Promise<{ store: PostgresDatabase; url: string }> {
  const u = url ?? (await pg.database());
  const store = openPostgresDatabase(u, { max: 4, ...options });
  await store.grouped(async () => {
    const q = store.current();
    await q`CREATE TABLE t (k text PRIMARY KEY, v bigint NOT NULL)`;
    await q`CREATE TABLE log (n bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, what text NOT NULL)`;
  });
  return { store, url: u };
}

async function rows(store: PostgresDatabase): Promise<Record<string, number>> {
  const got = await store.read(() => store.current()<{ k: string; v: number }[]>`SELECT k, v FROM t ORDER BY k`);
  return Object.fromEntries(got.map((r) => [r.k, r.v]));
}

/** Polls `query` (in reads of the store) until it finds a row: what a test waits for that PostgreSQL does. */
async function waitFor(store: PostgresDatabase, query: string): Promise<void> {
  while ((await store.read(() => store.current().unsafe(query))).length === 0)
    await new Promise((resolve) => setImmediate(resolve));
}

const put = (store: PostgresDatabase, k: string, v: number) =>
  store.current()`INSERT INTO t (k, v) VALUES (${k}, ${v})`.then(() => undefined);

describe.skipIf(pg.missing !== '')(`the PostgreSQL store${pg.missing ? ` (skipped: ${pg.missing})` : ''}`, () => {
  it('shows a write to a read only once it is committed, and runs the commit listeners after the COMMIT', async () => {
    const { store } = await fresh();
    try {
      const commits: Record<string, number>[] = [];
      const committed = signal();
      store.onCommit(() => {
        commits.push({});
        committed.give();
      });
      const written = signal();
      const release = signal();
      const writer = store.grouped(async () => {
        await put(store, 'a', 1);
        // Inside the writing transaction its own write is seen.
        expect(await store.read(() => store.current()`SELECT k FROM t`)).toHaveLength(1);
        written.give();
        await release.promise;
        return 'done';
      });
      await written.promise;
      const listenersBefore = commits.length;
      // Another transaction, while the write is uncommitted: it sees nothing of it.
      expect(await rows(store)).toEqual({});
      expect(commits.length).toBe(listenersBefore);
      release.give();
      expect(await writer).toBe('done');
      await committed.promise;
      expect(await rows(store)).toEqual({ a: 1 });
      // Integers come back as numbers.
      expect(typeof (await rows(store)).a).toBe('number');
    } finally {
      await store.end();
    }
  });

  it('a read is one snapshot and cannot write', async () => {
    const { store } = await fresh();
    try {
      await store.grouped(() => put(store, 'a', 1));
      const firstRead = signal();
      const written = signal();
      const reader = store.read(async () => {
        const before = await store.current()`SELECT count(*)::int AS n FROM t`;
        firstRead.give();
        await written.promise;
        const after = await store.current()`SELECT count(*)::int AS n FROM t`;
        return [before[0]?.n, after[0]?.n];
      });
      await firstRead.promise;
      await store.grouped(() => put(store, 'b', 2));
      written.give();
      // A write committed during the read is not seen by it: the page and its total agree.
      expect(await reader).toEqual([1, 1]);
      await expect(store.read(() => put(store, 'c', 3))).rejects.toMatchObject({ code: '25006' });
      expect(await rows(store)).toEqual({ a: 1, b: 2 });
    } finally {
      await store.end();
    }
  });

  it('undoes the whole transaction when its function throws, and runs the rollback listeners', async () => {
    const { store } = await fresh();
    try {
      let rollbacks = 0;
      let commits = 0;
      store.onRollback(() => rollbacks++);
      store.onCommit(() => commits++);
      await expect(
        store.grouped(async () => {
          await put(store, 'a', 1);
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect(rollbacks).toBe(1);
      expect(commits).toBe(0);
      expect(await rows(store)).toEqual({});
      await expect(store.alone(() => put(store, 'a', 1).then(() => Promise.reject(new Error('x'))))).rejects.toThrow(
        'x',
      );
      expect(await rows(store)).toEqual({});
    } finally {
      await store.end();
    }
  });

  it('a nested part (tx) that throws undoes its own writes only, even when a statement of it failed', async () => {
    const { store } = await fresh();
    try {
      let rollbacks = 0;
      store.onRollback(() => rollbacks++);
      await store.grouped(async () => {
        await put(store, 'a', 1);
        await expect(
          store.tx(async () => {
            await put(store, 'b', 2);
            throw new Error('part refused');
          }),
        ).rejects.toThrow('part refused');
        // A statement that fails inside a part (a duplicate key) undoes that part; the transaction goes on.
        await expect(store.tx(() => put(store, 'a', 9))).rejects.toMatchObject({ code: '23505' });
        await store.tx(async () => {
          await put(store, 'c', 3);
          await store.tx(() => put(store, 'd', 4));
        });
      });
      expect(rollbacks).toBe(2);
      expect(await rows(store)).toEqual({ a: 1, c: 3, d: 4 });
    } finally {
      await store.end();
    }
  });

  it('runs again a transaction aborted for a conflict on a row (40001): both complete, each effect once', async () => {
    // Two "next number" transactions that both read the counter before either writes: without the store's re-run,
    // one of them fails (shown with attempts: 1); with it, the numbers are 1 and 2.
    for (const attempts of [1, 10]) {
      const { store } = await fresh({ attempts });
      try {
        await store.grouped(() => put(store, 'counter', 0));
        let arrived = 0;
        const bothRead = signal();
        let runs = 0;
        const next = (who: string) =>
          store.grouped(async () => {
            runs++;
            const q = store.current();
            const [row] = await q<{ v: number }[]>`SELECT v FROM t WHERE k = 'counter'`;
            if (++arrived === 2) bothRead.give();
            if (arrived <= 2) await bothRead.promise;
            const n = row!.v + 1;
            await q`UPDATE t SET v = ${n} WHERE k = 'counter'`;
            await q`INSERT INTO log (what) VALUES (${`${who}:${n}`})`;
            return n;
          });
        const results = await Promise.allSettled([next('x'), next('y')]);
        const log = await store.read(() => store.current()<{ what: string }[]>`SELECT what FROM log ORDER BY n`);
        if (attempts === 1) {
          expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
          const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
          expect(failed.reason).toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
          expect(toServiceError(failed.reason).status).toBe(503);
          expect(log).toHaveLength(1);
        } else {
          expect(results.map((r) => (r.status === 'fulfilled' ? r.value : r.reason)).sort()).toEqual([1, 2]);
          expect(runs).toBe(3);
          expect(log.map((l) => l.what.split(':')[1])).toEqual(['1', '2']);
          expect((await rows(store)).counter).toBe(2);
        }
      } finally {
        await store.end();
      }
    }
  });

  it('an Idempotency-Key claimed by two processes at once takes effect once: the second replays the first', async () => {
    // Two stores (two pools: two server processes) on one database. Each request looks for the key's record, runs
    // the request's work, then claims the key (INSERT … ON CONFLICT DO NOTHING), as the request pipeline does; both
    // look before either claims.
    const { store: a, url } = await fresh();
    const b = openPostgresDatabase(url, { max: 4 });
    try {
      await a.grouped(() => a.current()`CREATE TABLE idem (key text PRIMARY KEY, answer text NOT NULL)`);
      let looked = 0;
      const bothLooked = signal();
      const request = (store: PostgresDatabase, who: string) =>
        store.grouped(async () => {
          const q = store.current();
          const [saved] = await q<{ answer: string }[]>`SELECT answer FROM idem WHERE key = 'k1'`;
          if (++looked === 2) bothLooked.give();
          if (looked <= 2) await bothLooked.promise;
          if (saved) return `replayed ${saved.answer}`;
          await q`INSERT INTO log (what) VALUES (${`payment by ${who}`})`;
          const claimed =
            await q`INSERT INTO idem (key, answer) VALUES ('k1', ${who}) ON CONFLICT DO NOTHING RETURNING key`;
          if (claimed.length === 0) throw new Error('the key was claimed by another request: a double effect');
          return `ran ${who}`;
        });
      const answers = await Promise.all([request(a, 'a'), request(b, 'b')]);
      const ran = answers.find((x) => x.startsWith('ran '));
      expect(ran).toBeDefined();
      expect(answers).toContain(`replayed ${ran!.slice(4)}`);
      expect(looked).toBe(3);
      const log = await a.read(() => a.current()<{ what: string }[]>`SELECT what FROM log`);
      expect(log).toHaveLength(1);
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  it('runs again a transaction PostgreSQL chose to break a deadlock, at most twice more', async () => {
    // The victim is run again behind its turn on the serial table; if it meets a conflict again (its snapshot older
    // than the survivor's COMMIT), its next run waits for every write in flight: at most three runs of it in all.
    // The survivor commits only once the re-run waits on a lock, the widest window for such a conflict.
    const made = await fresh();
    await made.store.grouped(() => made.store.current()`CREATE TABLE serial_lock ()`);
    await made.store.end();
    const store = openPostgresDatabase(made.url, { max: 4, serialTable: 'serial_lock' });
    const watch = postgres(made.url, { max: 1, onnotice: () => {} });
    const someoneWaits = async () => {
      for (;;) {
        const [{ n }] = await watch<{ n: number }[]>`
          SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`;
        if (n > 0) return;
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    try {
      await store.grouped(async () => {
        await put(store, 'x', 0);
        await put(store, 'y', 0);
      });
      let arrived = 0;
      let survived = false;
      const bothLocked = signal();
      const cross = (first: string, second: string) =>
        store.grouped(async () => {
          const q = store.current();
          await q`UPDATE t SET v = v + 1 WHERE k = ${first}`;
          if (++arrived === 2) bothLocked.give();
          if (arrived <= 2) await bothLocked.promise;
          await q`UPDATE t SET v = v + 1 WHERE k = ${second}`;
          if (!survived) {
            survived = true;
            await someoneWaits(); // the other's re-run, sent and waiting
          }
        });
      await Promise.all([cross('x', 'y'), cross('y', 'x')]);
      expect(arrived).toBeGreaterThanOrEqual(3); // the victim ran again…
      expect(arrived).toBeLessThanOrEqual(4); // …at most twice more
      expect(await rows(store)).toEqual({ x: 2, y: 2 });
    } finally {
      await watch.end();
      await store.end();
    }
  });

  it('serves many transactions at once over a pool of 4 connections', async () => {
    const { store } = await fresh();
    try {
      const writes = Array.from({ length: 200 }, (_, i) =>
        store.grouped(async () => {
          await put(store, `k${String(i).padStart(3, '0')}`, i);
          return i;
        }),
      );
      const reads = Array.from({ length: 50 }, () => store.read(() => store.current()`SELECT count(*) FROM t`));
      expect((await Promise.all(writes)).length).toBe(200);
      expect((await Promise.all(reads)).length).toBe(50);
      const all = await rows(store);
      expect(Object.keys(all)).toHaveLength(200);
      expect(all.k199).toBe(199);
    } finally {
      await store.end();
    }
  });

  it.each(['fast', 'immediate'] as const)(
    'answers storage_unavailable while PostgreSQL is stopped (%s), and connects again once it is back',
    async (mode) => {
      const { store } = await fresh({ connectTimeout: 3 });
      try {
        await store.grouped(() => put(store, 'before', 1));
        // A transaction waiting on PostgreSQL when it stops (its session ended, or its server gone at once).
        let rollbacks = 0;
        store.onRollback(() => rollbacks++);
        const sleeping = signal();
        const open = store.grouped(async () => {
          await put(store, 'lost', 1);
          const q = store.current()`SELECT pg_sleep(60)`;
          sleeping.give();
          await q;
        });
        await sleeping.promise;
        await waitFor(store, "SELECT 1 FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%' AND state = 'active'");
        pg.stop(mode);
        const inFlight = await open.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(inFlight).toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
        expect(rollbacks).toBe(1);
        // A new transaction and a read while it is down.
        for (const attempt of [() => store.grouped(() => put(store, 'down', 1)), () => rows(store)]) {
          const err = await attempt().then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(err).toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
          const answer = toServiceError(err);
          expect(answer.status).toBe(503);
          expect(answer.code).toBe('storage_unavailable');
          expect(Number(answer.headers?.['Retry-After'])).toBeGreaterThan(0);
        }
        pg.start();
        // Back: every connection of the pool serves again (more transactions at once than it has connections).
        await Promise.all(Array.from({ length: 12 }, (_, i) => store.grouped(() => put(store, `after${i}`, i))));
        const after = await rows(store);
        expect(after.before).toBe(1);
        expect(Object.keys(after)).toHaveLength(13);
        expect(after.lost).toBeUndefined();
      } finally {
        await store.end();
      }
    },
    90_000,
  );

  it('answers a transaction whose connection closed while none of its statements was in flight, and sends nothing more on it', async () => {
    const { store, url } = await fresh();
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const started = signal<number>();
      const goOn = signal();
      const stale = signal<unknown>();
      const open = store.grouped(async () => {
        await put(store, 'lost', 1);
        const [row] = await store.current()<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
        started.give(row!.pid);
        // The request's own work between two statements (a call elsewhere): its connection closes meanwhile.
        await goOn.promise;
        await Promise.resolve()
          .then(() => put(store, 'stale', 2))
          .then(
            () => stale.give(undefined),
            (e: unknown) => stale.give(e),
          );
      });
      // Its answer is taken now: the close can reach this process before the answer to the terminate does.
      const answered = open.then(
        () => 'committed',
        (e: unknown) => e,
      );
      await admin`SELECT pg_terminate_backend(${await started.promise})`;
      // Answered once the driver sees the close, though the work has not asked for anything since.
      const outcome = await Promise.race([
        answered,
        new Promise((resolve) => setTimeout(resolve, 20_000, 'no answer in 20 s')),
      ]);
      expect(outcome).toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
      // The work's next statement is refused, not sent on a connection the pool may have made again for another.
      goOn.give();
      expect(await stale.promise).toBeDefined();
      await Promise.all(Array.from({ length: 6 }, (_, i) => store.grouped(() => put(store, `next${i}`, i))));
      const after = await rows(store);
      expect(after.lost).toBeUndefined();
      expect(after.stale).toBeUndefined();
      expect(Object.keys(after)).toHaveLength(6);
    } finally {
      await admin.end();
      await store.end();
    }
  }, 60_000);

  it('never shows the password of the URL in an error', async () => {
    const password = 'Pa55:w0rd@secret';
    const plain = await pg.database();
    const withPassword = (u: string) => u.replace('postgres@', `postgres:${encodeURIComponent(password)}@`);
    const { store } = await fresh({ connectTimeout: 3 }, withPassword(plain));
    const missing = openPostgresDatabase(withPassword(plain).replace(/\/[^/]+$/, '/no_such_database'));
    const texts = (e: unknown) => {
      const err = e as Error;
      return [err.message, String(err.stack), JSON.stringify(err), String(err)].join('\n');
    };
    try {
      const noDatabase = await rows(missing).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(noDatabase).toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
      expect(texts(noDatabase)).toContain('no_such_database');
      pg.stop('fast');
      const down = await rows(store).then(
        () => undefined,
        (e: unknown) => e,
      );
      pg.start();
      expect(down).toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
      // Host and database are named; the password is not, in any spelling.
      expect(texts(down)).toContain('127.0.0.1');
      expect(texts(down)).toContain(new URL(plain).pathname.slice(1));
      for (const t of [texts(down), texts(noDatabase)]) {
        expect(t).not.toContain(password);
        expect(t).not.toContain(encodeURIComponent(password));
        expect(t).not.toContain('w0rd');
      }
    } finally {
      await store.end();
      await missing.end();
    }
  }, 90_000);
});
