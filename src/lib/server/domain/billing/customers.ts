// Customers: CRUD, email filter; deletion is refused while the customer has a subscription that is not canceled.
import type {
  CreateCustomerBody,
  Customer,
  DeletedResource,
  ListCustomersQuery,
  UpdateCustomerBody,
} from '../../../contract/billing.js';
import type { List } from '../../../contract/common.js';
import { unixSeconds } from '../../clock.js';
import { errors } from '../../errors.js';
import { newId } from '../../ids.js';
import { mergeMetadata } from '../values.js';
import type { BillingContext } from './store.js';
import { recordUpdate } from '../record.js';

export class Customers {
  constructor(private readonly billing: BillingContext) {}

  async create(accountId: string, body: CreateCustomerBody, now: number): Promise<Customer> {
    const c: Customer = {
      id: newId('cus'),
      object: 'customer',
      email: body.email ?? null,
      name: body.name ?? null,
      phone: body.phone ?? null,
      description: body.description ?? null,
      billing_address: body.billing_address ?? null,
      shipping_address: body.shipping_address ?? null,
      default_payment_method: body.default_payment_method ?? null,
      tax_exempt: body.tax_exempt ?? false,
      tax_ids: body.tax_ids ?? [],
      metadata: body.metadata ?? {},
      created: unixSeconds(now),
      livemode: false,
    };
    await this.billing.stored.customers.insert(accountId, c);
    await this.billing.events.record(accountId, 'customer.created', c, { at: now });
    return c;
  }

  async get(accountId: string, id: string, param = 'customer_id'): Promise<Customer> {
    return this.billing.stored.customers.require(accountId, id, 'customer', param);
  }

  async update(accountId: string, id: string, body: UpdateCustomerBody, now: number): Promise<Customer> {
    const c = await this.get(accountId, id);
    const previous = { ...c };
    const { metadata, ...rest } = body;
    for (const [k, v] of Object.entries(rest)) if (v !== undefined) (c as Record<string, unknown>)[k] = v;
    if (metadata !== undefined) c.metadata = mergeMetadata(c.metadata, metadata);
    return this.save(accountId, c, previous, now);
  }

  /** Stores a changed customer and records customer.updated (when something changed). */
  async save(accountId: string, c: Customer, previous: Customer, now: number): Promise<Customer> {
    await this.billing.stored.customers.update(accountId, c);
    await recordUpdate(this.billing.events, accountId, 'customer.updated', c, previous, now);
    return c;
  }

  async delete(accountId: string, id: string, now: number): Promise<DeletedResource> {
    const c = await this.get(accountId, id);
    const live = await this.billing.stored.liveSubscriptionsOf(accountId, id);
    if (live.length > 0) {
      throw errors.unexpectedState(
        'customer',
        `Customer ${id} has ${live.length} subscription(s) that are not canceled (${live.map((s) => s.id).join(', ')}); cancel them first.`,
      );
    }
    await this.billing.stored.customers.delete(accountId, id);
    await this.billing.events.record(accountId, 'customer.deleted', c, { at: now });
    return { id, object: 'customer', deleted: true };
  }

  async list(accountId: string, url: string, q: ListCustomersQuery): Promise<List<Customer>> {
    return this.billing.stored.customers.list(accountId, url, {
      limit: q.limit,
      starting_after: q.starting_after,
      ending_before: q.ending_before,
      where: { email: q.email },
    });
  }
}
