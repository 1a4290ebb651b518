// The clock every piece of time-dependent work reads. Real time plus a per-account offset that
// test-mode can advance (POST /test-helpers/advance-clock), persisted with the account.
import type { Store } from './store/db.js';

export interface Clock {
  /** Milliseconds since the epoch as seen by `accountId`. */
  now(accountId: string): number;
  /** Moves the account's clock forward by `ms` (never back). */
  advance(accountId: string, ms: number): number;
}

export class AccountClock implements Clock {
  private readonly offsets = new Map<string, number>();

  constructor(private readonly store: Store, private readonly realNow: () => number = Date.now) {}

  private offset(accountId: string): number {
    let offset = this.offsets.get(accountId);
    if (offset === undefined) {
      const row = this.store.db.prepare('SELECT clock_offset_ms FROM accounts WHERE id = ?').get(accountId) as
        | { clock_offset_ms: number }
        | undefined;
      offset = row?.clock_offset_ms ?? 0;
      this.offsets.set(accountId, offset);
    }
    return offset;
  }

  now(accountId: string): number {
    return this.realNow() + this.offset(accountId);
  }

  advance(accountId: string, ms: number): number {
    if (!(ms >= 0)) throw new RangeError('the clock only moves forward');
    const offset = this.offset(accountId) + ms;
    this.store.db.prepare('UPDATE accounts SET clock_offset_ms = ? WHERE id = ?').run(offset, accountId);
    this.offsets.set(accountId, offset);
    return this.now(accountId);
  }
}

export const isoTime = (ms: number): string => new Date(ms).toISOString();
export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);
