// The ledger's port: what it asks of storage (its rows, the reads its rules need, a journal entry posted with its
// lines and balances), in its own words; each engine's adapter implements it.
import type { JournalEntry, LedgerAccount, LedgerAccountEvent, LedgerEntry, Hold } from '../../../contract/ledger.js';
import type { Documents, Owned } from '../../store/seam.js';

export type StoredAccount = Omit<LedgerAccount, 'recent_entries' | 'active_holds'> & { system_key: string | null };
export type StoredJournal = Omit<JournalEntry, 'reversed_by'>;
export type StoredEntry = LedgerEntry & { delta: number };
export type StoredHold = Hold & { expires_ms: number | null };

/**
 * What the ledger keeps: its accounts, journal entries, entries (one per line of a journal entry, with the
 * account's running balance), holds and account events; the reads its rules need; and a journal entry posted with
 * its lines and balances. Every method runs in the caller's transaction.
 */
export interface LedgerPort {
  readonly accounts: Documents<StoredAccount>;
  readonly journals: Documents<StoredJournal>;
  readonly entries: Documents<StoredEntry>;
  readonly holds: Documents<StoredHold>;
  readonly events: Documents<LedgerAccountEvent>;
  /** Whether the account has a ledger account numbered `accountNumber` (of any status). */
  accountNumberTaken(accountId: string, accountNumber: string): Promise<boolean>;
  /**
   * Those of the ledger accounts `ids` (of the account) that exist, in any order: one read where the engine pays for
   * each (PostgreSQL), a read by id each where it does not (SQLite).
   */
  accountsOf(accountId: string, ids: readonly string[]): Promise<StoredAccount[]>;
  /** Those of the account's system accounts with the keys `keys` that exist, in one read (creation order). */
  systemAccounts(accountId: string, keys: readonly [string, string]): Promise<StoredAccount[]>;
  /** The last `limit` entries posted to a ledger account, newest first (however long its history, one indexed read). */
  recentEntries(accountId: string, ledgerAccountId: string, limit: number): Promise<StoredEntry[]>;
  /** A ledger account's active holds, oldest first. */
  activeHolds(accountId: string, ledgerAccountId: string): Promise<StoredHold[]>;
  /** The id of the journal entry that reverses `journalEntryId` (the first posted, if ever several), or null. */
  reversalOf(accountId: string, journalEntryId: string): Promise<string | null>;
  /**
   * Posts a journal entry with its lines and balances: stores each of `lines` in order, then writes `balances`
   * (each ledger account the entry moves, as read in this transaction, with its new balance), then the journal
   * entry itself. Nothing is checked here: the ledger checked everything before.
   */
  postJournalEntry(
    accountId: string,
    journal: StoredJournal,
    lines: StoredEntry[],
    balances: StoredAccount[],
  ): Promise<void>;
  /** The earliest `expires_ms` among the account's active holds, if any. */
  nextHoldExpiry(accountId: string): Promise<number | undefined>;
  /**
   * The active holds whose `expires_ms` is at or before `now` (of one account, or of all), in creation order, at most
   * `limit` of them (all when -1).
   */
  expiredHolds(now: number, accountId: string | undefined, limit: number): Promise<Owned<StoredHold>[]>;
  /**
   * Per currency, the debits and credits summed over every entry of the account; and the ledger accounts whose
   * stored balance differs from the sum of their entries.
   */
  audit(accountId: string): Promise<{
    currencies: { currency: string; debits: number; credits: number }[];
    mismatched: string[];
  }>;
}
