// Invoices (docs/api.md "Billing"): the API's operations, and the service through which the area builds
// (invoice-drafts.ts) and collects (invoice-collection.ts) them. draft → open (finalize); open, past_due → paid,
// void, uncollectible; uncollectible → paid, void; open → past_due once due; anything else → 409.
import type {
  CreateInvoiceBody,
  Invoice,
  InvoiceStatus,
  ListInvoicesQuery,
  PayInvoiceBody,
  Price,
  UpdateInvoiceBody,
  DeletedResource,
} from '../../../contract/billing.js';
import type { List } from '../../../contract/common.js';
import { unixSeconds } from '../../clock.js';
import { errors } from '../../errors.js';
import { Outcome, type Committed } from '../outcome.js';
import type { Hooks } from '../hooks.js';
import { tooLargeToCharge, type Charger } from '../charges.js';
import { mergeMetadata, normalizeCurrency } from '../values.js';
import type { Coupons } from './coupons.js';
import {
  InvoiceCollection,
  type AttemptResult,
  type Collecting,
  type SubscriptionStatusListener,
} from './invoice-collection.js';
import { InvoiceDrafts, type InvoiceDraft, type UpcomingInvoice } from './invoice-drafts.js';
import { InvoiceRecords } from './invoice-records.js';
import { priceAmount } from './money.js';
import { assertBillable, type BillingContext, type Owned, type PendingLine, type StoredInvoice } from './store.js';
import { recordUpdate } from '../record.js';

export class Invoices {
  private readonly records: InvoiceRecords;
  private readonly drafts: InvoiceDrafts;
  private readonly collection: InvoiceCollection;

  constructor(
    private readonly billing: BillingContext,
    charger: Charger,
    private readonly coupons: Coupons,
    hooks?: Hooks,
  ) {
    this.records = new InvoiceRecords(billing);
    this.drafts = new InvoiceDrafts(this.records);
    const listener: SubscriptionStatusListener = (a, sub, previous, now) =>
      this.onSubscriptionStatus(a, sub, previous, now);
    this.collection = new InvoiceCollection(this.records, charger, listener, hooks);
  }

  /** Set by the subscriptions: told when an invoice's outcome changes a subscription's status. */
  onSubscriptionStatus: SubscriptionStatusListener = async () => {};

  toApi(inv: StoredInvoice, baseUrl: string, now: number): Invoice {
    return this.records.toApi(inv, baseUrl, now);
  }

  // Building and collecting, for the subscriptions and billing's due work.
  build(accountId: string, draft: InvoiceDraft, now: number): Promise<StoredInvoice> {
    return this.drafts.build(accountId, draft, now);
  }
  preview(draft: InvoiceDraft, collectAt: number, now: number): UpcomingInvoice {
    return this.drafts.preview(draft, collectAt, now);
  }
  /** draft → open; `quiet`: see `Collecting`. */
  finalizeDoc(accountId: string, inv: StoredInvoice, now: number, quiet = false): Promise<StoredInvoice> {
    return this.collection.finalize(accountId, inv, now, quiet);
  }
  attempt(accountId: string, inv: StoredInvoice, now: number, opts: Collecting): Promise<AttemptResult> {
    return this.collection.attempt(accountId, inv, now, opts);
  }
  nextDue(accountId: string, kind: 'retry' | 'due'): Promise<number | undefined> {
    return this.collection.nextDue(accountId, kind);
  }
  due(kind: 'retry' | 'due', now: number, accountId?: string, limit?: number): Promise<Owned<StoredInvoice>[]> {
    return this.collection.due(kind, now, accountId, limit);
  }
  retry(accountId: string, inv: StoredInvoice, now: number): Promise<void> {
    return this.collection.retry(accountId, inv, now);
  }
  pastDue(accountId: string, inv: StoredInvoice, now: number): Promise<void> {
    return this.collection.pastDue(accountId, inv, now);
  }

  // The API's operations.

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
    return await this.drafts.build(
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
    const before = this.records.view(inv, now);
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
      this.drafts.setLines(inv, lines);
    }
    await this.records.save(accountId, inv);
    await recordUpdate(this.billing.events, accountId, 'invoice.updated', this.records.view(inv, now), before, now);
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
    await this.records.record(accountId, 'invoice.deleted', inv, now);
    return { id, object: 'invoice', deleted: true };
  }

  async finalize(accountId: string, id: string, now: number): Promise<StoredInvoice> {
    return await this.collection.finalize(accountId, await this.load(accountId, id), now);
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
      await this.collection.markPaid(accountId, inv, now, null);
      return inv;
    }
    const tooLarge = tooLargeToCharge(inv.amount_remaining);
    if (tooLarge) throw errors.invalidRequest('amount_too_large', tooLarge);
    if (!body.payment_method && !(await this.collection.paymentMethodFor(accountId, inv))) {
      throw errors.invalidRequest(
        'payment_method_missing',
        'The customer has no default payment method; pass payment_method or paid_out_of_band.',
        'payment_method',
      );
    }
    const r = await this.collection.attempt(accountId, inv, now, {
      automatic: false,
      paymentMethod: body.payment_method,
    });
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
    const before = this.records.view(inv, now);
    inv.status = 'void';
    inv.voided_at = unixSeconds(now);
    inv.amount_remaining = 0;
    inv.next_payment_attempt = null;
    inv.action_kind = null;
    inv.action_ms = null;
    await this.records.save(accountId, inv);
    await this.records.record(accountId, 'invoice.voided', inv, now, before);
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
    const before = this.records.view(inv, now);
    inv.status = 'uncollectible';
    inv.marked_uncollectible_at = unixSeconds(now);
    inv.next_payment_attempt = null;
    inv.action_kind = null;
    inv.action_ms = null;
    await this.records.save(accountId, inv);
    await this.records.record(accountId, 'invoice.marked_uncollectible', inv, now, before);
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
