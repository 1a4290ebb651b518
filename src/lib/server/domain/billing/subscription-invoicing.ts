// What a subscription's invoices carry and how one is made: licensed items billed in advance, metered usage in
// arrears, over the periods its anchor and interval make; then the invoice, finalized and collected.
import { formatTime } from '../../../format/values.js';
import type { Invoices } from './invoices.js';
import { addInterval, priceAmount, prorate } from './money.js';
import type { PendingLine, StoredItem, StoredSubscription } from './store.js';
import type { SubscriptionRecords } from './subscription-records.js';
import { aggregateUsage } from './usage.js';

export type Period = { start: number; end: number };

export class SubscriptionInvoicing {
  constructor(
    private readonly records: SubscriptionRecords,
    private readonly invoices: Invoices,
  ) {}

  async productName(accountId: string, productId: string): Promise<string> {
    return (await this.records.stored.products.get(accountId, productId))?.name ?? productId;
  }

  /** The period `index` counted from the billing cycle anchor. */
  bounds(s: StoredSubscription, index: number): Period {
    return {
      start: addInterval(s.billing_cycle_anchor, s.interval, s.interval_count, index),
      end: addInterval(s.billing_cycle_anchor, s.interval, s.interval_count, index + 1),
    };
  }

  /** Length of a full period around the current one (the denominator of prorations). */
  fullLength(s: StoredSubscription): number {
    if (s.period_index >= 0) return s.current_period_end - s.current_period_start;
    return s.billing_cycle_anchor - addInterval(s.billing_cycle_anchor, s.interval, s.interval_count, -1);
  }

  /** Lines for licensed items over `period` (scaled by `fraction` for a prorated stub). */
  async licensedLines(
    accountId: string,
    items: StoredItem[],
    period: Period,
    fraction?: { num: number; den: number },
  ): Promise<PendingLine[]> {
    const out: PendingLine[] = [];
    for (const i of items) {
      const p = (await this.records.stored.prices.get(accountId, i.price))!;
      if (p.recurring?.usage_type === 'metered') continue;
      const full = priceAmount(p, i.quantity);
      out.push({
        type: 'subscription',
        amount: fraction ? prorate(full, fraction.num, fraction.den) : full,
        currency: p.currency,
        description: `${i.quantity} × ${await this.productName(accountId, p.product)}${fraction ? ' (prorated)' : ''} (${formatTime(period.start)} – ${formatTime(period.end)})`,
        price: { id: p.id, product: p.product },
        quantity: i.quantity,
        period,
      });
    }
    return out;
  }

  /** Usage lines of metered items for `period` (billed in arrears). */
  async usageLines(accountId: string, items: StoredItem[], period: Period): Promise<PendingLine[]> {
    const out: PendingLine[] = [];
    for (const i of items) {
      const p = (await this.records.stored.prices.get(accountId, i.price))!;
      if (p.recurring?.usage_type !== 'metered') continue;
      const q = await aggregateUsage(
        this.records.stored,
        accountId,
        i.id,
        p.recurring.aggregate_usage ?? 'sum',
        period.start,
        period.end,
      );
      out.push({
        type: 'usage',
        amount: priceAmount(p, q),
        currency: p.currency,
        description: `Usage: ${q} × ${await this.productName(accountId, p.product)} (${formatTime(period.start)} – ${formatTime(period.end)})`,
        price: { id: p.id, product: p.product },
        quantity: q,
        period,
      });
    }
    return out;
  }

  /**
   * Makes the subscription's next invoice from `lines` (+ pending prorations, + the discount), finalizes it
   * and collects it: a charge for charge_automatically, a due date for send_invoice. Returns the
   * subscription as stored afterwards (the invoice's outcome may have changed its status). Quietly: the caller
   * records the subscription's one event for all it does, so the invoice's outcome records none of its own.
   */
  async invoiceAndCollect(
    accountId: string,
    s: StoredSubscription,
    lines: PendingLine[],
    reason: string,
    now: number,
  ): Promise<StoredSubscription> {
    const inv = await this.invoices.build(
      accountId,
      {
        customer: s.customer,
        subscription: s.id,
        currency: s.currency,
        collection_method: s.collection_method,
        days_until_due: s.days_until_due,
        billing_reason: reason,
        description: null,
        period_start: s.current_period_start,
        period_end: s.current_period_end,
        lines: [...lines, ...s.pending_lines],
        discount: s.discount, // a `once` discount is marked used on this object
        metadata: {},
      },
      now,
    );
    s.pending_lines = [];
    s.latest_invoice = inv.id;
    await this.records.save(accountId, s);
    const open = await this.invoices.finalizeDoc(accountId, inv, now, true);
    if (open.status === 'open' && s.collection_method === 'charge_automatically')
      await this.invoices.attempt(accountId, open, now, { automatic: true, quiet: true });
    return await this.records.load(accountId, s.id);
  }
}
