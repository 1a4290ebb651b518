// The ledger area's persistence on PostgreSQL (the same answers as adapters/sqlite/ledger.ts). The ledger reads,
// checks and then writes, with many transactions at once:
// - `postJournalEntry` locks the entry's accounts (FOR UPDATE, in id order: two entries queue instead of
//   deadlocking) and checks that each still has the balance, pending amount and status the ledger computed from. A
//   row changed since the snapshot cannot be locked (40001: run again), so postings, holds and freezes of one
//   account never lose one another; the check makes it so at any isolation level.
// - Uniqueness read by a query (an account number, a currency's system account, an entry's one reversal) is kept
//   by the unique indexes ledger_accounts_number, ledger_accounts_system, journal_entries_reverses: the second
//   insert fails on the index, a conflict like any other.
// - Holds expired by due work are claimed by the query that reads them (claim.ts).
import type { LedgerPort, StoredAccount, StoredEntry, StoredHold, StoredJournal } from '../../domain/ledger/port.js';
import type { LedgerAccountEvent } from '../../../contract/ledger.js';
import { tables } from '../../store/tables.js';
import type { PostgresDatabase } from './db.js';
import { pgDocuments } from './documents.js';
import { claimDue, conflict, docsOf, earliest } from './claim.js';
import { pgQuery } from './query.js';

/** The unique indexes whose violation means that a concurrent transaction inserted the same key first. */
const RACED = ['ledger_accounts_number', 'ledger_accounts_system', 'journal_entries_reverses'];

export function pgLedgerStore(store: PostgresDatabase): LedgerPort {
  const accounts = pgDocuments<StoredAccount>(store, tables.ledger_accounts, RACED);
  const journals = pgDocuments<StoredJournal>(store, tables.journal_entries, RACED);
  const entries = pgDocuments<StoredEntry>(store, tables.ledger_entries);
  const holds = pgDocuments<StoredHold>(store, tables.ledger_holds);
  const events = pgDocuments<LedgerAccountEvent>(store, tables.ledger_account_events);

  /**
   * Locks the rows of `balances` (in id order) and checks that each is what the ledger computed the new balance
   * from: its stored balance is the new one less this entry's lines, its pending amount and status unchanged.
   */
  const lockBalances = async (accountId: string, lines: StoredEntry[], balances: StoredAccount[]) => {
    const ids = [...new Set(balances.map((a) => a.id))].sort();
    const rows = await pgQuery<{ id: string; status: string; balance: number; pending: number }>(
      store.current(),
      `SELECT id, status, balance, pending FROM ledger_accounts WHERE account_id = $1 AND id IN (${ids.map((_, i) => `$${i + 2}`).join(', ')}) ORDER BY id FOR UPDATE`,
      [accountId, ...ids],
    );
    const moved = new Map<string, number>();
    for (const l of lines) moved.set(l.ledger_account_id, (moved.get(l.ledger_account_id) ?? 0) + l.delta);
    for (const a of balances) {
      const row = rows.find((r) => r.id === a.id);
      if (
        !row ||
        row.status !== a.status ||
        row.pending !== a.pending_balance ||
        row.balance !== a.balance - (moved.get(a.id) ?? 0)
      )
        throw conflict(`ledger account ${a.id} changed since the ledger read it`);
    }
  };

  return {
    accounts,
    journals,
    entries,
    holds,
    events,

    async accountNumberTaken(accountId, accountNumber) {
      const rows = await pgQuery(
        store.current(),
        'SELECT 1 FROM ledger_accounts WHERE account_id = $1 AND account_number = $2',
        [accountId, accountNumber],
      );
      return rows.length > 0;
    },

    async accountsOf(accountId, ids) {
      if (ids.length === 0) return [];
      return docsOf<StoredAccount>(
        store,
        `SELECT data FROM ledger_accounts WHERE account_id = $1 AND id IN (${ids.map((_, i) => `$${i + 2}`).join(', ')})`,
        [accountId, ...ids],
      );
    },

    async systemAccounts(accountId, keys) {
      return docsOf<StoredAccount>(
        store,
        'SELECT data FROM ledger_accounts WHERE account_id = $1 AND system_key IN ($2, $3) ORDER BY seq',
        [accountId, ...keys],
      );
    },

    async recentEntries(accountId, ledgerAccountId, limit) {
      // Straight off the (account_id, ledger_account_id, seq) index: no count, however long the history.
      return docsOf<StoredEntry>(
        store,
        'SELECT data FROM ledger_entries WHERE account_id = $1 AND ledger_account_id = $2 ORDER BY seq DESC LIMIT $3',
        [accountId, ledgerAccountId, limit],
      );
    },

    async activeHolds(accountId, ledgerAccountId) {
      return docsOf<StoredHold>(
        store,
        "SELECT data FROM ledger_holds WHERE account_id = $1 AND ledger_account_id = $2 AND status = 'active' ORDER BY seq",
        [accountId, ledgerAccountId],
      );
    },

    async reversalOf(accountId, journalEntryId) {
      const rows = await pgQuery<{ id: string }>(
        store.current(),
        'SELECT id FROM journal_entries WHERE account_id = $1 AND reverses = $2 ORDER BY seq LIMIT 1',
        [accountId, journalEntryId],
      );
      return rows[0]?.id ?? null;
    },

    async postJournalEntry(accountId, journal, lines, balances) {
      if (balances.length) await lockBalances(accountId, lines, balances);
      for (const line of lines) await entries.insert(accountId, line);
      for (const a of balances) await accounts.update(accountId, a);
      await journals.insert(accountId, journal);
    },

    async nextHoldExpiry(accountId) {
      return earliest(
        store,
        "SELECT MIN(expires_ms) AS t FROM ledger_holds WHERE account_id = $1 AND status = 'active'",
        accountId,
      );
    },

    async expiredHolds(now, accountId, limit) {
      return claimDue<StoredHold>(
        store,
        'ledger_holds',
        "status = 'active' AND expires_ms <= $1",
        now,
        accountId,
        limit,
      );
    },

    async audit(accountId) {
      const q = store.current();
      const currencies = await pgQuery<{ currency: string; debits: number; credits: number }>(
        q,
        `SELECT currency,
                SUM(CASE WHEN direction = 'debit' THEN amount ELSE 0 END)::bigint AS debits,
                SUM(CASE WHEN direction = 'credit' THEN amount ELSE 0 END)::bigint AS credits
           FROM ledger_entries WHERE account_id = $1 GROUP BY currency ORDER BY currency`,
        [accountId],
      );
      const mismatched = await pgQuery<{ id: string }>(
        q,
        `SELECT a.id FROM ledger_accounts a
           LEFT JOIN (SELECT ledger_account_id, SUM(delta)::bigint AS s FROM ledger_entries WHERE account_id = $1
                      GROUP BY ledger_account_id) e ON e.ledger_account_id = a.id
          WHERE a.account_id = $1 AND a.balance != COALESCE(e.s, 0) ORDER BY a.seq`,
        [accountId],
      );
      return { currencies: [...currencies], mismatched: mismatched.map((r) => r.id) };
    },
  };
}
