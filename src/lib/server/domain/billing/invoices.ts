// Invoices (docs/api.md "Billing"): draft → open (finalize); open, past_due → paid, void, uncollectible;
// uncollectible → paid, void; open → past_due when due_date passes. Anything else → 409
// invoice_unexpected_state. Lines carry periods; a coupon is applied as a discount line. `number` is
// sequential per account (assigned at finalization). Automatic collection charges through the Charger and,
// on failure, schedules the dunning retries (+1, +3, +7 days after the first failure).
import type {
  CreateInvoiceBody,
  Invoice,
  InvoiceStatus,
  LineItem,
  ListInvoicesQuery,
  PayInvoiceBody,
  Price,
  UpdateInvoiceBody,
  DeletedResource,
} from '../../../contract/billing.js';
import type { List } from '../../../contract/common.js';
import { unixSeconds } from '../../clock.js';
import { errors, ServiceError } from '../../errors.js';
import { Outcome, type Committed } from '../outcome.js';
import type { Hooks } from '../hooks.js';
import { newId } from '../../ids.js';
import { tooLargeToCharge, type Charger, type ChargeResult } from '../charges.js';
import { mergeMetadata, normalizeCurrency } from '../values.js';
import { discountApi, type Coupons } from './coupons.js';
import { percentOf, priceAmount } from './money.js';
import {
  assertBillable,
  subscriptionDue,
  type BillingContext,
  type PendingLine,
  type StoredDiscount,
  type StoredInvoice,
} from './store.js';
import { formatMoney } from '../../../format/values.js';
import type { EventType } from '../../../contract/events.js';
import type { StoredSubscription } from './store.js';
import { recordUpdate } from '../record.js';
import { hostedLinks } from '../links.js';
import { DAY_S } from '../../../contract/time.js';

/** Dunning: automatic retries this many days after the first failed attempt; after the last, uncollectible. */
export const RETRY_DAYS = [1, 3, 7] as const;

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

export type AttemptResult = { ok: true } | { ok: false; error: ServiceError };

/** How an invoice is collected (Invoices.attempt). */
export interface Collecting {
  /**
   * An attempt of the collection engine (creation, renewal, dunning retry): a failure schedules the next retry or,
   * after the last, makes the invoice uncollectible. A manual attempt (pay) only records the failure.
   */
  automatic: boolean;
  paymentMethod?: string;
  /**
   * The invoice is collected by an operation of its subscription that records one event for all it does (create,
   * resume, a trial's end, a renewal: subscriptions.ts): the status its outcome gives the subscription is not told
   * to `onSubscriptionStatus` (no subscription.updated of its own). Passed down the call, not kept in memory: with
   * an engine that runs transactions at once, another request's invoice of the same subscription is not quiet.
   */
  quiet?: boolean;
}

/** Called when an invoice's outcome changes its subscription's status (subscriptions.ts records the event). */
export type SubscriptionStatusListener = (
  accountId: string,
  sub: StoredSubscription,
  previousStatus: StoredSubscription['status'],
  now: number,
) => Promise<void>;

export class Invoices {
  constructor(
    private readonly billing: BillingContext,
    private readonly charger: Charger,
    private readonly coupons: Coupons,
    private readonly hooks?: Hooks,
  ) {}

  /** Set by the subscriptions: told when an invoice's outcome changes a subscription's status. */
  onSubscriptionStatus: SubscriptionStatusListener = async () => {};

  toApi(inv: StoredInvoice, baseUrl: string, now: number): Invoice {
    const { first_failed_at: _f, action_kind: _k, action_ms: _m, discount, ...rest } = inv;
    return { ...rest, discount: discountApi(discount, now), hosted_invoice_url: hostedLinks.invoice(baseUrl, inv.id) };
  }

  /** The invoice as the API shows it, for events (and for `previous` snapshots taken before a change). */
  private view(inv: StoredInvoice, now: number): Invoice {
    return this.toApi(inv, this.billing.publicUrl(), now);
  }

  private async record(
    accountId: string,
    type: EventType,
    inv: StoredInvoice,
    now: number,
    previous?: object,
  ): Promise<void> {
    await this.billing.events.record(accountId, type, this.view(inv, now), { at: now, previous });
  }

  // ------------------------------------------------------------------------------------------ building

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
  private setLines(inv: StoredInvoice, lines: PendingLine[], lineId: () => string = () => newId('il')): void {
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
    await this.billing.stored.invoices.insert(accountId, inv);
    await this.record(accountId, 'invoice.created', inv, now);
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
    const { id: _id, hosted_invoice_url: _h, ...rest } = this.toApi(inv, '', now);
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

  private save(accountId: string, inv: StoredInvoice): Promise<StoredInvoice> {
    return this.billing.stored.invoices.update(accountId, inv);
  }

  // ------------------------------------------------------------------------------------- transitions

  /**
   * draft → open: number, due date; a zero amount is paid at once. `quiet`: see `Collecting` (a subscription's own
   * operation finalizes it).
   */
  async finalizeDoc(accountId: string, inv: StoredInvoice, now: number, quiet = false): Promise<StoredInvoice> {
    if (inv.status !== 'draft')
      throw errors.unexpectedState('invoice', `Invoice ${inv.id} is ${inv.status}; only a draft can be finalized.`);
    const s = unixSeconds(now);
    const before = this.view(inv, now);
    inv.status = 'open';
    inv.number = `INV-${String(await this.billing.stored.nextCounter(accountId, 'invoice_number')).padStart(6, '0')}`;
    inv.finalized_at = s;
    if (inv.collection_method === 'send_invoice') {
      const days = inv.days_until_due ?? 0;
      inv.due_date = s + days * DAY_S;
      inv.action_kind = 'due';
      inv.action_ms = inv.due_date * 1000;
    }
    await this.save(accountId, inv);
    await this.record(accountId, 'invoice.finalized', inv, now, before);
    if (inv.amount_due === 0) await this.markPaid(accountId, inv, now, null, this.view(inv, now), quiet);
    return inv;
  }

  /** `before`: the invoice as it was before the request's change (default: now); `quiet`: see `Collecting`. */
  private async markPaid(
    accountId: string,
    inv: StoredInvoice,
    now: number,
    paymentId: string | null,
    before: Invoice = this.view(inv, now),
    quiet = false,
  ): Promise<void> {
    inv.status = 'paid';
    inv.paid = true;
    inv.amount_paid = inv.amount_due;
    inv.amount_remaining = 0;
    inv.paid_at = unixSeconds(now);
    inv.payment_id = paymentId;
    inv.next_payment_attempt = null;
    inv.action_kind = null;
    inv.action_ms = null;
    await this.save(accountId, inv);
    await this.record(accountId, 'invoice.paid', inv, now, before);
    await this.syncSubscription(accountId, inv, 'paid', now, quiet);
  }

  private async paymentMethodFor(accountId: string, inv: StoredInvoice): Promise<string | null> {
    if (inv.subscription) {
      const sub = await this.billing.stored.subscriptions.get(accountId, inv.subscription);
      if (sub?.default_payment_method) return sub.default_payment_method;
    }
    return (await this.billing.stored.customers.get(accountId, inv.customer))?.default_payment_method ?? null;
  }

  /** One charge attempt for the amount remaining (`opts`: see `Collecting`). */
  async attempt(accountId: string, inv: StoredInvoice, now: number, opts: Collecting): Promise<AttemptResult> {
    const pm = opts.paymentMethod ?? (await this.paymentMethodFor(accountId, inv));
    const s = unixSeconds(now);
    const before = this.view(inv, now);
    inv.attempt_count += 1;
    const result: ChargeResult = pm
      ? await this.charger.charge(
          accountId,
          {
            amount: inv.amount_remaining,
            currency: inv.currency,
            payment_method: pm,
            description: `Invoice ${inv.number ?? inv.id}`,
            metadata: { invoice: inv.id, ...(inv.subscription ? { subscription: inv.subscription } : {}) },
          },
          now,
        )
      : {
          status: 'failed',
          payment_id: null,
          code: 'payment_method_missing',
          message: 'The customer has no default payment method.',
        };
    if (result.status === 'succeeded') {
      inv.last_payment_error = null;
      await this.markPaid(accountId, inv, now, result.payment_id, before, opts.quiet);
      return { ok: true };
    }
    inv.last_payment_error = { code: result.code, decline_code: result.decline_code ?? null, message: result.message };
    if (opts.automatic) {
      inv.first_failed_at ??= s;
      const retry = inv.attempt_count - 1; // retries already made
      if (retry < RETRY_DAYS.length) {
        inv.next_payment_attempt = inv.first_failed_at + RETRY_DAYS[retry]! * DAY_S;
        inv.action_kind = 'retry';
        inv.action_ms = inv.next_payment_attempt * 1000;
        await this.save(accountId, inv);
        await this.record(accountId, 'invoice.payment_failed', inv, now, before);
        await this.syncSubscription(accountId, inv, 'failed', now, opts.quiet);
      } else {
        inv.next_payment_attempt = null;
        inv.status = 'uncollectible';
        inv.marked_uncollectible_at = s;
        inv.action_kind = null;
        inv.action_ms = null;
        await this.save(accountId, inv);
        // The last retry failed: the attempt's event, then the status change it causes.
        await this.record(accountId, 'invoice.payment_failed', inv, now, before);
        await this.record(accountId, 'invoice.marked_uncollectible', inv, now, {
          status: before.status,
          marked_uncollectible_at: null,
        });
        await this.syncSubscription(accountId, inv, 'exhausted', now, opts.quiet);
      }
    } else {
      await this.save(accountId, inv);
      await this.record(accountId, 'invoice.payment_failed', inv, now, before);
    }
    const error = new ServiceError({
      status: 402,
      type: 'card_error',
      code: result.code,
      message: result.message,
      decline_code: result.decline_code,
      payment_id: result.payment_id ?? undefined,
    });
    return { ok: false, error };
  }

  /**
   * The subscription follows its invoices: any failed automatic attempt → past_due; retries exhausted on any
   * invoice → unpaid; a payment → active again once no other invoice of it is overdue, failed or uncollectible.
   * The listener is told of a status change unless `quiet` (see `Collecting`).
   */
  private async syncSubscription(
    accountId: string,
    inv: StoredInvoice,
    event: 'paid' | 'failed' | 'exhausted',
    now: number,
    quiet = false,
  ): Promise<void> {
    if (!inv.subscription) return;
    const sub = await this.billing.stored.subscriptions.get(accountId, inv.subscription);
    if (!sub) return;
    if (sub.status === 'canceled' || sub.status === 'paused') return;
    const previousStatus = sub.status;
    if (event === 'paid') {
      if (sub.status !== 'past_due' && sub.status !== 'unpaid') return;
      const others = (await this.billing.stored.unsettledInvoicesOf(accountId, sub.id, inv.id)).filter(
        (o) => o.status !== 'open' || o.last_payment_error !== null,
      );
      if (others.length > 0) return;
      sub.status = 'active';
    } else if (event === 'failed') {
      if (sub.status !== 'active' && sub.status !== 'trialing') return;
      sub.status = 'past_due';
    } else sub.status = 'unpaid';
    sub.due_ms = subscriptionDue(sub);
    if (sub.due_ms !== null && sub.due_ms < now) {
      sub.due_ms = now; // a revived subscription catches up at once
      await this.hooks?.emit('dueNow', accountId, {});
    }
    await this.billing.stored.subscriptions.update(accountId, sub);
    if (sub.status !== previousStatus && !quiet) await this.onSubscriptionStatus(accountId, sub, previousStatus, now);
  }

  // ------------------------------------------------------------------------------------ the due work

  nextDue(accountId: string, kind: 'retry' | 'due'): Promise<number | undefined> {
    return this.billing.stored.nextInvoiceAction(accountId, kind);
  }

  due(kind: 'retry' | 'due', now: number, accountId?: string, limit = -1) {
    return this.billing.stored.invoicesDue(kind, now, accountId, limit);
  }

  /** A dunning retry that came due. */
  async retry(accountId: string, inv: StoredInvoice, now: number): Promise<void> {
    inv.action_kind = null;
    inv.action_ms = null;
    if (inv.status !== 'open' && inv.status !== 'past_due') {
      await this.save(accountId, inv);
      return;
    }
    await this.attempt(accountId, inv, now, { automatic: true });
  }

  /** open → past_due once the due date has passed. */
  async pastDue(accountId: string, inv: StoredInvoice, now: number): Promise<void> {
    inv.action_kind = null;
    inv.action_ms = null;
    const overdue = inv.status === 'open';
    if (overdue) inv.status = 'past_due';
    await this.save(accountId, inv);
    if (overdue) await this.record(accountId, 'invoice.overdue', inv, now, { status: 'open' });
    if (inv.status === 'past_due' && inv.subscription) await this.syncSubscription(accountId, inv, 'failed', now);
  }

  // ------------------------------------------------------------------------------------- API methods

  private async linesFromInput(
    accountId: string,
    input: NonNullable<CreateInvoiceBody['lines']>,
    currency: string | undefined,
    now: number,
  ): Promise<{ lines: PendingLine[]; currency: string }> {
    const s = unixSeconds(now);
    let cur = currency;
    const lines: PendingLine[] = [];
    for (const [i, l] of input.entries()) {
      if ((l.price === undefined) === (l.amount === undefined)) {
        throw l.price === undefined
          ? errors.parameterMissing(`lines[${i}].price`)
          : errors.parameterInvalid(`lines[${i}].amount`, 'give either price or amount');
      }
      if (l.price !== undefined) {
        const p: Price = await this.billing.stored.prices.require(accountId, l.price, 'price', `lines[${i}].price`);
        if (p.recurring?.usage_type === 'metered')
          throw errors.parameterInvalid(`lines[${i}].price`, 'metered prices are billed through usage records');
        if (cur !== undefined && p.currency !== cur)
          throw errors.parameterInvalid(`lines[${i}].price`, `price is in ${p.currency}, the invoice in ${cur}`);
        cur = p.currency;
        const q = l.quantity ?? 1;
        assertBillable(p, q, `lines[${i}].quantity`);
        const product = await this.billing.stored.products.get(accountId, p.product);
        lines.push({
          type: 'invoiceitem',
          amount: priceAmount(p, q),
          currency: p.currency,
          description: l.description ?? `${q} × ${product?.name ?? p.product}`,
          price: { id: p.id, product: p.product },
          quantity: q,
          period: { start: s, end: s },
        });
        continue;
      }
      if (l.quantity !== undefined) throw errors.parameterInvalid(`lines[${i}].quantity`, 'only with price');
      if (cur === undefined) throw errors.parameterMissing('currency');
      lines.push({
        type: 'invoiceitem',
        amount: l.amount!,
        currency: cur,
        description: l.description ?? 'Invoice item',
        price: null,
        quantity: null,
        period: { start: s, end: s },
      });
    }
    if (cur === undefined) throw errors.parameterMissing('currency');
    return { lines, currency: cur };
  }

  async create(accountId: string, body: CreateInvoiceBody, now: number): Promise<StoredInvoice> {
    const customer = await this.billing.stored.customers.require(accountId, body.customer, 'customer', 'customer');
    const method = body.collection_method ?? 'charge_automatically';
    if (method === 'send_invoice' && body.days_until_due === undefined) throw errors.parameterMissing('days_until_due');
    if (method === 'charge_automatically' && body.days_until_due !== undefined)
      throw errors.parameterInvalid('days_until_due', 'only with collection_method "send_invoice"');
    const { lines, currency } = await this.linesFromInput(
      accountId,
      body.lines ?? [],
      body.currency !== undefined ? normalizeCurrency(body.currency, 'currency') : undefined,
      now,
    );
    const discount =
      body.coupon !== undefined ? await this.coupons.redeem(accountId, body.coupon, currency, now) : null;
    const s = unixSeconds(now);
    return await this.build(
      accountId,
      {
        customer: customer.id,
        subscription: null,
        currency,
        collection_method: method,
        days_until_due: body.days_until_due ?? null,
        billing_reason: 'manual',
        description: body.description ?? null,
        period_start: s,
        period_end: s,
        lines,
        discount,
        metadata: body.metadata ?? {},
      },
      now,
    );
  }

  load(accountId: string, id: string): Promise<StoredInvoice> {
    return this.billing.stored.invoices.require(accountId, id, 'invoice', 'invoice_id');
  }

  async update(accountId: string, id: string, body: UpdateInvoiceBody, now: number): Promise<StoredInvoice> {
    const inv = await this.load(accountId, id);
    const before = this.view(inv, now);
    const onlyMeta = Object.keys(body).every((k) => k === 'metadata' || k === 'description');
    if (inv.status !== 'draft' && !onlyMeta)
      throw errors.unexpectedState(
        'invoice',
        `Invoice ${id} is ${inv.status}; only description and metadata change after finalization.`,
      );
    if (body.description !== undefined) inv.description = body.description === '' ? null : body.description;
    if (body.metadata !== undefined) inv.metadata = mergeMetadata(inv.metadata, body.metadata);
    if (body.collection_method !== undefined) inv.collection_method = body.collection_method;
    if (body.days_until_due !== undefined) inv.days_until_due = body.days_until_due;
    if (inv.collection_method === 'send_invoice' && inv.days_until_due === null)
      throw errors.parameterMissing('days_until_due');
    if (body.coupon !== undefined)
      inv.discount =
        body.coupon === '' ? null : await this.coupons.apply(accountId, inv.discount, body.coupon, inv.currency, now);
    if (body.lines !== undefined || body.coupon !== undefined) {
      const lines =
        body.lines !== undefined
          ? (await this.linesFromInput(accountId, body.lines, inv.currency, now)).lines
          : inv.lines.data.filter((l) => l.type !== 'discount');
      this.setLines(inv, lines);
    }
    await this.save(accountId, inv);
    await recordUpdate(this.billing.events, accountId, 'invoice.updated', this.view(inv, now), before, now);
    return inv;
  }

  async delete(accountId: string, id: string, now: number): Promise<DeletedResource> {
    const inv = await this.load(accountId, id);
    if (inv.status !== 'draft')
      throw errors.unexpectedState(
        'invoice',
        `Invoice ${id} is ${inv.status}; only drafts can be deleted (void it instead).`,
      );
    await this.billing.stored.invoices.delete(accountId, id);
    await this.record(accountId, 'invoice.deleted', inv, now);
    return { id, object: 'invoice', deleted: true };
  }

  async finalize(accountId: string, id: string, now: number): Promise<StoredInvoice> {
    return await this.finalizeDoc(accountId, await this.load(accountId, id), now);
  }

  /** open, past_due, uncollectible → paid (a charge of the payment method, or out of band). */
  async pay(accountId: string, id: string, body: PayInvoiceBody, now: number): Promise<Committed<StoredInvoice>> {
    const inv = await this.load(accountId, id);
    const from: InvoiceStatus[] = ['open', 'past_due', 'uncollectible'];
    if (!from.includes(inv.status))
      throw errors.unexpectedState(
        'invoice',
        `Invoice ${id} is ${inv.status}; only ${from.join(', ')} invoices can be paid.`,
      );
    if (body.paid_out_of_band) {
      if (body.payment_method !== undefined)
        throw errors.parameterInvalid('payment_method', 'not with paid_out_of_band');
      await this.markPaid(accountId, inv, now, null);
      return inv;
    }
    const tooLarge = tooLargeToCharge(inv.amount_remaining);
    if (tooLarge) throw errors.invalidRequest('amount_too_large', tooLarge);
    if (!body.payment_method && !(await this.paymentMethodFor(accountId, inv))) {
      throw errors.invalidRequest(
        'payment_method_missing',
        'The customer has no default payment method; pass payment_method or paid_out_of_band.',
        'payment_method',
      );
    }
    const r = await this.attempt(accountId, inv, now, { automatic: false, paymentMethod: body.payment_method });
    return r.ok ? inv : new Outcome(r.error);
  }

  async void(accountId: string, id: string, now: number): Promise<StoredInvoice> {
    const inv = await this.load(accountId, id);
    const from: InvoiceStatus[] = ['open', 'past_due', 'uncollectible'];
    if (!from.includes(inv.status))
      throw errors.unexpectedState(
        'invoice',
        `Invoice ${id} is ${inv.status}; only ${from.join(', ')} invoices can be voided.`,
      );
    const before = this.view(inv, now);
    inv.status = 'void';
    inv.voided_at = unixSeconds(now);
    inv.amount_remaining = 0;
    inv.next_payment_attempt = null;
    inv.action_kind = null;
    inv.action_ms = null;
    await this.save(accountId, inv);
    await this.record(accountId, 'invoice.voided', inv, now, before);
    return inv;
  }

  async markUncollectible(accountId: string, id: string, now: number): Promise<StoredInvoice> {
    const inv = await this.load(accountId, id);
    const from: InvoiceStatus[] = ['open', 'past_due'];
    if (!from.includes(inv.status))
      throw errors.unexpectedState(
        'invoice',
        `Invoice ${id} is ${inv.status}; only ${from.join(', ')} invoices can be marked uncollectible.`,
      );
    const before = this.view(inv, now);
    inv.status = 'uncollectible';
    inv.marked_uncollectible_at = unixSeconds(now);
    inv.next_payment_attempt = null;
    inv.action_kind = null;
    inv.action_ms = null;
    await this.save(accountId, inv);
    await this.record(accountId, 'invoice.marked_uncollectible', inv, now, before);
    return inv;
  }

  list(accountId: string, url: string, q: ListInvoicesQuery): Promise<List<StoredInvoice>> {
    return this.billing.stored.invoices.list(accountId, url, {
      limit: q.limit,
      starting_after: q.starting_after,
      ending_before: q.ending_before,
      where: { customer: q.customer, subscription: q.subscription, status: q.status },
    });
  }
}
