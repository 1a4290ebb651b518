// Billing resources of the client: customers, products, prices, coupons, subscriptions, subscription items,
// usage records, invoices, checkout and portal sessions, and the test clock.
import type { List, ListParams } from '../../contract/common.js';
import type * as B from '../../contract/billing.js';
import type { AdvanceClockBody, ClockState } from '../../contract/meta.js';
import { asQuery, enc, paginate, type CallOptions, type Requester } from './base.js';

/** CRUD + list on one path; each resource adds its actions. */
abstract class Crud<T extends { id: string }, Create, Update, Query extends ListParams> {
  constructor(
    protected readonly c: Requester,
    protected readonly path: string,
  ) {}

  create(params: Create, options?: CallOptions): Promise<T> {
    return this.c.request('POST', this.path, { body: params, ...options });
  }

  retrieve(id: string, options?: CallOptions): Promise<T> {
    return this.c.request('GET', `${this.path}/${enc(id)}`, options);
  }

  update(id: string, params: Update, options?: CallOptions): Promise<T> {
    return this.c.request('PATCH', `${this.path}/${enc(id)}`, { body: params, ...options });
  }

  list(params: Query = {} as Query, options?: CallOptions): Promise<List<T>> {
    return this.c.request('GET', this.path, { query: asQuery(params), ...options });
  }

  listAll(params: Query = {} as Query): AsyncGenerator<T> {
    return paginate((p) => this.list(p), params);
  }
}

export class CustomersResource extends Crud<
  B.Customer,
  B.CreateCustomerBody,
  B.UpdateCustomerBody,
  B.ListCustomersQuery
> {
  constructor(c: Requester) {
    super(c, '/customers');
  }
  del(id: string, options?: CallOptions): Promise<B.DeletedResource> {
    return this.c.request('DELETE', `${this.path}/${enc(id)}`, options);
  }
}

export class ProductsResource extends Crud<B.Product, B.CreateProductBody, B.UpdateProductBody, B.ListProductsQuery> {
  constructor(c: Requester) {
    super(c, '/products');
  }
  override retrieve(id: string, options?: CallOptions & { expandPrices?: boolean }): Promise<B.Product> {
    const { expandPrices, ...rest } = options ?? {};
    return this.c.request('GET', `${this.path}/${enc(id)}`, {
      query: expandPrices ? { 'expand[]': ['prices'] } : undefined,
      ...rest,
    });
  }
  /** Deleted, or archived (`deleted: false`, `active: false`) when the product has prices. */
  del(id: string, options?: CallOptions): Promise<B.Product | B.DeletedResource> {
    return this.c.request('DELETE', `${this.path}/${enc(id)}`, options);
  }
}

export class PricesResource extends Crud<B.Price, B.CreatePriceBody, B.UpdatePriceBody, B.ListPricesQuery> {
  constructor(c: Requester) {
    super(c, '/prices');
  }
}

export class CouponsResource extends Crud<B.Coupon, B.CreateCouponBody, B.UpdateCouponBody, B.ListCouponsQuery> {
  constructor(c: Requester) {
    super(c, '/coupons');
  }
  del(id: string, options?: CallOptions): Promise<B.DeletedResource> {
    return this.c.request('DELETE', `${this.path}/${enc(id)}`, options);
  }
}

export class SubscriptionsResource extends Crud<
  B.Subscription,
  B.CreateSubscriptionBody,
  B.UpdateSubscriptionBody,
  B.ListSubscriptionsQuery
> {
  constructor(c: Requester) {
    super(c, '/subscriptions');
  }
  cancel(id: string, params: B.CancelSubscriptionBody = {}, options?: CallOptions): Promise<B.Subscription> {
    return this.c.request('POST', `${this.path}/${enc(id)}/cancel`, { body: params, ...options });
  }
  pause(id: string, options?: CallOptions): Promise<B.Subscription> {
    return this.c.request('POST', `${this.path}/${enc(id)}/pause`, { body: {}, ...options });
  }
  resume(id: string, options?: CallOptions): Promise<B.Subscription> {
    return this.c.request('POST', `${this.path}/${enc(id)}/resume`, { body: {}, ...options });
  }
}

export class SubscriptionItemsResource extends Crud<
  B.SubscriptionItem,
  B.CreateSubscriptionItemBody,
  B.UpdateSubscriptionItemBody,
  B.ListSubscriptionItemsQuery
> {
  constructor(c: Requester) {
    super(c, '/subscription-items');
  }
  del(
    id: string,
    params: { proration_behavior?: 'create_prorations' | 'none' } = {},
    options?: CallOptions,
  ): Promise<B.DeletedResource> {
    return this.c.request('DELETE', `${this.path}/${enc(id)}`, { query: asQuery(params), ...options });
  }
}

export class UsageRecordsResource {
  constructor(private readonly c: Requester) {}
  create(params: B.CreateUsageRecordBody, options?: CallOptions): Promise<B.UsageRecord> {
    return this.c.request('POST', '/usage-records', { body: params, ...options });
  }
  summaries(params: B.UsageSummaryQuery, options?: CallOptions): Promise<List<B.UsageSummary>> {
    return this.c.request('GET', '/usage-records/summary', { query: asQuery(params), ...options });
  }
  summariesAll(params: B.UsageSummaryQuery): AsyncGenerator<B.UsageSummary> {
    return paginate((p) => this.summaries(p), params);
  }
}

export class InvoicesResource extends Crud<B.Invoice, B.CreateInvoiceBody, B.UpdateInvoiceBody, B.ListInvoicesQuery> {
  constructor(c: Requester) {
    super(c, '/invoices');
  }
  del(id: string, options?: CallOptions): Promise<B.DeletedResource> {
    return this.c.request('DELETE', `${this.path}/${enc(id)}`, options);
  }
  finalize(id: string, options?: CallOptions): Promise<B.Invoice> {
    return this.c.request('POST', `${this.path}/${enc(id)}/finalize`, { body: {}, ...options });
  }
  pay(id: string, params: B.PayInvoiceBody = {}, options?: CallOptions): Promise<B.Invoice> {
    return this.c.request('POST', `${this.path}/${enc(id)}/pay`, { body: params, ...options });
  }
  void(id: string, options?: CallOptions): Promise<B.Invoice> {
    return this.c.request('POST', `${this.path}/${enc(id)}/void`, { body: {}, ...options });
  }
  markUncollectible(id: string, options?: CallOptions): Promise<B.Invoice> {
    return this.c.request('POST', `${this.path}/${enc(id)}/mark-uncollectible`, options); // no body
  }
}

export class CheckoutSessionsResource {
  constructor(private readonly c: Requester) {}
  create(params: B.CreateCheckoutSessionBody, options?: CallOptions): Promise<B.CheckoutSession> {
    return this.c.request('POST', '/checkout-sessions', { body: params, ...options });
  }
  retrieve(id: string, options?: CallOptions): Promise<B.CheckoutSession> {
    return this.c.request('GET', `/checkout-sessions/${enc(id)}`, options);
  }
  complete(id: string, params: B.CompleteCheckoutSessionBody, options?: CallOptions): Promise<B.CheckoutSession> {
    return this.c.request('POST', `/checkout-sessions/${enc(id)}/complete`, { body: params, ...options });
  }
  list(params: ListParams = {}, options?: CallOptions): Promise<List<B.CheckoutSession>> {
    return this.c.request('GET', '/checkout-sessions', { query: asQuery(params), ...options });
  }
  listAll(params: ListParams = {}): AsyncGenerator<B.CheckoutSession> {
    return paginate((p) => this.list(p), params);
  }
}

export class PortalSessionsResource {
  constructor(private readonly c: Requester) {}
  create(params: B.CreatePortalSessionBody, options?: CallOptions): Promise<B.PortalSession> {
    return this.c.request('POST', '/portal-sessions', { body: params, ...options });
  }
  retrieve(id: string, options?: CallOptions): Promise<B.PortalSession> {
    return this.c.request('GET', `/portal-sessions/${enc(id)}`, options);
  }
}

export class TestClockResource {
  constructor(private readonly c: Requester) {}
  advance(params: AdvanceClockBody, options?: CallOptions): Promise<ClockState> {
    return this.c.request('POST', '/test-helpers/advance-clock', { body: params, ...options });
  }
  retrieve(options?: CallOptions): Promise<ClockState> {
    return this.c.request('GET', '/test-helpers/clock', options);
  }
}
