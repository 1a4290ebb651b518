// Collecting an invoice: finalization (its number, its due date), charge attempts and the dunning retries, due
// dates passing, and the subscription following its invoices' outcomes.
import type { Invoice } from '../../../contract/billing.js';
import { DAY_S } from '../../../contract/time.js';
import { unixSeconds } from '../../clock.js';
import { errors, ServiceError } from '../../errors.js';
import type { Charger, ChargeResult } from '../charges.js';
import type { Hooks } from '../hooks.js';
import type { InvoiceRecords } from './invoice-records.js';
import { subscriptionDue, type StoredInvoice, type StoredSubscription } from './store.js';

/** Dunning: automatic retries this many days after the first failed attempt; after the last, uncollectible. */
export const RETRY_DAYS = [1, 3, 7] as const;

export type AttemptResult = { ok: true } | { ok: false; error: ServiceError };

/** How an invoice is collected (attempt). */
export interface Collecting {
  /**
   * An automatic attempt (creation, renewal, dunning retry): a failure schedules the next retry or, after the
   * last, makes the invoice uncollectible. A manual attempt (pay) only records the failure.
   */
  automatic: boolean;
  paymentMethod?: string;
  /**
   * Collected by a subscription's operation that records one event for all it does (invoiceAndCollect): the
   * status change its outcome makes is not told to `onSubscriptionStatus`. Passed down the call, not kept: on an
   * engine that runs transactions at once, another request's invoice of the same subscription is not quiet.
   */
  quiet?: boolean;
}

/** Told when an invoice's outcome changes its subscription's status (subscriptions.ts records the event). */
export type SubscriptionStatusListener = (
  accountId: string,
  sub: StoredSubscription,
  previousStatus: StoredSubscription['status'],
  now: number,
) => Promise<void>;

export class InvoiceCollection {
  constructor(
    private readonly records: InvoiceRecords,
    private readonly charger: Charger,
    private readonly onSubscriptionStatus: SubscriptionStatusListener,
    private readonly hooks?: Hooks,
  ) {}

  /**
   * draft → open: number, due date; a zero amount is paid at once. `quiet`: see `Collecting` (a subscription's own
   * operation finalizes it).
   */
  async finalize(accountId: string, inv: StoredInvoice, now: number, quiet = false): Promise<StoredInvoice> {
    if (inv.status !== 'draft')
      throw errors.unexpectedState('invoice', `Invoice ${inv.id} is ${inv.status}; only a draft can be finalized.`);
    const s = unixSeconds(now);
    const before = this.records.view(inv, now);
    inv.status = 'open';
    inv.number = `INV-${String(await this.records.stored.nextCounter(accountId, 'invoice_number')).padStart(6, '0')}`;
    inv.finalized_at = s;
    if (inv.collection_method === 'send_invoice') {
      const days = inv.days_until_due ?? 0;
      inv.due_date = s + days * DAY_S;
      inv.action_kind = 'due';
      inv.action_ms = inv.due_date * 1000;
    }
    await this.records.save(accountId, inv);
    await this.records.record(accountId, 'invoice.finalized', inv, now, before);
    if (inv.amount_due === 0) await this.markPaid(accountId, inv, now, null, this.records.view(inv, now), quiet);
    return inv;
  }

  /** `before`: the invoice as it was before the request's change (default: now); `quiet`: see `Collecting`. */
  async markPaid(
    accountId: string,
    inv: StoredInvoice,
    now: number,
    paymentId: string | null,
    before: Invoice = this.records.view(inv, now),
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
    await this.records.save(accountId, inv);
    await this.records.record(accountId, 'invoice.paid', inv, now, before);
    await this.syncSubscription(accountId, inv, 'paid', now, quiet);
  }

  async paymentMethodFor(accountId: string, inv: StoredInvoice): Promise<string | null> {
    if (inv.subscription) {
      const sub = await this.records.stored.subscriptions.get(accountId, inv.subscription);
      if (sub?.default_payment_method) return sub.default_payment_method;
    }
    return (await this.records.stored.customers.get(accountId, inv.customer))?.default_payment_method ?? null;
  }

  /** One charge attempt for the amount remaining (`opts`: see `Collecting`). */
  async attempt(accountId: string, inv: StoredInvoice, now: number, opts: Collecting): Promise<AttemptResult> {
    const pm = opts.paymentMethod ?? (await this.paymentMethodFor(accountId, inv));
    const s = unixSeconds(now);
    const before = this.records.view(inv, now);
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
        await this.records.save(accountId, inv);
        await this.records.record(accountId, 'invoice.payment_failed', inv, now, before);
        await this.syncSubscription(accountId, inv, 'failed', now, opts.quiet);
      } else {
        inv.next_payment_attempt = null;
        inv.status = 'uncollectible';
        inv.marked_uncollectible_at = s;
        inv.action_kind = null;
        inv.action_ms = null;
        await this.records.save(accountId, inv);
        // The last retry failed: the attempt's event, then the status change it causes.
        await this.records.record(accountId, 'invoice.payment_failed', inv, now, before);
        await this.records.record(accountId, 'invoice.marked_uncollectible', inv, now, {
          status: before.status,
          marked_uncollectible_at: null,
        });
        await this.syncSubscription(accountId, inv, 'exhausted', now, opts.quiet);
      }
    } else {
      await this.records.save(accountId, inv);
      await this.records.record(accountId, 'invoice.payment_failed', inv, now, before);
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
    const sub = await this.records.stored.subscriptions.get(accountId, inv.subscription);
    if (!sub) return;
    if (sub.status === 'canceled' || sub.status === 'paused') return;
    const previousStatus = sub.status;
    if (event === 'paid') {
      if (sub.status !== 'past_due' && sub.status !== 'unpaid') return;
      const others = (await this.records.stored.unsettledInvoicesOf(accountId, sub.id, inv.id)).filter(
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
    await this.records.stored.subscriptions.update(accountId, sub);
    if (sub.status !== previousStatus && !quiet) await this.onSubscriptionStatus(accountId, sub, previousStatus, now);
  }

  // ------------------------------------------------------------------------------------ the due work

  nextDue(accountId: string, kind: 'retry' | 'due'): Promise<number | undefined> {
    return this.records.stored.nextInvoiceAction(accountId, kind);
  }

  due(kind: 'retry' | 'due', now: number, accountId?: string, limit = -1) {
    return this.records.stored.invoicesDue(kind, now, accountId, limit);
  }

  /** A dunning retry that came due. */
  async retry(accountId: string, inv: StoredInvoice, now: number): Promise<void> {
    inv.action_kind = null;
    inv.action_ms = null;
    if (inv.status !== 'open' && inv.status !== 'past_due') {
      await this.records.save(accountId, inv);
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
    await this.records.save(accountId, inv);
    if (overdue) await this.records.record(accountId, 'invoice.overdue', inv, now, { status: 'open' });
    if (inv.status === 'past_due' && inv.subscription) await this.syncSubscription(accountId, inv, 'failed', now);
  }
}
