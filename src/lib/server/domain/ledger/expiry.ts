// Hold expiry, the ledger's due work: an active hold past its expires_at becomes expired and stops counting as
// pending. The scheduler runs it, and so does every write on a hold and a close, before anything else.
import type { Hold } from '../../../contract/ledger.js';
import { isoTime } from '../../clock.js';
import type { DueWork } from '../due.js';
import { toApiHold } from './base.js';
import { LedgerHolds } from './holds.js';
import type { StoredHold } from './port.js';

export abstract class LedgerHoldExpiry extends LedgerHolds implements DueWork {
  readonly name = 'ledger hold expiry';

  nextDue(accountId: string): Promise<number | undefined> {
    return this.stored.nextHoldExpiry(accountId);
  }

  override async runDue(now: number, accountId?: string, limit = -1): Promise<number> {
    const due = await this.stored.expiredHolds(now, accountId, limit);
    for (const { accountId: acct, doc } of due) await this.expireHold(acct, doc, now);
    return due.length;
  }

  private async expireHold(accountId: string, doc: StoredHold, now: number): Promise<void> {
    doc.status = 'expired';
    doc.expired_at = isoTime(doc.expires_ms ?? now);
    await this.endHold(accountId, doc, now, 'hold.expired', doc.expires_ms ?? now, {
      status: 'active',
      expired_at: null,
    });
  }

  /** Runs this one hold's expiry if its time has come (test triggers); returns the hold. */
  async expireHoldIfDue(accountId: string, id: string, now: number): Promise<Hold> {
    const hold = await this.holds.require(accountId, id, 'hold', 'hold_id');
    if (hold.status === 'active' && hold.expires_ms !== null && hold.expires_ms <= now)
      await this.expireHold(accountId, hold, now);
    return toApiHold(hold);
  }
}
