// Work that comes due with time (session expiry, ACH settlement, hold expiry, KYC, trials, renewals, dunning, invoice
// due dates): each area registers its DueWork; the Scheduler is the one place that runs them, from the one clock, in
// time order, in bounded steps — when docs/api.md "Time-driven work" says (the tick, an advance, the embedded open,
// after a write that made work due), never on a read. A write on an object whose time has come applies its change
// first, in the write's transaction (a confirm of a session past its expiry finds it expired).
import { isoTime, type Clock } from '../clock.js';
import { AGAIN, runSteps, type Steps } from '../store/steps.js';
import type { ScopedStore } from '../store/scoped.js';

export interface DueWork {
  readonly name: string;
  /** The earliest time (ms) at which something of this kind comes due for the account, if any. */
  nextDue(accountId: string): Promise<number | undefined>;
  /**
   * Runs what is due at or before `now` (for one account, or all), the earliest first, at most `limit` items
   * (all when absent). Returns how many ran. Each item is whole: its writes and nothing else. An item of another
   * kind than `name` (a renewal's notice among renewals: they share one due time per subscription) is told to
   * `tally` with its own name, for the advance's `ran`; the rest count under `name`.
   */
  runDue(now: number, accountId?: string, limit?: number, tally?: (name: string) => void): Promise<number>;
  /** Present when the kind's items may run many at once (DueSets). */
  readonly inSets?: DueSets;
}

/**
 * A kind of due work whose items may run in sets: each item is whole by itself and dated by its own due time (its
 * writes read no clock: they are the same whatever the clock shows when it runs), no item changes another of its
 * kind, and an item due at `t` makes nothing of another kind due before `t + horizonMs`. The scheduler then runs the
 * items due before the next item of any other kind (and the target) many per call, the clock moved once per set
 * rather than stopped at each item — with the same order, the same writes and the same `ran` as one item at a time.
 */
export interface DueSets {
  /** Nothing an item due at `t` writes makes work of another kind due before `t + horizonMs`. */
  readonly horizonMs: number;
  /**
   * Runs, of the account's items due at or before `until`, in order of their due times (then of their creation), the
   * first that `take` admits: each item's due time is offered to `take` in that order until it answers false (or
   * `limit` were admitted); the admitted run, in that order, and nothing else. Returns how many ran.
   */
  runSet(accountId: string, until: number, limit: number, take: (dueMs: number) => boolean): Promise<number>;
}

/**
 * Rows one retention item deletes at most (old events, webhook deliveries, resends): a retention area's runDue
 * `limit` counts items of this many rows.
 */
export const PRUNE_BATCH = 64;

export interface DueRun {
  name: string;
  at: string;
  count: number;
}

/** Items per runDue call inside a step. */
const BATCH = 8;
/** Items per DueSets.runSet call inside a step. */
export const SET = 512;
/** A step stops starting new items after this long (ms): other requests run between steps. */
export const STEP_BUDGET_MS = 25;

export class Scheduler {
  /**
   * Accounts a write made something due for at once (Hooks 'dueNow'), each once the write that woke it has committed
   * (another request's afterWrite must not run its catch-up before); a write whose catch-up another request took
   * waits for that one (`catchingUp`).
   */
  private readonly woken = new Set<string>();
  private catchingUp?: Promise<unknown>;
  /** Per account, the advances of its clock in progress (advance with a target ahead of it): how many, and their end. */
  private readonly moving = new Map<string, { n: number; ended: Promise<void>; end: () => void }>();

  constructor(
    private readonly store: ScopedStore,
    private readonly clock: Clock,
    private readonly work: DueWork[],
    private readonly elapsed: () => number = () => performance.now(),
  ) {}

  /**
   * Moves the account's clock to `target`, stopping at each moment something comes due so that work runs in
   * time order (a renewal before the dunning it causes), as steps. Deterministic for the same sequence of
   * calls: how the work is cut into steps changes nothing but the transactions.
   */
  async *advance(accountId: string, target: number): Steps<DueRun[]> {
    // A catch-up (target: the clock's time) moves nothing; an advance is in progress until it has ended.
    const moved = target > this.clock.now(accountId) ? this.noteAdvance(accountId) : undefined;
    try {
      return yield* this.steps(accountId, target);
    } finally {
      moved?.();
    }
  }

  /**
   * While an advance of the account's clock is in progress (between its first step and its end, whether it
   * finished or failed), when every such advance of it has ended; undefined otherwise. A seeded server's dispatcher
   * writes the outcomes of the account's deliveries after it (dispatch/dispatcher.ts).
   */
  advancing(accountId: string): Promise<void> | undefined {
    return this.moving.get(accountId)?.ended;
  }

  /** Notes an advance of the account's clock in progress; the function it answers notes its end (once). */
  private noteAdvance(accountId: string): () => void {
    let m = this.moving.get(accountId);
    if (!m) {
      let end!: () => void;
      const ended = new Promise<void>((resolve) => (end = resolve));
      this.moving.set(accountId, (m = { n: 0, ended, end }));
    }
    const entry = m;
    entry.n++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--entry.n > 0) return;
      if (this.moving.get(accountId) === entry) this.moving.delete(accountId);
      entry.end();
    };
  }

  private async *steps(accountId: string, target: number): Steps<DueRun[]> {
    const runs: DueRun[] = [];
    /** What this step ran, told to `runs` when the step ends (a step given up with AGAIN ran nothing). */
    let ran: DueRun[] = [];
    const note = (name: string, iso: string, n: number) => tally(ran, name, iso, n);
    const keep = () => {
      for (const r of ran) tally(runs, r.name, r.at, r.count);
      ran = [];
    };
    /** A set kind's batch that a set's end cut short: the next set of that kind goes on with it. */
    let batch: Batch | undefined;
    let batchAtStep = batch;
    let stepStarted = this.elapsed();
    for (let guard = 0; guard < 10_000_000; guard++) {
      let next = await this.next(accountId, target);
      if (batch) {
        // One at a time, a batch's items all ran before any kind was asked again.
        const d = next?.dues[batch.k];
        if (next && d !== undefined && d <= batch.at)
          next = { at: d, w: this.work[batch.k]!, k: batch.k, dues: next.dues };
        else batch = undefined;
      }
      if (!next) break;
      const now = this.clock.now(accountId);
      if (next.w.inSets) {
        const set = await this.runSet(accountId, target, next, now, note, batch);
        if (set.failed) {
          // Its transaction is given up (an engine that aborted it for a conflict dooms it): this step ran nothing,
          // and the next goes on from what is committed. Had it committed anyway, the failure was the set's own.
          let committed = !this.store.frame();
          this.store.frame()?.afterCommit(() => (committed = true));
          ran = [];
          batch = batchAtStep;
          yield AGAIN;
          if (committed) throw set.failed.err;
          stepStarted = this.elapsed();
          continue;
        }
        if (set.count === 0) break; // nothing moved: stop rather than spin
        batch = set.batch;
      } else {
        batch = undefined;
        if (next.at > now) await this.clock.advance(accountId, next.at - now);
        const iso = new Date(Math.max(next.at, now)).toISOString();
        let tallied = 0;
        const count = await next.w.runDue(Math.max(next.at, now), accountId, BATCH, (name) => {
          tallied++;
          note(name, iso, 1);
        });
        if (count === 0) break; // nothing moved: stop rather than spin
        if (count > tallied) note(next.w.name, iso, count - tallied);
      }
      if (this.elapsed() - stepStarted >= STEP_BUDGET_MS) {
        keep();
        yield;
        batchAtStep = batch;
        stepStarted = this.elapsed();
      }
    }
    const now = this.clock.now(accountId);
    if (target > now) await this.clock.advance(accountId, target - now);
    keep();
    return runs;
  }

  /**
   * A set of the kind `next` names (DueSets), up to SET items: the items that one item at a time would have run before
   * any other kind's, each told to `note` at the moment one at a time would have run it; then the clock moved once, to
   * the last of those moments. One at a time, the scheduler stops the clock at the kind's next due time (or, for what
   * is overdue, runs at the clock's time), runs up to BATCH items due by then, and asks every kind again; a kind goes
   * first when its next item is due before every other kind's, or at the same time and the kind is listed first.
   * `take` follows those rules item by item, the other kinds' next times as they were (an item of the set changes none
   * of them before its horizon), from `carried` when the last set ended inside a batch. Answers how many ran, and the
   * batch it ended inside, if any.
   */
  private async runSet(
    accountId: string,
    target: number,
    next: Next,
    now: number,
    note: (name: string, iso: string, n: number) => void,
    carried: Batch | undefined,
  ): Promise<{ count: number; batch?: Batch; failed?: { err: unknown } }> {
    const { w, k, dues } = next;
    const sets = w.inSets!;
    // What may run: by the target and every other kind's next time — and anything overdue (a batch at the clock's
    // time takes what is due by then, whatever comes due of other kinds before).
    let until = target;
    for (let j = 0; j < dues.length; j++) if (j !== k && dues[j] !== undefined) until = Math.min(until, dues[j]!);
    until = Math.max(until, now);
    /** Does an item of this kind due at `d` go before every other kind's next? */
    const first = (d: number) => {
      for (let j = 0; j < dues.length; j++) {
        const e = dues[j];
        if (j !== k && e !== undefined && (e < d || (e === d && j < k))) return false;
      }
      return true;
    };
    const horizon = next.at + sets.horizonMs;
    /** The moment (stopped clock) the batch being admitted runs at, how many it has, and the moment's ISO form. */
    let clock = now;
    let at = carried?.at ?? -Infinity;
    let inBatch = carried?.n ?? BATCH;
    let iso = carried ? isoTime(at) : '';
    const take = (d: number): boolean => {
      if (inBatch < BATCH && d <= at) {
        inBatch++;
      } else {
        if (d > target || d >= horizon || !first(d)) return false;
        at = clock = Math.max(d, clock);
        iso = isoTime(at);
        inBatch = 1;
      }
      note(w.name, iso, 1);
      return true;
    };
    let count: number;
    try {
      // In a part of its own: a failure there (a conflict with another transaction) leaves the step's transaction
      // knowing of it, and the scheduler gives the step up (AGAIN).
      count = await this.store.tx(() => sets.runSet(accountId, until, SET, take));
    } catch (err) {
      return { count: 0, failed: { err } };
    }
    const moved = this.clock.now(accountId);
    if (count > 0 && at > moved) await this.clock.advance(accountId, at - moved);
    return { count, batch: count > 0 && inBatch < BATCH ? { k, at, n: inBatch } : undefined };
  }

  /** Marks the account as having work due now (run by `afterWrite`). */
  wake(accountId: string): void {
    const frame = this.store.frame();
    if (frame) frame.afterCommit(() => this.woken.add(accountId));
    else this.woken.add(accountId);
  }

  /**
   * After a write has committed: what it made due at once, run before the write is answered (so that the
   * next read sees it), in steps. Nothing when no write woke an account (the usual case: no query).
   */
  afterWrite(): Promise<unknown> | undefined {
    if (this.woken.size === 0) return this.catchingUp;
    const accounts = [...this.woken];
    this.woken.clear();
    const run = runSteps(this.store, this.catchUp(accounts));
    const tracked: Promise<unknown> = run
      .catch(() => undefined)
      .then(() => {
        if (this.catchingUp === tracked) this.catchingUp = undefined;
      });
    this.catchingUp = tracked;
    return run;
  }

  /** What is due on the clocks of `accounts` (all when absent), as steps (the server's tick; the embedded default's start). */
  async *catchUp(accounts?: string[]): Steps<number> {
    const ids = accounts ?? (await this.clock.accounts());
    let n = 0;
    // Looking for what is due costs a few queries per account even when nothing is: the step budget holds
    // across accounts too (many accounts with nothing due must not make one long step).
    let stepStarted = this.elapsed();
    for (const id of ids) {
      const runs = yield* this.advance(id, this.clock.now(id));
      for (const r of runs) n += r.count;
      if (this.elapsed() - stepStarted >= STEP_BUDGET_MS) {
        yield;
        stepStarted = this.elapsed();
      }
    }
    return n;
  }

  /**
   * The kind whose work comes first (the earliest, the first listed at a tie), by `target`; every kind's next time.
   * Asked of every kind at once: reads of one transaction, which an engine of round trips sends together.
   */
  private async next(accountId: string, target: number): Promise<Next | undefined> {
    const dues = await Promise.all(this.work.map((w) => w.nextDue(accountId)));
    let next: Next | undefined;
    for (const [k, at] of dues.entries())
      if (at !== undefined && at <= target && (!next || at < next.at)) next = { at, w: this.work[k]!, k, dues };
    return next;
  }
}

/** Adds `n` runs of `name` at `iso` to `runs`: to its last entry when that is the same name at the same moment. */
function tally(runs: DueRun[], name: string, iso: string, n: number): void {
  const last = runs[runs.length - 1];
  if (last && last.name === name && last.at === iso) last.count += n;
  else runs.push({ name, at: iso, count: n });
}

/** A batch of a set kind (the kind's place in the list), at its moment, with `n` items so far. */
interface Batch {
  k: number;
  at: number;
  n: number;
}

/** The kind whose work comes next: its next time, itself, its place in the list, and every kind's next time. */
interface Next {
  at: number;
  w: DueWork;
  k: number;
  dues: (number | undefined)[];
}
