// Products: CRUD, `expand=prices`; PATCH takes `is_active` and answers `active`; deleting a product that has
// prices archives it (active → false) instead.
import type {
  CreateProductBody,
  DeletedResource,
  ListProductsQuery,
  Product,
  ProductExpandQuery,
  UpdateProductBody,
} from '../../../contract/billing.js';
import type { List } from '../../../contract/common.js';
import { unixSeconds } from '../../clock.js';
import { errors } from '../../errors.js';
import { newId } from '../../ids.js';
import { mergeMetadata } from '../values.js';
import type { BillingContext, StoredProduct } from './store.js';
import { recordUpdate } from '../record.js';

export const wantsPrices = (q: ProductExpandQuery | ListProductsQuery): boolean =>
  Boolean(q.expand?.includes('prices') || q['expand[]']?.includes('prices'));

export class Products {
  constructor(private readonly billing: BillingContext) {}

  private async toApi(accountId: string, p: StoredProduct, expand: boolean): Promise<Product> {
    if (!expand) return { ...p };
    const prices = await this.billing.stored.pricesOf(accountId, p.id);
    return { ...p, prices: prices.reverse() };
  }

  async create(accountId: string, body: CreateProductBody, now: number): Promise<Product> {
    const s = unixSeconds(now);
    const p: StoredProduct = {
      id: newId('prod'),
      object: 'product',
      name: body.name,
      description: body.description ?? null,
      statement_descriptor: body.statement_descriptor ?? null,
      unit_label: body.unit_label ?? null,
      images: body.images ?? [],
      active: body.active ?? true,
      default_price: null,
      metadata: body.metadata ?? {},
      created: s,
      updated: s,
      livemode: false,
    };
    await this.billing.stored.products.insert(accountId, p);
    await this.billing.events.record(accountId, 'product.created', p, { at: now });
    return p;
  }

  /** Stores a changed product and records product.updated (when something besides `updated` changed). */
  async save(accountId: string, p: StoredProduct, previous: StoredProduct, now: number): Promise<void> {
    await this.billing.stored.products.update(accountId, p);
    await recordUpdate(this.billing.events, accountId, 'product.updated', p, { ...previous, updated: p.updated }, now);
  }

  async load(accountId: string, id: string, param = 'product_id'): Promise<StoredProduct> {
    return this.billing.stored.products.require(accountId, id, 'product', param);
  }

  async get(accountId: string, id: string, q: ProductExpandQuery): Promise<Product> {
    return this.toApi(accountId, await this.load(accountId, id), wantsPrices(q));
  }

  async update(accountId: string, id: string, body: UpdateProductBody, now: number): Promise<Product> {
    const p = await this.load(accountId, id);
    const previous = { ...p };
    if (body.name !== undefined) p.name = body.name;
    if (body.description !== undefined) p.description = body.description;
    if (body.statement_descriptor !== undefined) p.statement_descriptor = body.statement_descriptor;
    if (body.unit_label !== undefined) p.unit_label = body.unit_label;
    if (body.images !== undefined) p.images = body.images;
    if (body.is_active !== undefined) p.active = body.is_active;
    if (body.metadata !== undefined) p.metadata = mergeMetadata(p.metadata, body.metadata);
    if (body.default_price !== undefined) {
      if (body.default_price === '') p.default_price = null;
      else {
        const price = await this.billing.stored.prices.require(accountId, body.default_price, 'price', 'default_price');
        if (price.product !== p.id)
          throw errors.parameterInvalid('default_price', `price ${price.id} belongs to another product`);
        p.default_price = price.id;
      }
    }
    p.updated = unixSeconds(now);
    await this.save(accountId, p, previous, now);
    return this.toApi(accountId, p, false);
  }

  /** Deleted when it has no prices; archived (`active: false`, `deleted: false`) when it has. */
  async delete(accountId: string, id: string, now: number): Promise<Product | DeletedResource> {
    const p = await this.load(accountId, id);
    const prices = await this.billing.stored.pricesOf(accountId, id);
    if (prices.length === 0) {
      await this.billing.stored.products.delete(accountId, id);
      await this.billing.events.record(accountId, 'product.deleted', p, { at: now });
      return { id, object: 'product', deleted: true };
    }
    const previous = { ...p };
    p.active = false;
    p.updated = unixSeconds(now);
    await this.save(accountId, p, previous, now);
    return { ...p, deleted: false };
  }

  async list(accountId: string, url: string, q: ListProductsQuery): Promise<List<Product>> {
    const active = q.active === undefined ? undefined : q.active ? 1 : 0;
    const page = await this.billing.stored.products.list(accountId, url, {
      limit: q.limit,
      starting_after: q.starting_after,
      ending_before: q.ending_before,
      where: { active },
    });
    const expand = wantsPrices(q);
    const data: Product[] = [];
    for (const p of page.data) data.push(await this.toApi(accountId, p, expand));
    return { ...page, data };
  }
}
