// The double-entry ledger (docs/api.md "Ledger"), the area's one service, built up job by job: accounts.ts <
// journals.ts < holds.ts < expiry.ts. Every operation runs in the request's transaction, checks before writes, so
// every committed instant keeps the invariants: per currency debits = credits; each balance (stored, exact
// integers) = the sum of its entries, changed only by `post` and `adjustPending` with the entry or hold they
// write; available ≥ 0 on non-system accounts; nothing posted to a frozen or closed account.
import { LedgerHoldExpiry } from './expiry.js';

export class Ledger extends LedgerHoldExpiry {
  /** For tests and operators: per currency debits vs credits, and every stored balance vs the sum of its entries. */
  audit(accountId: string): Promise<{
    currencies: { currency: string; debits: number; credits: number }[];
    mismatched: string[];
  }> {
    return this.stored.audit(accountId);
  }
}
