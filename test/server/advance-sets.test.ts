// Due work in sets (issue 44): a clock advance that meets many sessions expires them many per call, with the clock
// moved once per set — and with exactly what one item at a time gave: the same `ran` (name, moment, count), one
// event per session in time order (at a moment, the kinds in the scheduler's order), a session with a payment voided
// first. Over real HTTP on each engine; the statements an advance runs on SQLite are counted (a count, not a time: the
// same on any machine); and the scheduler's set rules are held against one item at a time on made-up work (overdue
// items, ties with other kinds, a horizon, a target that cuts a moment's items), and through steps given up for a
// conflict and gone on with.
import { describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { statementsRun } from '../helpers/statements.js';
import { onSqlite } from '../helpers/engine.js';
import { AGAIN, runSteps } from '../../dist/lib/server/store/steps.js';
import { ScopedStore } from '../../dist/lib/server/store/scoped.js';
import { Scheduler, SET, type DueRun, type DueWork } from '../../dist/lib/server/domain/due.js';
import type { Clock } from '../../dist/lib/server/clock.js';
import type { Store } from '../../dist/lib/server/store/seam.js';

const DAY_MS = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** The server of the test that runs now. */
let s: TestServer;
const LIMITS = { perMinute: 1_000_000, perDay: 10_000_000, concurrency: 1000 };

async function ok<T = any>(method: string, path: string, body?: unknown, key?: string): Promise<T> {
  const r = await s.request(method, path, { body, key });
  expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
  return r.body as T;
}

/** Every item of a list, oldest first (lists are newest first). */
async function all<T extends { id: string }>(path: string, key?: string): Promise<T[]> {
  const out: T[] = [];
  for (let after: string | undefined; ;) {
    const sep = path.includes('?') ? '&' : '?';
    const page = await ok(`GET`, `${path}${sep}limit=100${after ? `&starting_after=${after}` : ''}`, undefined, key);
    out.push(...page.data);
    if (!page.has_more) return out.reverse();
    after = page.data[page.data.length - 1].id;
  }
}

describe('a clock advance over many sessions', () => {
  it(
    'expires each once, with one event each in time order, and the `ran` of one item at a time',
    { timeout: 180_000 },
    async () => {
      // A seeded server's clock is frozen: each session's expiry time is the test's to choose.
      s = await startTestServer({
        memory: true,
        seed: 44,
        dueWorkIntervalMs: 0,
        webhooks: { pollIntervalMs: 3_600_000 },
        rateLimits: LIMITS,
      });
      try {
        await expiresInOrder();
      } finally {
        await s.close();
      }
    },
  );

  /** The scenario of the test above, on `s`. */
  async function expiresInOrder(): Promise<void> {
    const { api_key: key } = await s.server.services.accounts.createAccountWithKey();
    const clock = async () => (await ok('GET', '/test-helpers/clock', undefined, key)).now_iso as string;
    const MOMENTS = 50;
    const PER_MOMENT = 20; // more than one runDue batch (8) at a moment
    const T0 = Date.parse(await clock());
    const expiry = (g: number) => T0 + g * 1000 + DAY_MS;
    const ids: string[][] = [];
    let secret = '';
    for (let g = 0; g < MOMENTS; g++) {
      if (g > 0) await ok('POST', '/test-helpers/advance-clock', { seconds: 1 }, key);
      const made = await Promise.all(
        Array.from({ length: PER_MOMENT }, () =>
          ok('POST', '/create-session', { amount: 500 + g, currency: 'usd' }, key),
        ),
      );
      ids.push(made.map((m) => m.id));
      if (g === 17) secret = made[3].client_secret;
    }
    // A session of moment 17 has a payment waiting for 3-D Secure: it is voided as the session expires.
    const challenged = ids[17]![3]!;
    const payment = await ok(
      'POST',
      `/confirm-payment/${challenged}`,
      { token_id: 'tok_threeDSecureRequired' },
      secret,
    );
    expect((await ok('GET', `/sessions/${challenged}`, undefined, key)).status).toBe('requires_action');
    // Two holds of another kind: one between two moments of sessions, one at the very moment of others.
    const ledger = async (name: string, account_type: string) =>
      (await ok('POST', '/ledger-accounts', { name, account_type, currency: 'usd' }, key)).id as string;
    const cash = await ledger('cash', 'asset');
    const wallet = await ledger('wallet', 'liability');
    await ok(
      'POST',
      '/journal-entries',
      {
        description: 'top-up',
        entries: [
          { account_id: cash, direction: 'debit', amount: 1000 },
          { account_id: wallet, direction: 'credit', amount: 1000 },
        ],
      },
      key,
    );
    const hold = async (at: number) =>
      (await ok('POST', `/ledger-accounts/${wallet}/holds`, { amount: 10, expires_at: iso(at) }, key)).id as string;
    const between = await hold(expiry(10) + 500);
    const tied = await hold(expiry(30));

    const sessionsOldestFirst = (await all<{ id: string }>('/sessions', key)).map((x) => x.id);
    expect(sessionsOldestFirst).toHaveLength(MOMENTS * PER_MOMENT);
    expect(new Set(sessionsOldestFirst)).toEqual(new Set(ids.flat()));

    const advanced = await ok('POST', '/test-helpers/advance-clock', { seconds: 2 * 86_400 }, key);

    // `ran`: a moment per entry, in time order; at expiry(30), the sessions first (listed before the ledger's holds).
    const expected: DueRun[] = [];
    for (let g = 0; g < MOMENTS; g++) {
      expected.push({ name: 'session expiry', at: iso(expiry(g)), count: PER_MOMENT });
      if (g === 10) expected.push({ name: 'ledger hold expiry', at: iso(expiry(10) + 500), count: 1 });
      if (g === 30) expected.push({ name: 'ledger hold expiry', at: iso(expiry(30)), count: 1 });
    }
    expect(advanced.ran).toEqual(expected);

    // The log: each session's expiry once, in the order of their moments and, at a moment, of their creation; the
    // challenged payment voided just before its session expired; each hold between the sessions of its moment.
    const events = await all<{ id: string; type: string; data: { object: { id: string } } }>('/events', key);
    const told = events
      .filter((e) => ['payment_session.expired', 'payment.canceled', 'hold.expired'].includes(e.type))
      .map((e) => `${e.type} ${e.data.object.id}`);
    const order = new Map(sessionsOldestFirst.map((id, i) => [id, i]));
    const want: string[] = [];
    for (let g = 0; g < MOMENTS; g++) {
      for (const id of [...ids[g]!].sort((a, b) => order.get(a)! - order.get(b)!)) {
        if (id === challenged) want.push(`payment.canceled ${payment.id}`);
        want.push(`payment_session.expired ${id}`);
      }
      if (g === 10) want.push(`hold.expired ${between}`);
      if (g === 30) want.push(`hold.expired ${tied}`);
    }
    expect(told).toEqual(want);
    // Each event names its own time: the session's expiry.
    const expiredAt = new Map(
      events
        .filter((e) => e.type === 'payment_session.expired')
        .map((e) => [e.data.object.id, (e as unknown as { created: number }).created]),
    );
    for (let g = 0; g < MOMENTS; g++)
      for (const id of ids[g]!) expect(expiredAt.get(id)).toBe(Math.floor(expiry(g) / 1000));

    const total = async (status: string) =>
      (await ok('GET', `/sessions?status=${status}&limit=1`, undefined, key)).total_count as number;
    expect(await total('canceled')).toBe(MOMENTS * PER_MOMENT);
    expect(await total('requires_payment_method')).toBe(0);
    expect(await total('requires_action')).toBe(0);
    const voided = await ok('GET', `/sessions/${challenged}`, undefined, key);
    expect(voided).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' });
    expect(voided.latest_attempt?.status).toBe('canceled');
    expect(advanced.now_iso).toBe(iso(T0 + (MOMENTS - 1) * 1000 + 2 * DAY_MS));
  }

  it.runIf(onSqlite)(
    'runs a bounded number of statements per set, not per session: two per session (its row, its event) and the rest per set',
    { timeout: 120_000 },
    async () => {
      // Not seeded (a seeded server also writes its id stream's place at each id drawn). No timer of its own runs
      // statements meanwhile.
      const plain = await startTestServer({
        memory: true,
        dueWorkIntervalMs: 0,
        webhooks: { pollIntervalMs: 3_600_000 },
        rateLimits: LIMITS,
      });
      try {
        await bounded(plain);
      } finally {
        await plain.close();
      }
    },
  );

  /** The statements of the test above, on `plain`. */
  async function bounded(plain: TestServer): Promise<void> {
    const ok = async (method: string, path: string, body: unknown, key: string) => {
      const r = await plain.request(method, path, { body, key });
      expect(r.status, r.text).toBeLessThan(300);
      return r.body;
    };
    const counts: Record<number, { total: number; other: number }> = {};
    for (const n of [200, 1000]) {
      const { api_key: key } = await plain.server.services.accounts.createAccountWithKey();
      // Ten sessions a moment, a second apart: one item at a time stopped the clock at each moment.
      for (let i = 0; i < n; i += 10) {
        await ok('POST', '/test-helpers/advance-clock', { seconds: 1 }, key);
        await Promise.all(
          Array.from({ length: 10 }, () => ok('POST', '/create-session', { amount: 100, currency: 'usd' }, key)),
        );
      }
      const { result, ran } = await statementsRun(() =>
        plain.request('POST', '/test-helpers/advance-clock', { body: { seconds: 2 * 86_400 }, key }),
      );
      expect(result.status).toBe(200);
      expect(result.body.ran.reduce((a: number, r: DueRun) => a + r.count, 0)).toBe(n);
      const perSession = ran.filter((q) => /^(UPDATE payment_sessions |INSERT INTO events )/.test(q));
      expect(perSession.length).toBe(2 * n);
      counts[n] = { total: ran.length, other: ran.length - perSession.length };
    }
    // The rest: per set (looking for what is due, claiming the set, the clock) and per transaction — bounded by the
    // sets, not by the sessions. One item at a time ran ~18 statements per session.
    const sets = (n: number) => Math.ceil(n / SET);
    for (const n of [200, 1000] as const)
      expect(counts[n]!.other, JSON.stringify(counts)).toBeLessThanOrEqual(40 * sets(n) + 20);
    expect(counts[1000]!.other - counts[200]!.other).toBeLessThanOrEqual(40 * (sets(1000) - sets(200)) + 20);
  }
});

// ------------------------------------------------------------------------------------------------ the set rules

/** A kind of made-up due work: items (due time, id) in creation order; `sets` makes it a DueSets kind. */
function kind(
  name: string,
  items: { at: number; id: string }[],
  log: string[],
  opts: { sets?: { horizonMs: number }; onRun?: (item: { at: number; id: string }) => void } = {},
): DueWork & { items: { at: number; id: string; done?: boolean }[] } {
  type Item = { at: number; id: string; done?: boolean };
  const self = {
    name,
    items: items.map((i): Item => ({ ...i })),
    /** Due, not done: in order of due time, then of creation. */
    due(until: number) {
      return self.items
        .map((item, seq) => ({ item, seq }))
        .filter(({ item }) => !item.done && item.at <= until)
        .sort((a, b) => a.item.at - b.item.at || a.seq - b.seq)
        .map(({ item }) => item);
    },
    run(item: { at: number; id: string; done?: boolean }) {
      item.done = true;
      log.push(`${name} ${item.id}`);
      opts.onRun?.(item);
    },
    async nextDue() {
      return self.due(Infinity)[0]?.at;
    },
    async runDue(now: number, _account?: string, limit = -1) {
      const due = self.due(now).slice(0, limit < 0 ? undefined : limit);
      for (const item of due) self.run(item);
      return due.length;
    },
    ...(opts.sets && {
      inSets: {
        horizonMs: opts.sets.horizonMs,
        async runSet(_account: string, until: number, limit: number, take: (d: number) => boolean) {
          const due = self.due(until).slice(0, limit);
          let n = 0;
          while (n < due.length && take(due[n]!.at)) n++;
          for (const item of due.slice(0, n)) self.run(item);
          return n;
        },
      },
    }),
  };
  return self;
}

/** A clock of the test's own, in memory: `now` moves only when advanced. */
function clockAt(t: number): Clock & { t: number } {
  const c = {
    t,
    now: () => c.t,
    advance: async (_account: string, ms: number) => (c.t += ms),
    accounts: async () => ['acct'],
  };
  return c;
}

/** A clock of the test's own whose advances, as the accounts' clocks', take effect once their transaction commits. */
function transactionalClock(store: ScopedStore, t: number): Clock & { t: number } {
  const KEY = 'test clock';
  const c = {
    t,
    now: () => store.frame()?.get<number>(KEY) ?? c.t,
    advance: async (_account: string, ms: number) => {
      const moved = c.now() + ms;
      const frame = store.frame();
      if (frame) {
        frame.set(KEY, moved);
        frame.afterCommit(() => (c.t = moved));
      } else c.t = moved;
      return moved;
    },
    accounts: async () => ['acct'],
  };
  return c;
}

/** A seeded pseudo-random source (the same scenario every run). */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

/** A store for made-up work: no data; `tx` and `alone` run their work (ScopedStore gives them frames). */
function memoryEngine(): Store {
  return {
    tx: async (fn) => fn(),
    grouped: async (fn) => fn(),
    read: async (fn) => fn(),
    alone: async (fn) => fn(),
    readAway: async () => {
      throw new Error('no reads away here');
    },
    onRollback() {},
    onCommit() {},
    close() {},
  };
}

/** Runs an advance to `target` on `clock` over `work`, step by step, outside any transaction. */
async function drive(store: ScopedStore, clock: Clock, work: DueWork[], target: number): Promise<DueRun[]> {
  const steps = new Scheduler(store, clock, work).advance('acct', target);
  for (;;) {
    const r = await steps.next();
    if (r.done) return r.value;
  }
}

describe('the scheduler’s sets', () => {
  /**
   * The same made-up work, run with the set kind as a set kind and as one item at a time: items overdue at the start
   * (run at the clock's time, up to a batch at once), ties with kinds listed before and after it, a kind whose items
   * make new items of the set kind, items past the target, and a horizon shorter than the span.
   */
  function scenario(seed: number, sets: boolean) {
    const rnd = random(seed);
    const log: string[] = [];
    const T = 1_000_000;
    const times = (n: number, from: number, to: number) =>
      Array.from({ length: n }, () => Math.floor(from + rnd() * (to - from)));
    const pick = <X>(xs: X[]) => xs[Math.floor(rnd() * xs.length)]!;
    // Many ties: the set kind's times are drawn from a few hundred moments, some of them the other kinds' too.
    const moments = times(300, T - 400, T + 6000);
    const setItems = Array.from({ length: 1500 }, (_, i) => ({ at: pick(moments), id: `s${i}` }));
    const before = kind(
      'before',
      times(40, T - 300, T + 6000)
        .map((at, i) => ({ at: rnd() < 0.5 ? pick(moments) : at, id: `b${i}` }))
        .sort((a, b) => a.at - b.at),
      log,
    );
    const setKind = kind('set', setItems, log, sets ? { sets: { horizonMs: 700 } } : {});
    let made = 0;
    const after = kind(
      'after',
      times(40, T - 300, T + 6000).map((at, i) => ({ at: rnd() < 0.5 ? pick(moments) : at, id: `a${i}` })),
      log,
      // each of these makes a new item of the set kind, due a little later
      { onRun: (item) => setKind.items.push({ at: item.at + 37, id: `made${made++}` }) },
    );
    return { log, work: [before, setKind, after], T };
  }

  it('run exactly what one item at a time runs, in the same order, with the same `ran` and the same clock', async () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const one = scenario(seed, false);
      const many = scenario(seed, true);
      const c1 = clockAt(one.T);
      const c2 = clockAt(many.T);
      const target = one.T + 5000;
      const store = new ScopedStore(memoryEngine());
      const ran1 = await drive(store, c1, one.work, target);
      const ran2 = await drive(store, c2, many.work, target);
      expect(one.log.length).toBeGreaterThan(1000);
      expect(ran1.filter((r) => r.count > 1).length).toBeGreaterThan(10); // overdue batches, ties
      expect(many.log).toEqual(one.log);
      expect(ran2).toEqual(ran1);
      expect(c2.t).toBe(c1.t);
    }
  });

  it('go on after a step whose transaction was given up for a conflict, and run each item once', async () => {
    // An engine that aborts the first transactions in which a set's claim is made, as PostgreSQL aborts one of two
    // transactions that met: the claim throws, and the transaction it was in is undone, item writes and all.
    const log: string[] = [];
    const items = Array.from({ length: 3000 }, (_, i) => ({ at: 1000 + Math.floor(i / 3), id: `s${i}` }));
    const work = kind('set', items, log, { sets: { horizonMs: 1e9 } });
    let aborts = 3;
    const sets = work.inSets!;
    const runSet = sets.runSet.bind(sets);
    /** The items done in the transaction open now: undone with it. */
    let open: { done?: boolean }[] = [];
    (sets as { runSet: typeof runSet }).runSet = async (...args) => {
      if (aborts > 0 && open.length > 0) {
        aborts--;
        throw Object.assign(new Error('could not serialize access due to concurrent update'), { code: '40001' });
      }
      const before = work.items.filter((i) => i.done).length;
      const n = await runSet(...args);
      open.push(...work.items.filter((i) => i.done).slice(before));
      return n;
    };
    let failed = false;
    const engine: Store = {
      ...memoryEngine(),
      tx: async (fn) => {
        try {
          return await fn();
        } catch (err) {
          failed = true; // as PostgreSQL's store dooms a transaction whose part met a conflict
          throw err;
        }
      },
      alone: async (fn) => {
        open = [];
        failed = false;
        const r = await fn();
        if (failed) {
          // undone: the writes of this transaction, and the log's lines of them
          for (const item of open) item.done = false;
          log.splice(log.length - open.length, open.length);
          throw new Error('the transaction was aborted for a conflict');
        }
        return r;
      },
    };
    const store = new ScopedStore(engine);
    const clock = transactionalClock(store, 0);
    const yielded: unknown[] = [];
    // A step ends only when it gives up (no step budget runs out): a second set in a step meets the conflict.
    const scheduler = new Scheduler(store, clock, [work], () => 0);
    const steps = scheduler.advance('acct', 5000);
    const watched = (async function* () {
      for (;;) {
        const r = await steps.next();
        if (r.done) return r.value;
        yielded.push(r.value);
        yield r.value;
      }
    })();
    const ran = await runSteps(store, watched);
    expect(yielded.filter((y) => y === AGAIN).length).toBe(3);
    expect(log).toEqual(items.map((i) => `set ${i.id}`));
    expect(ran).toEqual(Array.from({ length: 1000 }, (_, m) => ({ name: 'set', at: iso(1000 + m), count: 3 })));
    expect(clock.t).toBe(5000);
  });
});
