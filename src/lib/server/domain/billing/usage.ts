// Usage records of metered subscription items: `increment` adds to the usage at a timestamp, `set` replaces
// it. A period's usage is aggregated by the price's aggregate_usage: sum, last_during_period, last_ever, max.
import type {
  AggregateUsage,
  CreateUsageRecordBody,
  UsageRecord,
  UsageSummary,
  UsageSummaryQuery,
} from '../../../contract/billing.js';
import type { List } from '../../../contract/common.js';
import { unixSeconds } from '../../clock.js';
import { errors } from '../../errors.js';
import { newId } from '../../ids.js';
import { pageOfList } from '../../store/paging.js';
import { assertBillable, type BillingContext, type BillingPort, type StoredUsage } from './store.js';

/** The usage of item `itemId` for the period [start, end). */
export async function aggregateUsage(
  billing: BillingPort,
  accountId: string,
  itemId: string,
  mode: AggregateUsage,
  start: number,
  end: number,
): Promise<number> {
  if (mode === 'last_ever') {
    const rows = await billing.usageBefore(accountId, itemId, end);
    return latest(rows)?.quantity ?? 0;
  }
  const rows = await billing.usageDuring(accountId, itemId, start, end);
  if (mode === 'sum') return rows.reduce((a, r) => a + r.quantity, 0);
  if (mode === 'max') return rows.reduce((a, r) => Math.max(a, r.quantity), 0);
  return latest(rows)?.quantity ?? 0;
}

/** The record with the latest timestamp (rows come in insertion order: a later write wins a tie). */
function latest(rows: StoredUsage[]): StoredUsage | undefined {
  let best: StoredUsage | undefined;
  for (const r of rows) if (!best || r.timestamp >= best.timestamp) best = r;
  return best;
}

const toApi = ({ subscription: _s, ...r }: StoredUsage): UsageRecord => r;

export class UsageRecords {
  constructor(private readonly billing: BillingContext) {}

  async create(accountId: string, body: CreateUsageRecordBody, now: number): Promise<UsageRecord> {
    const item = await this.billing.stored.items.require(
      accountId,
      body.subscription_item,
      'subscription_item',
      'subscription_item',
    );
    const price = await this.billing.stored.prices.get(accountId, item.price);
    if (price?.recurring?.usage_type !== 'metered') {
      throw errors.invalidRequest(
        'usage_type_not_metered',
        `Subscription item ${item.id} has a licensed price; usage records are for metered prices.`,
        'subscription_item',
      );
    }
    const sub = (await this.billing.stored.subscriptions.get(accountId, item.subscription))!;
    if (sub.status === 'canceled')
      throw errors.unexpectedState('subscription', `Subscription ${sub.id} is canceled; it takes no more usage.`);
    const s = unixSeconds(now);
    const ts = body.timestamp ?? s;
    if (ts > s + 300) throw errors.parameterInvalid('timestamp', 'cannot be in the future');
    if (ts < sub.current_period_start)
      throw errors.parameterInvalid('timestamp', `must be in the current period (≥ ${sub.current_period_start})`);
    const action = body.action ?? 'increment';
    const existing = await this.billing.stored.usageAt(accountId, item.id, ts);
    const bounded = async (rec: StoredUsage): Promise<UsageRecord> => {
      // the period's usage must stay billable (a thrown error rolls this write back)
      const total = await aggregateUsage(
        this.billing.stored,
        accountId,
        item.id,
        price.recurring!.aggregate_usage ?? 'sum',
        sub.current_period_start,
        sub.current_period_end,
      );
      assertBillable(price, total, 'quantity');
      return toApi(rec);
    };
    if (existing) {
      existing.quantity = action === 'set' ? body.quantity : existing.quantity + body.quantity;
      existing.action = action;
      await this.billing.stored.usage.update(accountId, existing);
      return bounded(existing);
    }
    const rec: StoredUsage = {
      id: newId('ur'),
      object: 'usage_record',
      subscription_item: item.id,
      subscription: sub.id,
      quantity: body.quantity,
      timestamp: ts,
      action,
      created: s,
      livemode: false,
    };
    await this.billing.stored.usage.insert(accountId, rec);
    return bounded(rec);
  }

  /** One summary per period of the subscription (billed ones and the current one), newest first. */
  async summaries(accountId: string, url: string, q: UsageSummaryQuery): Promise<List<UsageSummary>> {
    const item = await this.billing.stored.items.require(
      accountId,
      q.subscription_item,
      'subscription_item',
      'subscription_item',
    );
    const price = (await this.billing.stored.prices.get(accountId, item.price))!;
    const sub = (await this.billing.stored.subscriptions.get(accountId, item.subscription))!;
    const mode = price.recurring?.aggregate_usage ?? 'sum';
    const periods = [...sub.period_history];
    if (sub.status !== 'canceled')
      periods.push({ start: sub.current_period_start, end: sub.current_period_end, invoice: null });
    const all: UsageSummary[] = [];
    for (const p of periods.filter((p) => p.start >= item.created || p.end > item.created).reverse())
      all.push({
        id: `sis_${item.id.slice(3)}_${p.start}`,
        object: 'usage_record_summary',
        subscription_item: item.id,
        period: { start: p.start, end: p.end },
        total_usage: await aggregateUsage(this.billing.stored, accountId, item.id, mode, p.start, p.end),
        invoice: p.invoice,
        livemode: false,
      });
    const { page, has_more } = pageOfList(all, q);
    return { object: 'list', data: page, has_more, total_count: all.length, url };
  }
}
