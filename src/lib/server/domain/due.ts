// Work that comes due with time: session expiry, ACH settlement, hold expiry, KYC decisions, trial ends,
// renewals, dunning retries, invoice due dates. Every area registers its DueWork; the scheduler is the one
// place that runs them — from the one clock, in time order, in bounded steps.
//
// The catch-up policy (docs/api.md "Time-driven work"): reads never run due work. It runs
//   - on a running server, from its tick (every second), for every account that has something due;
//   - when a test clock is advanced (POST /test-helpers/advance-clock), up to the new time;
//   - when the embedded default opens the data directory, before the command's request.
// A write that acts on one object whose time has come applies that object's own change first (confirming a
// session past its expiry finds it expired): that is part of the write, in its transaction.
import type { Clock } from '../clock.js';
import { runSteps, type Steps } from '../store/steps.js';
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
    let stepStarted = this.elapsed();
    for (let guard = 0; guard < 10_000_000; guard++) {
      const next = await this.next(accountId, target);
      if (!next) break;
      const now = this.clock.now(accountId);
      if (next.at > now) await this.clock.advance(accountId, next.at - now);
      const at = Math.max(next.at, now);
      const iso = new Date(at).toISOString();
      const note = (name: string, n: number) => {
        const last = runs[runs.length - 1];
        if (last && last.name === name && last.at === iso) last.count += n;
        else runs.push({ name, at: iso, count: n });
      };
      let tallied = 0;
      const count = await next.w.runDue(at, accountId, BATCH, (name) => {
        tallied++;
        note(name, 1);
      });
      if (count === 0) break; // nothing moved: stop rather than spin
      if (count > tallied) note(next.w.name, count - tallied);
      if (this.elapsed() - stepStarted >= STEP_BUDGET_MS) {
        yield;
        stepStarted = this.elapsed();
      }
    }
    const now = this.clock.now(accountId);
    if (target > now) await this.clock.advance(accountId, target - now);
    return runs;
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

  private async next(accountId: string, target: number): Promise<{ at: number; w: DueWork } | undefined> {
    let next: { at: number; w: DueWork } | undefined;
    for (const w of this.work) {
      const at = await w.nextDue(accountId);
      if (at !== undefined && at <= target && (!next || at < next.at)) next = { at, w };
    }
    return next;
  }
}
