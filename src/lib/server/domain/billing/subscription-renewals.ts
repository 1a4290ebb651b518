// A subscription's due work, which the scheduler runs through due-work.ts when its time comes: a trial's end and the
// notice before it, a period's renewal (or its end, when set to cancel) and the invoice.upcoming notice before it.
import type { SubscriptionStatus } from '../../../contract/billing.js';
import { DAY_MS } from '../../../contract/time.js';
import type { Invoices } from './invoices.js';
import type { Owned, StoredSubscription } from './store.js';
import type { Period, SubscriptionInvoicing } from './subscription-invoicing.js';
import type { SubscriptionRecords } from './subscription-records.js';

/** subscription.trial_will_end is recorded this long before trial_end (at once for a shorter trial). */
export const TRIAL_WILL_END_MS = 3 * DAY_MS;

/**
 * invoice.upcoming is recorded this long before a renewal (Stripe's default notice); not at all for a period
 * no longer than it (a daily subscription), nor before a trial's end (that has subscription.trial_will_end).
 */
export const UPCOMING_NOTICE_MS = 3 * DAY_MS;

/** When invoice.upcoming is due for the period `s` is in: UPCOMING_NOTICE_MS before its end, if inside it. */
export function upcomingAt(
  s: Pick<StoredSubscription, 'status' | 'current_period_start' | 'current_period_end'>,
): number | null {
  if (s.status !== 'active' && s.status !== 'past_due') return null;
  const at = s.current_period_end * 1000 - UPCOMING_NOTICE_MS;
  return at > s.current_period_start * 1000 ? at : null;
}

/** A first period starts at `anchor` (a trial's end, a resume): the new billing_cycle_anchor, `active` from there. */
export function startCycle(s: StoredSubscription, invoicing: SubscriptionInvoicing, anchor: number): Period {
  s.billing_cycle_anchor = anchor;
  s.period_index = 0;
  const b = invoicing.bounds(s, 0);
  s.current_period_start = b.start;
  s.current_period_end = b.end;
  s.status = 'active';
  s.upcoming_ms = upcomingAt(s);
  return b;
}

export class SubscriptionRenewals {
  constructor(
    private readonly records: SubscriptionRecords,
    private readonly invoicing: SubscriptionInvoicing,
    private readonly invoices: Invoices,
  ) {}

  /** The trial is over: the first paid period starts at trial_end (the new billing_cycle_anchor). */
  async endTrial(accountId: string, s: StoredSubscription, now: number): Promise<void> {
    const before = await this.records.toApi(accountId, s, now);
    const end = s.trial_end ?? s.current_period_end;
    s.period_history.push({ start: s.current_period_start, end, invoice: null });
    s.trial_reminder_ms = null;
    if (s.cancel_at_period_end) {
      s.status = 'canceled';
      s.ended_at = end;
      await this.records.save(accountId, s);
      await this.records.record(accountId, 'subscription.canceled', s, now, before);
      return;
    }
    const b = startCycle(s, this.invoicing, end);
    const items = await this.records.stored.itemsOf(accountId, s.id);
    const out = await this.invoicing.invoiceAndCollect(
      accountId,
      s,
      await this.invoicing.licensedLines(accountId, items, b),
      'subscription_cycle',
      now,
    );
    await this.records.record(accountId, 'subscription.updated', out, now, before);
  }

  /** Due work on a trialing subscription: the trial's end, or 3 days before it the notice that it is near. */
  async trialDue(accountId: string, s: StoredSubscription, now: number): Promise<void> {
    const reminder = s.trial_reminder_ms;
    if (reminder == null || reminder > now) return await this.endTrial(accountId, s, now);
    s.trial_reminder_ms = null;
    await this.records.save(accountId, s);
    await this.records.record(accountId, 'subscription.trial_will_end', s, reminder);
  }

  /** The period is over: usage of the ended period in arrears + the next period in advance; or the end. */
  async renew(accountId: string, s: StoredSubscription, now: number): Promise<void> {
    const before = await this.records.toApi(accountId, s, now);
    await this.renewQuietly(accountId, s, now);
    const after = await this.records.load(accountId, s.id);
    await this.records.record(
      accountId,
      after.status === 'canceled' ? 'subscription.canceled' : 'subscription.renewed',
      after,
      now,
      before,
    );
  }

  private async renewQuietly(accountId: string, s: StoredSubscription, now: number): Promise<void> {
    const items = await this.records.stored.itemsOf(accountId, s.id);
    const ended = { start: s.current_period_start, end: s.current_period_end };
    const usage = await this.invoicing.usageLines(accountId, items, ended);
    const record = { ...ended, invoice: null as string | null };
    s.period_history.push(record);
    s.upcoming_ms = null;
    if (s.cancel_at_period_end) {
      s.status = 'canceled';
      s.ended_at = ended.end;
      if (usage.some((l) => l.amount !== 0) || s.pending_lines.length) {
        const after = await this.invoicing.invoiceAndCollect(accountId, s, usage, 'subscription_final', now);
        after.period_history[after.period_history.length - 1]!.invoice = after.latest_invoice;
        await this.records.save(accountId, after);
        return;
      }
      await this.records.save(accountId, s);
      return;
    }
    s.period_index += 1;
    const b = this.invoicing.bounds(s, s.period_index);
    s.current_period_start = b.start;
    s.current_period_end = b.end;
    s.upcoming_ms = upcomingAt(s);
    const after = await this.invoicing.invoiceAndCollect(
      accountId,
      s,
      [...(await this.invoicing.licensedLines(accountId, items, b)), ...usage],
      'subscription_cycle',
      now,
    );
    after.period_history[after.period_history.length - 1]!.invoice = after.latest_invoice;
    await this.records.stored.subscriptions.update(accountId, after);
  }

  /** Due work on an active or past_due subscription: its renewal, or 3 days before it the invoice.upcoming notice. */
  async renewalDue(accountId: string, s: StoredSubscription, now: number): Promise<'renewal' | 'notice'> {
    const notice = s.upcoming_ms;
    if (notice == null || notice > now || notice >= s.current_period_end * 1000) {
      await this.renew(accountId, s, now);
      return 'renewal';
    }
    await this.notifyUpcoming(accountId, s, notice);
    return 'notice';
  }

  /**
   * invoice.upcoming for the renewal that ends the current period, dated `at`: the invoice the renewal would
   * make as things stand (the next period's licensed lines, the usage recorded so far, pending prorations, the
   * discount), once per period. A subscription set to cancel at period end has no renewal: nothing recorded.
   */
  async notifyUpcoming(accountId: string, s: StoredSubscription, at: number): Promise<void> {
    s.upcoming_ms = null;
    await this.records.save(accountId, s);
    if (s.cancel_at_period_end) return;
    const items = await this.records.stored.itemsOf(accountId, s.id);
    const next = this.invoicing.bounds(s, s.period_index + 1);
    const usage = await this.invoicing.usageLines(accountId, items, {
      start: s.current_period_start,
      end: s.current_period_end,
    });
    const preview = this.invoices.preview(
      {
        customer: s.customer,
        subscription: s.id,
        currency: s.currency,
        collection_method: s.collection_method,
        days_until_due: s.days_until_due,
        billing_reason: 'upcoming',
        description: null,
        period_start: next.start,
        period_end: next.end,
        lines: [...(await this.invoicing.licensedLines(accountId, items, next)), ...usage, ...s.pending_lines],
        discount: s.discount,
        metadata: {},
      },
      s.current_period_end,
      at,
    );
    await this.records.billing.events.record(accountId, 'invoice.upcoming', preview, { at, objectId: s.id });
  }

  nextDue(accountId: string, statuses: SubscriptionStatus[]): Promise<number | undefined> {
    return this.records.stored.nextSubscriptionDue(accountId, statuses);
  }

  due(
    statuses: SubscriptionStatus[],
    now: number,
    accountId?: string,
    limit = -1,
  ): Promise<Owned<StoredSubscription>[]> {
    return this.records.stored.subscriptionsDue(statuses, now, accountId, limit);
  }
}
