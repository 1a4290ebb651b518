// Making an invoice from a draft: its document, its lines with the coupon's discount line, its totals; stored as
// a draft, or only previewed (invoice.upcoming's object).
import type { Invoice, LineItem } from '../../../contract/billing.js';
import { DAY_S } from '../../../contract/time.js';
import { formatMoney } from '../../../format/values.js';
import { unixSeconds } from '../../clock.js';
import { newId } from '../../ids.js';
import type { InvoiceRecords } from './invoice-records.js';
import { percentOf } from './money.js';
import type { PendingLine, StoredDiscount, StoredInvoice } from './store.js';

/** What an invoice is made from: its lines before ids, the discount line and totals are added. */
export interface InvoiceDraft {
  customer: string;
  subscription: string | null;
  currency: string;
  collection_method: 'charge_automatically' | 'send_invoice';
  days_until_due: number | null;
  billing_reason: string;
  description: string | null;
  period_start: number;
  period_end: number;
  lines: PendingLine[];
  discount: StoredDiscount | null;
  metadata: Record<string, string>;
}

/** A renewal invoice's preview (invoice.upcoming): an invoice not made yet, so without ids or a page. */
export type UpcomingInvoice = Omit<Invoice, 'id' | 'hosted_invoice_url' | 'lines'> & {
  lines: { object: 'list'; data: Omit<LineItem, 'id'>[] };
};

export class InvoiceDrafts {
  constructor(private readonly records: InvoiceRecords) {}

  /** The discount line for `lines` (or none): applies to lines of the coupon's products, never below zero. */
  private discountLine(
    d: StoredDiscount | null,
    lines: PendingLine[],
    currency: string,
    periodStart: number,
  ): PendingLine | null {
    if (!d || d.used) return null;
    if (d.end !== null && periodStart >= d.end) return null;
    const c = d.coupon;
    const products = c.applies_to?.products;
    const base = lines
      .filter((l) => !products || (l.price && products.includes(l.price.product)))
      .reduce((a, l) => a + l.amount, 0);
    if (base <= 0) return null;
    const off = c.percent_off !== null ? percentOf(base, c.percent_off) : Math.min(c.amount_off ?? 0, base);
    if (off <= 0) return null;
    const what = c.percent_off !== null ? `${c.percent_off}% off` : `${formatMoney(c.amount_off, currency)} off`;
    return {
      type: 'discount',
      amount: -off,
      currency,
      description: `Discount: ${c.name ?? c.id} (${what})`,
      price: null,
      quantity: null,
      period: { start: periodStart, end: periodStart },
    };
  }

  private totals(inv: StoredInvoice): void {
    const items = inv.lines.data.filter((l) => l.type !== 'discount');
    const discount = -inv.lines.data.filter((l) => l.type === 'discount').reduce((a, l) => a + l.amount, 0);
    inv.subtotal = items.reduce((a, l) => a + l.amount, 0);
    inv.discount_amount = discount;
    inv.tax = 0;
    inv.total = inv.subtotal - discount + inv.tax;
    inv.amount_due = Math.max(0, inv.total);
    inv.amount_remaining = Math.max(0, inv.amount_due - inv.amount_paid);
  }

  /**
   * Lines + discount line from the draft's item lines (replacing any earlier discount line). `lineId` names
   * each line (a preview's lines have none: they are not stored).
   */
  setLines(inv: StoredInvoice, lines: PendingLine[], lineId: () => string = () => newId('il')): void {
    const items = lines.filter((l) => l.type !== 'discount');
    const dl = this.discountLine(inv.discount, items, inv.currency, inv.period_start);
    const all = dl ? [...items, dl] : items;
    inv.lines = {
      object: 'list',
      data: all.map((l): LineItem => ({
        id: lineId(),
        object: 'line_item',
        coupon: l.type === 'discount' ? inv.discount!.coupon.id : null,
        ...l,
      })),
    };
    this.totals(inv);
  }

  /** A draft invoice from `draft` (stored). A `once` discount is used up by it. */
  async build(accountId: string, draft: InvoiceDraft, now: number): Promise<StoredInvoice> {
    const inv = this.compose(draft, newId('in'), now);
    this.setLines(inv, draft.lines);
    if (draft.discount && draft.discount.coupon.duration === 'once') draft.discount.used = true;
    await this.records.stored.invoices.insert(accountId, inv);
    await this.records.record(accountId, 'invoice.created', inv, now);
    return inv;
  }

  /**
   * The invoice `draft` would make, as the API would show it, without making it (nothing stored, no event, the
   * discount not used): invoice.upcoming's object. It has no `id` (none exists yet), no `hosted_invoice_url`
   * and no line ids; `next_payment_attempt` (charge_automatically) or `due_date` (send_invoice) say when it
   * will be collected, counted from `collectAt` (Unix s).
   */
  preview(draft: InvoiceDraft, collectAt: number, now: number): UpcomingInvoice {
    const inv = this.compose(draft, '', now);
    this.setLines(inv, draft.lines, () => '');
    if (inv.collection_method === 'charge_automatically') inv.next_payment_attempt = collectAt;
    else inv.due_date = collectAt + (inv.days_until_due ?? 0) * DAY_S;
    const { id: _id, hosted_invoice_url: _h, ...rest } = this.records.toApi(inv, '', now);
    return { ...rest, lines: { object: 'list', data: rest.lines.data.map(({ id: _l, ...line }) => line) } };
  }

  private compose(draft: InvoiceDraft, id: string, now: number): StoredInvoice {
    return {
      id,
      object: 'invoice',
      number: null,
      customer: draft.customer,
      subscription: draft.subscription,
      billing_reason: draft.billing_reason,
      collection_method: draft.collection_method,
      currency: draft.currency,
      description: draft.description,
      status: 'draft',
      subtotal: 0,
      discount_amount: 0,
      tax: 0,
      total: 0,
      amount_due: 0,
      amount_paid: 0,
      amount_remaining: 0,
      paid: false,
      attempt_count: 0,
      next_payment_attempt: null,
      last_payment_error: null,
      payment_id: null,
      discount: draft.discount ? { ...draft.discount } : null,
      days_until_due: draft.days_until_due,
      due_date: null,
      period_start: draft.period_start,
      period_end: draft.period_end,
      finalized_at: null,
      paid_at: null,
      voided_at: null,
      marked_uncollectible_at: null,
      lines: { object: 'list', data: [] },
      metadata: draft.metadata,
      created: unixSeconds(now),
      livemode: false,
      first_failed_at: null,
      action_kind: null,
      action_ms: null,
    };
  }
}
