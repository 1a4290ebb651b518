// Customers: CRUD, email filter; deletion is refused while the customer has a subscription that is not canceled.
import type { CreateCustomerBody, Customer, DeletedResource, ListCustomersQuery, UpdateCustomerBody } from '../../../contract/billing.js';
import type { List } from '../../../contract/common.js';
import { unixSeconds } from '../../clock.js';
import { errors } from '../../errors.js';
import { newId } from '../../ids.js';
import { mergeMetadata } from '../values.js';
import type { BillingStore } from './store.js';

export class Customers {
  constructor(private readonly db: BillingStore) {}

  create(accountId: string, body: CreateCustomerBody, now: number): Customer {
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
    return this.db.customers.insert(accountId, c);
  }

  get(accountId: string, id: string, param = 'customer_id'): Customer {
    return this.db.customers.require(accountId, id, 'customer', param);
  }

  update(accountId: string, id: string, body: UpdateCustomerBody): Customer {
    const c = this.get(accountId, id);
    const { metadata, ...rest } = body;
    for (const [k, v] of Object.entries(rest)) if (v !== undefined) (c as Record<string, unknown>)[k] = v;
    if (metadata !== undefined) c.metadata = mergeMetadata(c.metadata, metadata);
    return this.db.customers.update(accountId, c);
  }

  delete(accountId: string, id: string): DeletedResource {
    this.get(accountId, id);
    const live = this.db.subscriptions.selectWhere("account_id = ? AND customer = ? AND status != 'canceled'", accountId, id);
    if (live.length > 0) {
      throw errors.unexpectedState(
        'customer',
        `Customer ${id} has ${live.length} subscription(s) that are not canceled (${live.map((r) => r.doc.id).join(', ')}); cancel them first.`,
      );
    }
    this.db.customers.delete(accountId, id);
    return { id, object: 'customer', deleted: true };
  }

  list(accountId: string, url: string, q: ListCustomersQuery): List<Customer> {
    return this.db.customers.list(accountId, url, { limit: q.limit, starting_after: q.starting_after, ending_before: q.ending_before, where: { email: q.email } });
  }
}
