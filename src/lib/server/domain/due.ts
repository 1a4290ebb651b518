// Work that comes due with time (session expiry now; settlements, renewals, dunning, hold expiry later).
// Every area registers one DueWork; the scheduler runs them from the one clock, in time order.
import type { Clock } from '../clock.js';
import type { Store } from '../store/db.js';

export interface DueWork {
  readonly name: string;
  /** The earliest time (ms) at which something of this kind comes due for the account, if any. */
  nextDue(accountId: string): number | undefined;
  /** Runs everything due at or before `now` (for one account, or all). Returns how many items ran. */
  runDue(now: number, accountId?: string): number;
}

export interface DueRun {
  name: string;
  at: string;
  count: number;
}

export class Scheduler {
  constructor(private readonly store: Store, private readonly clock: Clock, private readonly work: DueWork[]) {}

  /** Runs what is due on every account's own clock (the server's periodic tick). */
  tick(): number {
    const accounts = this.store.db.prepare('SELECT id FROM accounts').all() as { id: string }[];
    let n = 0;
    for (const { id } of accounts) {
      const now = this.clock.now(id);
      for (const w of this.work) n += this.store.tx(() => w.runDue(now, id));
    }
    return n;
  }

  /**
   * Moves the account's clock to `target`, stopping at each moment something comes due so that work runs
   * in time order (a renewal before the dunning it causes). Deterministic for the same sequence of calls.
   */
  advanceTo(accountId: string, target: number): DueRun[] {
    const runs: DueRun[] = [];
    for (let guard = 0; guard < 100_000; guard++) {
      let next: { at: number; w: DueWork } | undefined;
      for (const w of this.work) {
        const at = w.nextDue(accountId);
        if (at !== undefined && at <= target && (!next || at < next.at)) next = { at, w };
      }
      if (!next) break;
      const now = this.clock.now(accountId);
      if (next.at > now) this.clock.advance(accountId, next.at - now);
      const at = Math.max(next.at, now);
      const count = this.store.tx(() => next!.w.runDue(at, accountId));
      if (count === 0) break; // nothing moved: stop rather than spin
      runs.push({ name: next.w.name, at: new Date(at).toISOString(), count });
    }
    const now = this.clock.now(accountId);
    if (target > now) this.clock.advance(accountId, target - now);
    return runs;
  }
}
