// What every job of the ledger builds on: its port and the event log, the API form of stored rows, and the hold
// expiry that writes run first (expiry.ts implements it).
import type { Direction, Hold, LedgerAccountEvent, LedgerEntry } from '../../../contract/ledger.js';
import type { EventType } from '../../../contract/events.js';
import type { Documents } from '../../store/seam.js';
import type { Events } from '../events.js';
import type { LedgerPort, StoredAccount, StoredEntry, StoredHold, StoredJournal } from './port.js';

export abstract class LedgerBase {
  readonly accounts: Documents<StoredAccount>;
  readonly journals: Documents<StoredJournal>;
  readonly entries: Documents<StoredEntry>;
  readonly holds: Documents<StoredHold>;
  readonly events: Documents<LedgerAccountEvent>;

  constructor(
    protected readonly stored: LedgerPort,
    protected readonly eventLog: Events,
  ) {
    this.accounts = stored.accounts;
    this.journals = stored.journals;
    this.entries = stored.entries;
    this.holds = stored.holds;
    this.events = stored.events;
  }

  /** Expires the holds (of one account, or of all) whose time has come; returns how many. */
  abstract runDue(now: number, accountId?: string, limit?: number): Promise<number>;

  /** Records `type` for `object` (as the API shows it) in the event log; returns the object. */
  protected async recorded<T extends { id: string; object: string }>(
    accountId: string,
    type: EventType,
    object: T,
    at: number,
    previous?: object,
  ): Promise<T> {
    await this.eventLog.record(accountId, type, object, { at, previous });
    return object;
  }
}

export const opposite = (d: Direction): Direction => (d === 'debit' ? 'credit' : 'debit');

export function toApiEntry(e: StoredEntry): LedgerEntry {
  const { delta: _d, ...rest } = e;
  return rest;
}

export function toApiHold(h: StoredHold): Hold {
  const { expires_ms: _e, ...rest } = h;
  return rest;
}
