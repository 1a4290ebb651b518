// Prices: per_unit or tiered (graduated/volume), one_time or recurring (licensed, or metered with one of the
// four aggregate modes). Immutable once created except nickname, active and metadata.
import type { CreatePriceBody, ListPricesQuery, Price, Tier, UpdatePriceBody } from '../../../contract/billing.js';
import type { List } from '../../../contract/common.js';
import { unixSeconds } from '../../clock.js';
import { errors } from '../../errors.js';
import { newId } from '../../ids.js';
import { mergeMetadata, normalizeCurrency } from '../values.js';
import type { Products } from './products.js';
import type { BillingContext } from './store.js';
import { recordUpdate } from '../record.js';

export class Prices {
  constructor(
    private readonly billing: BillingContext,
    private readonly products: Products,
  ) {}

  async create(accountId: string, body: CreatePriceBody, now: number): Promise<Price> {
    if ((body.product === undefined) === (body.product_data === undefined)) {
      throw body.product === undefined
        ? errors.parameterMissing('product')
        : errors.parameterInvalid('product_data', 'give either product or product_data, not both');
    }
    if (body.type === 'recurring' && body.recurring === undefined) throw errors.parameterMissing('recurring');
    if (body.type === 'one_time' && body.recurring !== undefined)
      throw errors.parameterInvalid('type', '"one_time" prices take no recurring');
    const currency = normalizeCurrency(body.currency, 'currency');
    const product =
      body.product !== undefined ? await this.products.load(accountId, body.product, 'product') : undefined;
    const scheme = body.billing_scheme ?? 'per_unit';
    let tiers: Tier[] | null = null;
    let unit_amount: number | null = null;
    if (scheme === 'per_unit') {
      if (body.unit_amount === undefined) throw errors.parameterMissing('unit_amount');
      if (body.tiers !== undefined) throw errors.parameterInvalid('tiers', 'only with billing_scheme "tiered"');
      if (body.tiers_mode !== undefined)
        throw errors.parameterInvalid('tiers_mode', 'only with billing_scheme "tiered"');
      unit_amount = body.unit_amount;
    } else {
      if (body.unit_amount !== undefined)
        throw errors.parameterInvalid('unit_amount', 'tiered prices take their amounts from tiers');
      if (!body.tiers) throw errors.parameterMissing('tiers');
      if (!body.tiers_mode) throw errors.parameterMissing('tiers_mode');
      tiers = body.tiers.map((t, i) => {
        if (t.unit_amount === undefined && t.flat_amount === undefined)
          throw errors.parameterMissing(`tiers[${i}].unit_amount`);
        return {
          up_to: t.up_to === 'inf' ? null : t.up_to,
          unit_amount: t.unit_amount ?? 0,
          flat_amount: t.flat_amount ?? 0,
        };
      });
      for (let i = 0; i < tiers.length; i++) {
        const t = tiers[i]!;
        const last = i === tiers.length - 1;
        if (last && t.up_to !== null) throw errors.parameterInvalid(`tiers[${i}].up_to`, 'the last tier must be "inf"');
        if (!last && t.up_to === null)
          throw errors.parameterInvalid(`tiers[${i}].up_to`, 'only the last tier may be "inf"');
        if (i > 0 && t.up_to !== null && t.up_to <= tiers[i - 1]!.up_to!)
          throw errors.parameterInvalid(`tiers[${i}].up_to`, 'tiers must increase');
      }
    }
    let recurring: Price['recurring'] = null;
    if (body.recurring) {
      const usage_type = body.recurring.usage_type ?? 'licensed';
      if (usage_type === 'licensed' && body.recurring.aggregate_usage !== undefined) {
        throw errors.parameterInvalid('recurring.aggregate_usage', 'only for usage_type "metered"');
      }
      const interval_count = body.recurring.interval_count ?? 1;
      const maxCount = { day: 365, week: 52, month: 12, year: 1 }[body.recurring.interval];
      if (interval_count > maxCount)
        throw errors.parameterInvalid(
          'recurring.interval_count',
          `at most one year (${maxCount} ${body.recurring.interval}s)`,
        );
      recurring = {
        interval: body.recurring.interval,
        interval_count,
        usage_type,
        aggregate_usage: usage_type === 'metered' ? (body.recurring.aggregate_usage ?? 'sum') : null,
      };
    }
    if (!recurring && scheme === 'tiered')
      throw errors.parameterInvalid('billing_scheme', 'tiered prices must be recurring');
    const productId = product
      ? product.id
      : (
          await this.products.create(
            accountId,
            { name: body.product_data!.name, metadata: body.product_data!.metadata },
            now,
          )
        ).id;
    const price: Price = {
      id: newId('price'),
      object: 'price',
      product: productId,
      active: body.active ?? true,
      currency,
      unit_amount,
      type: recurring ? 'recurring' : 'one_time',
      billing_scheme: scheme,
      recurring,
      tiers,
      tiers_mode: scheme === 'tiered' ? body.tiers_mode! : null,
      nickname: body.nickname ?? null,
      metadata: body.metadata ?? {},
      created: unixSeconds(now),
      livemode: false,
    };
    await this.billing.stored.prices.insert(accountId, price);
    await this.billing.events.record(accountId, 'price.created', price, { at: now });
    if (product && product.default_price === null) {
      const previous = { ...product };
      product.default_price = price.id;
      await this.products.save(accountId, product, previous, now);
    }
    return price;
  }

  async get(accountId: string, id: string, param = 'price_id'): Promise<Price> {
    return this.billing.stored.prices.require(accountId, id, 'price', param);
  }

  async update(accountId: string, id: string, body: UpdatePriceBody, now: number): Promise<Price> {
    const p = await this.get(accountId, id);
    const previous = { ...p };
    if (body.nickname !== undefined) p.nickname = body.nickname === '' ? null : body.nickname;
    if (body.active !== undefined) p.active = body.active;
    if (body.metadata !== undefined) p.metadata = mergeMetadata(p.metadata, body.metadata);
    await this.billing.stored.prices.update(accountId, p);
    await recordUpdate(this.billing.events, accountId, 'price.updated', p, previous, now);
    return p;
  }

  async list(accountId: string, url: string, q: ListPricesQuery): Promise<List<Price>> {
    return this.billing.stored.prices.list(accountId, url, {
      limit: q.limit,
      starting_after: q.starting_after,
      ending_before: q.ending_before,
      where: {
        type: q.type,
        product: q.product,
        active: q.active === undefined ? undefined : q.active ? 1 : 0,
        currency: q.currency === undefined ? undefined : normalizeCurrency(q.currency, 'currency'),
      },
    });
  }
}
