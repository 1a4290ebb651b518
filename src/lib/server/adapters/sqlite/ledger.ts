// The ledger area's persistence in SQLite: accounts, journal entries and their lines, holds, account events.
import type { LedgerPort, StoredAccount, StoredEntry, StoredHold, StoredJournal } from '../../domain/ledger/port.js';
import type { LedgerAccountEvent } from '../../../contract/ledger.js';
import type { SqliteDatabase } from './db.js';
import { asyncDocuments, Collection } from './collection.js';
import { tables } from '../../store/tables.js';

export function sqliteLedgerStore(store: SqliteDatabase): LedgerPort {
  const accounts = new Collection<StoredAccount>(store, tables.ledger_accounts);
  const journals = new Collection<StoredJournal>(store, tables.journal_entries);
  const entries = new Collection<StoredEntry>(store, tables.ledger_entries);
  const holds = new Collection<StoredHold>(store, tables.ledger_holds);
  const events = new Collection<LedgerAccountEvent>(store, tables.ledger_account_events);
  return {
    accounts: asyncDocuments(accounts),
    journals: asyncDocuments(journals),
    entries: asyncDocuments(entries),
    holds: asyncDocuments(holds),
    events: asyncDocuments(events),

    async accountNumberTaken(accountId, accountNumber) {
      return accounts.selectWhere('account_id = ? AND account_number = ?', accountId, accountNumber).length > 0;
    },

    // A read by id each: a statement is cheap on SQLite, and the count per request stays as
    // test/store/hot-path-statements.test.ts has it.
    async accountsOf(accountId, ids) {
      const found: StoredAccount[] = [];
      for (const id of ids) {
        const a = accounts.get(accountId, id);
        if (a) found.push(a);
      }
      return found;
    },

    async systemAccounts(accountId, keys) {
      return accounts.selectWhere('account_id = ? AND system_key IN (?, ?)', accountId, ...keys).map((r) => r.doc);
    },

    async recentEntries(accountId, ledgerAccountId, limit) {
      // Straight off the (account_id, ledger_account_id, seq) index: no count, so the read stays O(1) however long the
      // history.
      const rows = store
        .statement(
          'SELECT data FROM ledger_entries WHERE account_id = ? AND ledger_account_id = ? ORDER BY seq DESC LIMIT ?',
        )
        .all(accountId, ledgerAccountId, limit) as { data: string }[];
      return rows.map((r) => JSON.parse(r.data) as StoredEntry);
    },

    async activeHolds(accountId, ledgerAccountId) {
      return holds
        .selectWhere('account_id = ? AND ledger_account_id = ? AND status = ?', accountId, ledgerAccountId, 'active')
        .map((r) => r.doc);
    },

    async reversalOf(accountId, journalEntryId) {
      return journals.selectWhere('account_id = ? AND reverses = ?', accountId, journalEntryId)[0]?.doc.id ?? null;
    },

    async postJournalEntry(accountId, journal, lines, balances) {
      for (const line of lines) entries.insert(accountId, line);
      for (const a of balances) accounts.update(accountId, a);
      journals.insert(accountId, journal);
    },

    async nextHoldExpiry(accountId) {
      const row = store
        .statement(`SELECT MIN(expires_ms) AS t FROM ledger_holds WHERE account_id = ? AND status = 'active'`)
        .get(accountId) as { t: number | null };
      return row.t ?? undefined;
    },

    async expiredHolds(now, accountId, limit) {
      return holds.selectFirst(
        limit,
        `status = 'active' AND expires_ms <= ?${accountId ? ' AND account_id = ?' : ''}`,
        now,
        ...(accountId ? [accountId] : []),
      );
    },

    async audit(accountId) {
      const currencies = store
        .statement(
          `SELECT currency, SUM(CASE WHEN direction = 'debit' THEN amount ELSE 0 END) AS debits, SUM(CASE WHEN direction = 'credit' THEN amount ELSE 0 END) AS credits
         FROM ledger_entries WHERE account_id = ? GROUP BY currency ORDER BY currency`,
        )
        .all(accountId) as { currency: string; debits: number; credits: number }[];
      const mismatched = (
        store
          .statement(
            `SELECT a.id FROM ledger_accounts a LEFT JOIN (SELECT ledger_account_id, SUM(delta) AS s FROM ledger_entries WHERE account_id = ? GROUP BY ledger_account_id) e
           ON e.ledger_account_id = a.id WHERE a.account_id = ? AND a.balance != COALESCE(e.s, 0)`,
          )
          .all(accountId, accountId) as { id: string }[]
      ).map((r) => r.id);
      return { currencies, mismatched };
    },
  };
}
