// The payments area's persistence in SQLite: payments, bank accounts, vault and network tokens.
import type {
  PaymentsPort,
  ProcessorStatus,
  StoredBankAccount,
  StoredNetworkToken,
  StoredPayment,
  StoredVaultToken,
} from '../../domain/payments/persistence.js';
import type { SqliteDatabase } from './db.js';
import { asyncDocuments, Collection } from './collection.js';
import { tables } from '../../store/tables.js';

export function sqlitePaymentsStore(store: SqliteDatabase): PaymentsPort {
  // One Collection per table, shared by every method: an update of a document read through it is the guarded
  // UPDATE (collection.ts), with no read of the row's columns first.
  const payments = new Collection<StoredPayment>(store, tables.payments);
  const bankAccounts = new Collection<StoredBankAccount>(store, tables.bank_accounts);
  return {
    payments: asyncDocuments(payments),
    bankAccounts: asyncDocuments(bankAccounts),
    vaultTokens: asyncDocuments(new Collection<StoredVaultToken>(store, tables.vault_tokens)),
    networkTokens: asyncDocuments(new Collection<StoredNetworkToken>(store, tables.network_tokens)),
    async ofSession(accountId, sessionId) {
      return payments.selectWhere('account_id = ? AND session_id = ?', accountId, sessionId).map((r) => r.doc);
    },
    async sessionsWithPayments(accountId, sessionIds) {
      if (sessionIds.length === 0) return [];
      // One statement whatever the number of ids (an IN list of `?` would prepare one per length).
      return store
        .statement(
          'SELECT DISTINCT session_id FROM payments WHERE account_id = ? AND session_id IN (SELECT value FROM json_each(?))',
        )
        .pluck()
        .all(accountId, JSON.stringify(sessionIds)) as string[];
    },
    async nextSettlement(accountId) {
      const row = store
        .statement(
          "SELECT MIN(settle_ms) AS t FROM payments WHERE account_id = ? AND status = 'pending' AND settle_ms IS NOT NULL",
        )
        .get(accountId) as { t: number | null };
      return row.t ?? undefined;
    },
    async dueSettlements(now, accountId, limit) {
      const cond = `status = 'pending' AND settle_ms IS NOT NULL AND settle_ms <= ?${accountId ? ' AND account_id = ?' : ''}`;
      return payments.selectFirst(limit, cond, now, ...(accountId ? [accountId] : []));
    },
    async bankAccountsOfCustomer(accountId, customerId) {
      return bankAccounts.selectWhere('account_id = ? AND customer_id = ?', accountId, customerId).map((r) => r.doc);
    },
    processorMarks: async () =>
      store.statement('SELECT account_id, psp, status FROM processor_marks ORDER BY account_id, psp').all() as {
        account_id: string;
        psp: string;
        status: ProcessorStatus;
      }[],
    // Another connection's write moves PRAGMA data_version by itself (AccountsPort.changeMark).
    async markProcessor(accountId, psp, status) {
      store
        .statement('INSERT OR REPLACE INTO processor_marks (account_id, psp, status) VALUES (?, ?, ?)')
        .run(accountId, psp, status);
    },
  };
}
