// ACH settlement: a confirmed ACH debit stays pending until it settles on the account's clock, then it is
// captured or returned (the test bank account decides). Run by the scheduler as DueWork, each settlement
// inside its transaction.
import type { SessionStatus } from '../../../contract/sessions.js';
import type { Sessions } from '../sessions.js';
import type { DueWork } from '../due.js';
import { isoTime } from '../../clock.js';
import type { PaymentRecords } from './records.js';
import type { StoredPayment } from './persistence.js';
import type { PaymentsPort } from './persistence.js';
import { DAY_MS } from '../../../contract/time.js';

/** An ACH debit settles this long after confirmation (test mode). */
export const ACH_SETTLE_MS = 2 * DAY_MS;

export class AchSettlement implements DueWork {
  readonly name = 'ach settlement';

  constructor(
    private readonly stored: PaymentsPort,
    private readonly records: PaymentRecords,
    private readonly sessions: Sessions,
  ) {}

  /** The processor accepted the debit: it is pending until it settles; returns the session status it leads to. */
  pending(p: StoredPayment, now: number): SessionStatus {
    p.status = 'pending';
    p.settle_ms = now + ACH_SETTLE_MS;
    p.settles_at = isoTime(p.settle_ms);
    return 'processing';
  }

  nextDue(accountId: string): Promise<number | undefined> {
    return this.stored.nextSettlement(accountId);
  }

  async runDue(now: number, accountId?: string, limit = -1): Promise<number> {
    const records = this.records;
    const due = await this.stored.dueSettlements(now, accountId, limit);
    for (const { accountId: acct, doc: p } of due) {
      const at = p.settle_ms!;
      p.settle_ms = null;
      let next: SessionStatus;
      if (p.ach_outcome === 'insufficient_funds') {
        records.fail(
          p,
          'insufficient_funds',
          'The ACH debit was returned: insufficient funds (R01).',
          'insufficient_funds',
        );
        next = 'failed';
      } else {
        next = records.authorized(p);
      }
      await records.collection.update(acct, p);
      await records.recordStatus(acct, p, at, 'pending');
      if (p.session_id) await this.sessions.transition(acct, p.session_id, at, ['processing'], next, 'settled');
      if (p.status === 'captured') await records.posted(acct, p, p.amount, at);
    }
    return due.length;
  }
}
