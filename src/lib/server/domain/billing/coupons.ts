// Coupons (docs/api.md "Billing"): exactly one of percent_off (1–100) and amount_off (+ currency); duration once |
// repeating (+ duration_in_months) | forever; `valid` is false once redeem_by has passed or max_redemptions
// is reached. Caller-chosen ids are allowed (unique per account).
import type {
  Coupon,
  CreateCouponBody,
  DeletedResource,
  ListCouponsQuery,
  UpdateCouponBody,
} from '../../../contract/billing.js';
import type { List } from '../../../contract/common.js';
import { unixSeconds } from '../../clock.js';
import { errors } from '../../errors.js';
import { newId } from '../../ids.js';
import { mergeMetadata, normalizeCurrency } from '../values.js';
import { addMonths } from './money.js';
import type { BillingContext, StoredCoupon, StoredDiscount } from './store.js';
import { recordUpdate } from '../record.js';

export function couponValid(c: StoredCoupon, now: number): boolean {
  if (c.redeem_by !== null && unixSeconds(now) >= c.redeem_by) return false;
  if (c.max_redemptions !== null && c.times_redeemed >= c.max_redemptions) return false;
  return true;
}

export const couponApi = (c: StoredCoupon, now: number): Coupon => ({ ...c, valid: couponValid(c, now) });

export class Coupons {
  constructor(private readonly billing: BillingContext) {}

  async create(accountId: string, body: CreateCouponBody, now: number): Promise<Coupon> {
    const hasPercent = body.percent_off !== undefined;
    const hasAmount = body.amount_off !== undefined;
    if (hasPercent === hasAmount) {
      throw hasPercent
        ? errors.parameterInvalid('amount_off', 'give exactly one of percent_off and amount_off')
        : errors.parameterMissing('percent_off');
    }
    if (hasAmount && body.currency === undefined) throw errors.parameterMissing('currency');
    if (hasPercent && body.currency !== undefined) throw errors.parameterInvalid('currency', 'only with amount_off');
    const duration = body.duration ?? 'once';
    if (duration === 'repeating' && body.duration_in_months === undefined)
      throw errors.parameterMissing('duration_in_months');
    if (duration !== 'repeating' && body.duration_in_months !== undefined)
      throw errors.parameterInvalid('duration_in_months', 'only with duration "repeating"');
    if (body.redeem_by !== undefined && body.redeem_by <= unixSeconds(now))
      throw errors.parameterInvalid('redeem_by', 'must be in the future');
    for (const [i, id] of (body.applies_to?.products ?? []).entries())
      await this.billing.stored.products.require(accountId, id, 'product', `applies_to.products[${i}]`);
    if (body.id !== undefined && (await this.billing.stored.coupons.get(accountId, body.id))) {
      throw errors.conflict('resource_exists', `A coupon with id '${body.id}' already exists.`, 'id');
    }
    const c: StoredCoupon = {
      id: body.id ?? newId('co'),
      object: 'coupon',
      name: body.name ?? null,
      percent_off: body.percent_off ?? null,
      amount_off: body.amount_off ?? null,
      currency: body.currency !== undefined ? normalizeCurrency(body.currency, 'currency') : null,
      duration,
      duration_in_months: body.duration_in_months ?? null,
      max_redemptions: body.max_redemptions ?? null,
      times_redeemed: 0,
      redeem_by: body.redeem_by ?? null,
      applies_to: body.applies_to ? { products: [...new Set(body.applies_to.products)] } : null,
      metadata: body.metadata ?? {},
      created: unixSeconds(now),
      livemode: false,
    };
    await this.billing.stored.coupons.insert(accountId, c);
    const api = couponApi(c, now);
    await this.billing.events.record(accountId, 'coupon.created', api, { at: now });
    return api;
  }

  async load(accountId: string, id: string, param = 'coupon_id'): Promise<StoredCoupon> {
    return this.billing.stored.coupons.require(accountId, id, 'coupon', param);
  }

  async get(accountId: string, id: string, now: number): Promise<Coupon> {
    return couponApi(await this.load(accountId, id), now);
  }

  async update(accountId: string, id: string, body: UpdateCouponBody, now: number): Promise<Coupon> {
    const c = await this.load(accountId, id);
    const previous = couponApi(c, now);
    if (body.name !== undefined) c.name = body.name === '' ? null : body.name;
    if (body.metadata !== undefined) c.metadata = mergeMetadata(c.metadata, body.metadata);
    await this.billing.stored.coupons.update(accountId, c);
    const api = couponApi(c, now);
    await recordUpdate(this.billing.events, accountId, 'coupon.updated', api, previous, now);
    return api;
  }

  /** Deleting a coupon stops new redemptions; discounts already applied keep running. */
  async delete(accountId: string, id: string, now: number): Promise<DeletedResource> {
    const c = await this.load(accountId, id);
    await this.billing.stored.coupons.delete(accountId, id);
    await this.billing.events.record(accountId, 'coupon.deleted', couponApi(c, now), { at: now });
    return { id, object: 'coupon', deleted: true };
  }

  async list(accountId: string, url: string, q: ListCouponsQuery, now: number): Promise<List<Coupon>> {
    const page = await this.billing.stored.coupons.list(accountId, url, q);
    return { ...page, data: page.data.map((c) => couponApi(c, now)) };
  }

  /**
   * Redeems coupon `id` for a subscription or invoice in `currency`: 400 `coupon_invalid` when it is not
   * valid or its amount_off is in another currency. Counts the redemption and returns the discount.
   */
  async redeem(
    accountId: string,
    id: string,
    currency: string,
    now: number,
    param = 'coupon',
  ): Promise<StoredDiscount> {
    return this.apply(accountId, null, id, currency, now, param);
  }

  /**
   * Applies coupon `id` where `current` is the discount in force: the coupon that discount came from (same id,
   * same coupon, not deleted since) keeps it as it is — no second redemption, no new start; any other coupon
   * is redeemed as by `redeem`.
   */
  async apply(
    accountId: string,
    current: StoredDiscount | null,
    id: string,
    currency: string,
    now: number,
    param = 'coupon',
  ): Promise<StoredDiscount> {
    const c = await this.billing.stored.coupons.get(accountId, id);
    if (!c) throw errors.notFound('coupon', id, param);
    if (current && current.coupon.id === c.id && current.coupon.created === c.created) return current;
    if (!couponValid(c, now))
      throw errors.invalidRequest(
        'coupon_invalid',
        `Coupon ${id} is no longer valid (expired or fully redeemed).`,
        param,
      );
    if (c.amount_off !== null && c.currency !== currency) {
      throw errors.invalidRequest(
        'coupon_invalid',
        `Coupon ${id} takes ${c.amount_off} off in ${c.currency}; this is billed in ${currency}.`,
        param,
      );
    }
    c.times_redeemed += 1;
    await this.billing.stored.coupons.update(accountId, c);
    const start = unixSeconds(now);
    const end = c.duration === 'repeating' ? addMonths(start, c.duration_in_months!) : null;
    return { coupon: { ...c }, start, end, used: false };
  }
}

export const discountApi = (d: StoredDiscount | null, now: number) =>
  d ? { coupon: couponApi(d.coupon, now), start: d.start, end: d.end } : null;
