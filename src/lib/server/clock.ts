// The clock every piece of time-dependent work reads. Real time plus a per-account offset that
// test-mode can advance (POST /test-helpers/advance-clock), persisted with the account.
import type { Store } from './store/seam.js';
import type { ChangeWatch } from './store/changes.js';
import { ScopedStore, type TxFrame } from './store/scoped.js';

export interface Clock {
  /** Milliseconds since the epoch as seen by `accountId` (from memory: see AccountClock). */
  now(accountId: string): number;
  /** Moves the account's clock forward by `ms` (never back); the account's new time. */
  advance(accountId: string, ms: number): Promise<number>;
  /** Every account, each with its clock (the scheduler's catch-up looks at each). */
  accounts(): Promise<string[]>;
}

/** What the accounts' clocks keep: each account's offset from real time, stored with the account. */
export interface ClockStore {
  /** The account's stored offset (ms); undefined when there is no such account. */
  offset(accountId: string): Promise<number | undefined>;
  /** Every account whose stored offset is not 0, with its offset (ms). */
  offsets(): Promise<[accountId: string, offsetMs: number][]>;
  /** Stores the account's offset (ms). */
  setOffset(accountId: string, offsetMs: number): Promise<void>;
  /** The ids of every account. */
  accounts(): Promise<string[]>;
}

/**
 * The accounts' clocks, each offset kept in memory: `now` is asked on every request's path and answers at once. The
 * offsets are read at start (`load`, before the first request: domain/services.ts), then follow this process's own
 * writes, and are read again whenever another connection has written to the store (`changes`: a clock advanced by
 * another server process on the same database, or by a command on the same data directory); an account this
 * process does not know of has offset 0 (a new account starts with it).
 *
 * Two ways to follow this process's own writes, after the store (Store.serial):
 * - one transaction's work at a time (SQLite): an advance is in memory at once, and a rollback puts back what it
 *   undid (`written`, `rolledBack`);
 * - transactions at once (a ScopedStore): an advance is noted in its transaction's frame — seen by that
 *   transaction's own work only — and in memory once that transaction has committed; it takes the account's stored
 *   offset in its transaction, so that of two processes advancing one clock the later never moves it back (and the
 *   engine aborts one of two that overlap).
 */
export class AccountClock implements Clock {
  /** The offsets: committed ones, and (one transaction at a time) those of the transaction in progress. */
  private readonly offsets = new Map<string, number>();
  /** The accounts whose offset was written since the last COMMIT, each with its offset before the first write. */
  private readonly written = new Map<string, number>();
  /** Moves at each write of an offset: a re-read that started before it does not replace what it wrote. */
  private writes = 0;
  /** Transactions at once: their frames (undefined: one transaction's work at a time). */
  private readonly frames?: ScopedStore;

  constructor(
    store: Store,
    private readonly stored: ClockStore,
    private readonly realNow: () => number = Date.now,
    changes?: ChangeWatch,
  ) {
    if (store instanceof ScopedStore) this.frames = store;
    else {
      store.onCommit(() => this.written.clear());
      // An advance undone by a rollback must not stay in memory (a group commit also runs requests again).
      store.onRollback(() => this.rolledBack());
    }
    changes?.onChange(() => this.reload());
  }

  /** Reads every account's stored offset (before the clocks are first asked). */
  async load(): Promise<void> {
    const offsets = await this.stored.offsets();
    this.offsets.clear();
    for (const [accountId, offset] of offsets) this.offsets.set(accountId, offset);
  }

  /**
   * Another connection has written: every offset again, as the store has it (with, one transaction at a time, the
   * one in progress). Not when this process wrote one meanwhile: it stays, and the next change reads them again.
   */
  private async reload(): Promise<void> {
    const writes = this.writes;
    const offsets = await this.stored.offsets();
    if (this.writes !== writes) return;
    this.offsets.clear();
    for (const [accountId, offset] of offsets) this.offsets.set(accountId, offset);
  }

  /** The account's offset as the caller's transaction sees it (`frame`: its frame, with transactions at once). */
  private offset(accountId: string, frame?: TxFrame): number {
    return frame?.get<number>(CLOCK + accountId) ?? this.offsets.get(accountId) ?? 0;
  }

  now(accountId: string): number {
    return this.realNow() + this.offset(accountId, this.frames?.frame());
  }

  async advance(accountId: string, ms: number): Promise<number> {
    if (!(ms >= 0)) throw new RangeError('the clock only moves forward');
    if (this.frames) return this.advanceInFrame(accountId, ms, this.frames.frame());
    const offset = this.offset(accountId) + ms;
    await this.stored.setOffset(accountId, offset);
    if (!this.written.has(accountId)) this.written.set(accountId, this.offset(accountId));
    this.offsets.set(accountId, offset);
    this.writes++;
    return this.now(accountId);
  }

  /**
   * An advance with transactions at once: by `ms` from the time the transaction sees, and never behind the stored
   * offset (another process may have moved it further meanwhile). Read, then written, in the transaction.
   */
  private async advanceInFrame(accountId: string, ms: number, frame: TxFrame | undefined): Promise<number> {
    const stored = (await this.stored.offset(accountId)) ?? 0;
    const offset = Math.max(this.offset(accountId, frame) + ms, stored);
    await this.stored.setOffset(accountId, offset);
    const committed = () => {
      this.offsets.set(accountId, offset);
      this.writes++;
    };
    if (frame) {
      frame.set(CLOCK + accountId, offset);
      frame.afterCommit(committed);
    } else committed(); // outside a transaction: the write committed on its own
    return this.realNow() + offset;
  }

  accounts(): Promise<string[]> {
    return this.stored.accounts();
  }

  /**
   * After a rollback the offsets written since the last COMMIT are what the store says: all of them undone (a
   * transaction), or only a savepoint's. Each goes back to its committed value at once, then to what the store
   * holds now (read at once: an engine that answers in a microtask has it before the caller goes on).
   */
  private rolledBack(): void {
    if (this.written.size === 0) return;
    const writes = this.writes;
    for (const [accountId, before] of this.written) {
      this.offsets.set(accountId, before);
      void this.stored.offset(accountId).then(
        (offset) => {
          if (this.writes === writes) this.offsets.set(accountId, offset ?? 0);
        },
        () => undefined, // the committed value stays
      );
    }
  }
}

/** The key of an account's offset in a transaction's frame. */
const CLOCK = 'clock ';

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * `new Date(ms).toISOString()`, computed directly for whole milliseconds in years 1970–9999 (the calendar
 * arithmetic is H. Hinnant's civil_from_days). Measured: toISOString ~0.9 µs a call, this ~0.2 µs; objects
 * carry several timestamps each. Anything else goes to Date.
 */
export function isoTime(ms: number): string {
  if (!(ms >= 0 && ms < 253402300800000) || !Number.isInteger(ms)) return new Date(ms).toISOString();
  const days = Math.floor(ms / 86400000);
  let t = ms - days * 86400000;
  const h = Math.floor(t / 3600000);
  t -= h * 3600000;
  const mi = Math.floor(t / 60000);
  t -= mi * 60000;
  const s = Math.floor(t / 1000);
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${y < 1000 ? String(y).padStart(4, '0') : y}-${pad2(m)}-${pad2(d)}T${pad2(h)}:${pad2(mi)}:${pad2(s)}.${pad3(t - s * 1000)}Z`;
}
export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);
