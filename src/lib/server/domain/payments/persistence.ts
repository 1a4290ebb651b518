// What the payments area keeps, in its own words: its payments, bank accounts, vault tokens and network tokens,
// and the few reads its rules make beyond one document by id (a session's payments, the ACH debits due to
// settle, a customer's bank accounts). Each store adapter implements it (SQLite: sqlitePaymentsStore).
import type { Documents } from '../../store/seam.js';
import type { StoredPayment } from './records.js';
import type { StoredBankAccount } from './bankaccounts.js';
import type { StoredNetworkToken, StoredVaultToken } from './cards.js';

/** A stored document and the account it belongs to (due work reads across accounts). */
export interface OfAccount<T> {
  accountId: string;
  doc: T;
}

export interface PaymentsStore {
  readonly payments: Documents<StoredPayment>;
  readonly bankAccounts: Documents<StoredBankAccount>;
  /** Vault tokens belong to no merchant account: stored under the account id `''`. */
  readonly vaultTokens: Documents<StoredVaultToken>;
  readonly networkTokens: Documents<StoredNetworkToken>;
  /** The payments of a session, oldest first (all of them). */
  ofSession(accountId: string, sessionId: string): Promise<StoredPayment[]>;
  /** The earliest settlement time (ms) of the account's pending ACH debits, or undefined when none waits. */
  nextSettlement(accountId: string): Promise<number | undefined>;
  /**
   * The pending ACH debits due to settle at `now` (settlement time <= now), of one account or of every account,
   * oldest first, at most `limit` of them (-1: all). Read inside the caller's write transaction, which settles them.
   */
  dueSettlements(now: number, accountId: string | undefined, limit: number): Promise<OfAccount<StoredPayment>[]>;
  /** The bank accounts of a customer, oldest first (all of them). */
  bankAccountsOfCustomer(accountId: string, customerId: string): Promise<StoredBankAccount[]>;
}
