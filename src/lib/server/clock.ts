// The clock every piece of time-dependent work reads. Real time plus a per-account offset that
// test-mode can advance (POST /test-helpers/advance-clock), persisted with the account.
import type { ChangeWatch } from './store/changes.js';
import type { ScopedStore, TxFrame } from './store/scoped.js';

export interface Clock {
  /** Milliseconds since the epoch as seen by `accountId` (from memory: see AccountClock). */
  now(accountId: string): number;
  /** Moves the account's clock forward by `ms` (never back); the account's new time. */
  advance(accountId: string, ms: number): Promise<number>;
  /** Every account, each with its clock (the scheduler's catch-up looks at each). */
  accounts(): Promise<string[]>;
}

/** What the accounts' clocks keep: each account's offset from real time, stored with the account. */
export interface ClockPort {
  /** The account's stored offset (ms); undefined when there is no such account. */
  offset(accountId: string): Promise<number | undefined>;
  /** Every account whose stored offset is not 0, with its offset (ms). */
  offsets(): Promise<[accountId: string, offsetMs: number][]>;
  /**
   * Stores the account's offset (ms), in the caller's transaction, and moves the store's change mark with it
   * (AccountsPort.changeMark): every other process reads the offsets again before its next request.
   */
  setOffset(accountId: string, offsetMs: number): Promise<void>;
  /** The ids of every account. */
  accounts(): Promise<string[]>;
}

/**
 * The accounts' clocks, offsets kept in memory (`now` is on every request's path). Read at start (`load`, before the
 * first request: domain/services.ts), then following this process's writes, and read again whenever the store's
 * change mark moves (another process's advance, a command's write on the same data directory); an unknown account
 * has offset 0. An advance is noted in its transaction's frame (store/scoped.ts), kept in memory once committed, and
 * takes the stored offset in its transaction, so that of two processes advancing one clock the later never moves it
 * back (the engine aborts one of two that overlap).
 */
export class AccountClock implements Clock {
  /** The committed offsets, as this process last read or wrote them. */
  private readonly offsets = new Map<string, number>();
  /** Moves at each committed write of an offset: a re-read that started before it does not replace what it wrote. */
  private writes = 0;

  constructor(
    private readonly store: ScopedStore,
    private readonly stored: ClockPort,
    private readonly realNow: () => number = Date.now,
    changes?: ChangeWatch,
  ) {
    changes?.onChange(() => this.reload());
  }

  /** Reads every account's stored offset (before the clocks are first asked). */
  async load(): Promise<void> {
    const offsets = await this.stored.offsets();
    this.offsets.clear();
    for (const [accountId, offset] of offsets) this.offsets.set(accountId, offset);
  }

  /**
   * The change mark moved: every offset again, as the store has it. Not when this process committed one meanwhile:
   * it stays, and the next change reads them again.
   */
  private async reload(): Promise<void> {
    const writes = this.writes;
    const offsets = await this.stored.offsets();
    if (this.writes !== writes) return;
    this.offsets.clear();
    for (const [accountId, offset] of offsets) this.offsets.set(accountId, offset);
  }

  /** The account's offset as the caller's transaction sees it (its own advance first). */
  private offset(accountId: string, frame: TxFrame | undefined): number {
    return frame?.get<number>(CLOCK + accountId) ?? this.offsets.get(accountId) ?? 0;
  }

  now(accountId: string): number {
    return this.realNow() + this.offset(accountId, this.store.frame());
  }

  /**
   * By `ms` from the time the transaction sees, and never behind the stored offset (another process may have moved it
   * further meanwhile). Read, then written, in the transaction; the store moves its change mark with the write.
   */
  async advance(accountId: string, ms: number): Promise<number> {
    if (!(ms >= 0)) throw new RangeError('the clock only moves forward');
    const frame = this.store.frame();
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
}

/** The key of an account's offset in a transaction's frame. */
const CLOCK = 'clock ';

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * `new Date(ms).toISOString()`, computed directly for whole milliseconds in years 1970–9999 (the calendar
 * arithmetic is H. Hinnant's civil_from_days): faster, and objects carry several timestamps each. Anything else
 * goes to Date.
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
