// What the payments area keeps, in its own words: its payments, bank accounts, vault tokens and network tokens,
// and the few reads its rules make beyond one document by id (a session's payments, the ACH debits due to
// settle, a customer's bank accounts). Each store adapter implements it (SQLite: sqlitePaymentsStore).
// The stored shapes are declared here with the port: the rules that use them (records.ts, cards.ts,
// bankaccounts.ts …) import the port, and the port imports none of them.
import type { Static } from '@sinclair/typebox';
import type { BankAccount, CardDetails, Payment } from '../../../contract/payments.js';
import type { Documents, Owned } from '../../store/seam.js';
import type { CardOutcome } from '../testcards.js';

/** What a payment keeps of its 3D Secure authentication. */
export interface ThreeDSRecord {
  status: 'challenge_required' | 'authenticated' | 'failed';
  authentication_value: string | null;
  eci: string | null;
  ds_transaction_id: string;
  liability_shift: boolean;
}

/** What a test ACH debit from this account does at settlement. */
export type AchOutcome = 'settles' | 'insufficient_funds';

/** What is stored: the API object plus the test behaviour needed later (never a card or account number). */
export type StoredPayment = Omit<Payment, 'routing' | 'three_d_secure' | 'routing_profile_id'> & {
  /** `forced` when the confirm named a processor (absent on payments stored before it was kept). */
  selection_reason?: 'forced' | 'routing_rules';
  routing_profile_id?: string | null;
  card_outcome: CardOutcome | null;
  ach_outcome: AchOutcome | null;
  settle_ms: number | null;
  threeds: ThreeDSRecord | null;
};

export type StoredBankAccount = Omit<BankAccount, 'created_at'> & {
  /** AES-GCM sealed full numbers */
  account_number_sealed: string;
  routing_number_sealed: string;
  microdeposit_expires_ms: number | null;
};

/** What is kept of a card: brand, last4 and expiry, never its number. */
export type Card = Static<typeof CardDetails>;

export interface StoredVaultToken {
  id: string;
  card: Card;
  /** The predefined test token whose behaviour this card has (tok_visa when the number is not a test value). */
  behaves_as: string;
  created_ms: number;
}

export interface StoredNetworkToken {
  id: string;
  card: Card;
  behaves_as: string;
  network_token_last4: string;
  created_ms: number;
}

/** A processor's status as an account marked it (`POST /test-helpers/processors/{psp}`). */
export type ProcessorStatus = 'up' | 'down';

/** What the processors' marks keep: per account, the processors it marked up or down. */
export interface ProcessorMarksPort {
  /** Every account's marks. */
  processorMarks(): Promise<{ account_id: string; psp: string; status: ProcessorStatus }[]>;
  /**
   * Marks the account's processor up or down, in the caller's transaction, and moves the store's change mark with it
   * (AccountsPort.changeMark): every other process reads the marks again before its next request.
   */
  markProcessor(accountId: string, psp: string, status: ProcessorStatus): Promise<void>;
}

export interface PaymentsPort extends ProcessorMarksPort {
  readonly payments: Documents<StoredPayment>;
  readonly bankAccounts: Documents<StoredBankAccount>;
  /** Vault tokens belong to no merchant account: stored under the account id `''`. */
  readonly vaultTokens: Documents<StoredVaultToken>;
  readonly networkTokens: Documents<StoredNetworkToken>;
  /** The payments of a session, oldest first (all of them). */
  ofSession(accountId: string, sessionId: string): Promise<StoredPayment[]>;
  /** Of the account's sessions `sessionIds`, those that have a payment (each once, in no particular order). */
  sessionsWithPayments(accountId: string, sessionIds: readonly string[]): Promise<string[]>;
  /** The earliest settlement time (ms) of the account's pending ACH debits, or undefined when none waits. */
  nextSettlement(accountId: string): Promise<number | undefined>;
  /**
   * The pending ACH debits due to settle at `now` (settlement time <= now), of one account or of every account,
   * oldest first, at most `limit` of them (-1: all). Read inside the caller's write transaction, which settles them.
   */
  dueSettlements(now: number, accountId: string | undefined, limit: number): Promise<Owned<StoredPayment>[]>;
  /** The bank accounts of a customer, oldest first (all of them). */
  bankAccountsOfCustomer(accountId: string, customerId: string): Promise<StoredBankAccount[]>;
}
