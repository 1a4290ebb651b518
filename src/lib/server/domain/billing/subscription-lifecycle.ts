// A subscription's changes after creation: its settings and items (update), and its course: cancel (now or at
// period end), pause and resume (a new period from now, invoiced at once).
import type { CancelSubscriptionBody, UpdateSubscriptionBody } from '../../../contract/billing.js';
import { unixSeconds } from '../../clock.js';
import { errors } from '../../errors.js';
import { mergeMetadata } from '../values.js';
import type { Coupons } from './coupons.js';
import type { StoredSubscription } from './store.js';
import type { SubscriptionInvoicing } from './subscription-invoicing.js';
import type { ItemChange, SubscriptionItems } from './subscription-items.js';
import type { SubscriptionRecords } from './subscription-records.js';
import { startCycle } from './subscription-renewals.js';

export class SubscriptionLifecycle {
  constructor(
    private readonly records: SubscriptionRecords,
    private readonly invoicing: SubscriptionInvoicing,
    private readonly items: SubscriptionItems,
    private readonly coupons: Coupons,
  ) {}

  async update(accountId: string, id: string, body: UpdateSubscriptionBody, now: number): Promise<StoredSubscription> {
    const s = await this.records.load(accountId, id);
    this.records.requireLive(s);
    const before = await this.records.toApi(accountId, s, now);
    const prorations = (body.proration_behavior ?? 'create_prorations') === 'create_prorations';
    const changes: ItemChange[] = [];
    if (body.quantity !== undefined) {
      if (body.items !== undefined) throw errors.parameterInvalid('quantity', 'give either quantity or items');
      const items = await this.records.stored.itemsOf(accountId, s.id);
      if (items.length !== 1)
        throw errors.parameterInvalid('quantity', 'only for subscriptions with one item; use items');
      changes.push({ kind: 'update', id: items[0]!.id, quantity: body.quantity, param: 'quantity' });
    }
    (body.items ?? []).forEach((it, i) => {
      const param = `items[${i}]`;
      if (it.id === undefined) {
        if (it.price === undefined) throw errors.parameterMissing(`${param}.price`);
        if (it.deleted) throw errors.parameterMissing(`${param}.id`);
        changes.push({
          kind: 'add',
          price: it.price,
          quantity: it.quantity,
          metadata: it.metadata,
          param: `${param}.price`,
        });
      } else if (it.deleted) changes.push({ kind: 'delete', id: it.id, param: `${param}.id` });
      else
        changes.push({
          kind: 'update',
          id: it.id,
          price: it.price,
          quantity: it.quantity,
          metadata: it.metadata,
          param: `${param}.id`,
        });
    });
    if (changes.length) await this.items.change(accountId, s, changes, prorations, now);
    if (body.cancel_at_period_end !== undefined) {
      s.cancel_at_period_end = body.cancel_at_period_end;
      s.canceled_at = body.cancel_at_period_end ? unixSeconds(now) : null;
    }
    if (body.coupon !== undefined)
      s.discount =
        body.coupon === '' ? null : await this.coupons.apply(accountId, s.discount, body.coupon, s.currency, now);
    if (body.default_payment_method !== undefined) s.default_payment_method = body.default_payment_method;
    if (body.collection_method !== undefined) s.collection_method = body.collection_method;
    if (body.days_until_due !== undefined) s.days_until_due = body.days_until_due;
    if (s.collection_method === 'send_invoice' && s.days_until_due === null)
      throw errors.parameterMissing('days_until_due');
    if (s.collection_method === 'charge_automatically') s.days_until_due = null;
    if (body.metadata !== undefined) s.metadata = mergeMetadata(s.metadata, body.metadata);
    await this.records.save(accountId, s);
    await this.records.recordUpdated(accountId, s, before, now);
    return s;
  }

  /** Now: `canceled` at once (open invoices stay as they are). At period end: `cancel_at_period_end`. */
  async cancel(accountId: string, id: string, body: CancelSubscriptionBody, now: number): Promise<StoredSubscription> {
    const s = await this.records.load(accountId, id);
    this.records.requireLive(s);
    const nowS = unixSeconds(now);
    const before = await this.records.toApi(accountId, s, now);
    if (body.at_period_end) {
      if (!['active', 'trialing', 'past_due'].includes(s.status)) {
        throw errors.unexpectedState(
          'subscription',
          `Subscription ${s.id} is ${s.status}; only active, trialing or past_due subscriptions can cancel at period end.`,
        );
      }
      s.cancel_at_period_end = true;
      s.canceled_at = nowS;
      await this.records.save(accountId, s);
      await this.records.recordUpdated(accountId, s, before, now);
      return s;
    }
    s.status = 'canceled';
    s.canceled_at = nowS;
    s.ended_at = nowS;
    s.cancel_at_period_end = false;
    s.pending_lines = [];
    s.period_history.push({ start: s.current_period_start, end: Math.min(nowS, s.current_period_end), invoice: null });
    await this.records.save(accountId, s);
    await this.records.record(accountId, 'subscription.canceled', s, now, before);
    return s;
  }

  async pause(accountId: string, id: string, now: number): Promise<StoredSubscription> {
    const s = await this.records.load(accountId, id);
    if (!['active', 'trialing', 'past_due'].includes(s.status)) {
      throw errors.unexpectedState(
        'subscription',
        `Subscription ${s.id} is ${s.status}; only active, trialing or past_due subscriptions can be paused.`,
      );
    }
    const before = await this.records.toApi(accountId, s, now);
    s.paused_from = s.status;
    s.status = 'paused';
    s.paused_at = unixSeconds(now);
    await this.records.save(accountId, s);
    await this.records.recordUpdated(accountId, s, before, now);
    return s;
  }

  /** paused → a new period starts now (new billing_cycle_anchor) with its invoice at once. */
  async resume(accountId: string, id: string, now: number): Promise<StoredSubscription> {
    const s = await this.records.load(accountId, id);
    if (s.status !== 'paused')
      throw errors.unexpectedState(
        'subscription',
        `Subscription ${s.id} is ${s.status}; only paused subscriptions can be resumed.`,
      );
    const before = await this.records.toApi(accountId, s, now);
    const nowS = unixSeconds(now);
    const items = await this.records.stored.itemsOf(accountId, s.id);
    const pausedAt = s.paused_at ?? nowS;
    const usage =
      s.paused_from === 'trialing'
        ? []
        : await this.invoicing.usageLines(accountId, items, { start: s.current_period_start, end: pausedAt });
    if (s.trial_end !== null && s.trial_end > nowS) s.trial_end = nowS;
    s.trial_reminder_ms = null;
    s.period_history.push({ start: s.current_period_start, end: pausedAt, invoice: null });
    const b = startCycle(s, this.invoicing, nowS);
    s.paused_at = null;
    s.paused_from = null;
    const lines = [...(await this.invoicing.licensedLines(accountId, items, b)), ...usage];
    const out = await this.invoicing.invoiceAndCollect(accountId, s, lines, 'subscription_resume', now);
    if (usage.length) {
      out.period_history[out.period_history.length - 1]!.invoice = out.latest_invoice;
      await this.records.save(accountId, out);
    }
    await this.records.recordUpdated(accountId, out, before, now);
    return out;
  }
}
