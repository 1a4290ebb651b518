// The payments area's persistence on PostgreSQL: payments, bank accounts, vault and network tokens (the same answers
// as adapters/sqlite/payments.ts). The settlements due are claimed by the query that reads them, and a customer's
// one default bank account is kept by a unique index (claim.ts).
import type {
  PaymentsPort,
  ProcessorStatus,
  StoredBankAccount,
  StoredNetworkToken,
  StoredPayment,
  StoredVaultToken,
} from '../../domain/payments/persistence.js';
import { tables } from '../../store/tables.js';
import type { PostgresDatabase } from './db.js';
import { pgDocuments } from './documents.js';
import { claimDue, docsOf, earliest } from './claim.js';
import { moveChangeMark } from './core.js';
import { pgQuery } from './query.js';

export function pgPaymentsStore(store: PostgresDatabase): PaymentsPort {
  return {
    payments: pgDocuments<StoredPayment>(store, tables.payments),
    // One default per customer (bank_accounts_default): two accounts made default at once conflict.
    bankAccounts: pgDocuments<StoredBankAccount>(store, tables.bank_accounts, ['bank_accounts_default']),
    vaultTokens: pgDocuments<StoredVaultToken>(store, tables.vault_tokens),
    networkTokens: pgDocuments<StoredNetworkToken>(store, tables.network_tokens),
    async ofSession(accountId, sessionId) {
      return docsOf<StoredPayment>(
        store,
        'SELECT data FROM payments WHERE account_id = $1 AND session_id = $2 ORDER BY seq',
        [accountId, sessionId],
      );
    },
    async sessionsWithPayments(accountId, sessionIds) {
      if (sessionIds.length === 0) return [];
      const rows = await pgQuery<{ session_id: string }>(
        store.current(),
        'SELECT DISTINCT session_id FROM payments WHERE account_id = $1 AND session_id = ANY($2::text[])',
        [accountId, sessionIds as string[]] as never[],
      );
      return rows.map((r) => r.session_id);
    },
    async nextSettlement(accountId) {
      return earliest(
        store,
        "SELECT MIN(settle_ms) AS t FROM payments WHERE account_id = $1 AND status = 'pending' AND settle_ms IS NOT NULL",
        accountId,
      );
    },
    async dueSettlements(now, accountId, limit) {
      return claimDue<StoredPayment>(
        store,
        'payments',
        "status = 'pending' AND settle_ms IS NOT NULL AND settle_ms <= $1",
        now,
        accountId,
        limit,
      );
    },
    async bankAccountsOfCustomer(accountId, customerId) {
      return docsOf<StoredBankAccount>(
        store,
        'SELECT data FROM bank_accounts WHERE account_id = $1 AND customer_id = $2 ORDER BY seq',
        [accountId, customerId],
      );
    },
    processorMarks: () =>
      pgQuery<{ account_id: string; psp: string; status: ProcessorStatus }>(
        store.current(),
        'SELECT account_id, psp, status FROM processor_marks ORDER BY account_id COLLATE "C", psp COLLATE "C"',
        [],
      ),
    async markProcessor(accountId, psp, status) {
      await pgQuery(
        store.current(),
        'INSERT INTO processor_marks (account_id, psp, status) VALUES ($1, $2, $3) ON CONFLICT (account_id, psp) DO UPDATE SET status = excluded.status',
        [accountId, psp, status],
      );
      await moveChangeMark(store);
    },
  };
}
