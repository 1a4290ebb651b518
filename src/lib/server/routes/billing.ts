// Billing routes (docs/api.md "Billing"): customers, products, prices, coupons, subscriptions, subscription items,
// usage records, invoices, checkout and portal sessions. Handlers only translate; domain/billing decides.
import { Type } from '@sinclair/typebox';
import * as B from '../../contract/billing.js';
import { DeletedObject, EmptyBody, ListQuery } from '../../contract/common.js';
import { defineRoute, type RouteSpec } from '../http/route.js';
import { mapCommitted } from '../domain/outcome.js';

const t = {
  customers: 'Customers',
  products: 'Products',
  prices: 'Prices',
  coupons: 'Coupons',
  subs: 'Subscriptions',
  items: 'Subscription items',
  usage: 'Usage records',
  invoices: 'Invoices',
  checkout: 'Checkout sessions',
  portal: 'Portal sessions',
};
const DeletedProductOrArchived = Type.Union([DeletedObject('product'), B.Product]);
const ListOnly = Type.Object({ ...ListQuery }, { additionalProperties: false });

const CardBody = Type.Object(
  { card_number: Type.String({ minLength: 12, maxLength: 23 }) },
  { additionalProperties: false },
);

export const billingRoutes: RouteSpec[] = [
  // ------------------------------------------------------------------------------------------ customers
  defineRoute({
    method: 'POST',
    url: '/customers',
    operationId: 'createCustomer',
    summary: 'Create a customer',
    tag: t.customers,
    auth: 'api_key',
    body: B.CreateCustomerBody,
    response: B.Customer,
    status: 201,
    handler: ({ accountId, body, now, services }) => services.billing.customers.create(accountId, body, now),
  }),
  defineRoute({
    method: 'GET',
    url: '/customers',
    operationId: 'listCustomers',
    summary: 'List customers, newest first (filter: email)',
    tag: t.customers,
    auth: 'api_key',
    query: B.ListCustomersQuery,
    response: B.CustomerList,
    handler: ({ accountId, query, path, services }) => services.billing.customers.list(accountId, path, query),
  }),
  defineRoute({
    method: 'GET',
    url: '/customers/:customer_id',
    operationId: 'getCustomer',
    summary: 'Retrieve a customer',
    tag: t.customers,
    auth: 'api_key',
    params: B.CustomerIdParams,
    response: B.Customer,
    errors: [404],
    handler: ({ accountId, params, services }) => services.billing.customers.get(accountId, params.customer_id),
  }),
  defineRoute({
    method: 'PATCH',
    url: '/customers/:customer_id',
    operationId: 'updateCustomer',
    summary: 'Update a customer',
    tag: t.customers,
    auth: 'api_key',
    params: B.CustomerIdParams,
    body: B.UpdateCustomerBody,
    response: B.Customer,
    errors: [404],
    handler: ({ accountId, params, body, now, services }) =>
      services.billing.customers.update(accountId, params.customer_id, body, now),
  }),
  defineRoute({
    method: 'DELETE',
    url: '/customers/:customer_id',
    operationId: 'deleteCustomer',
    summary: 'Delete a customer (refused while it has subscriptions that are not canceled)',
    tag: t.customers,
    auth: 'api_key',
    params: B.CustomerIdParams,
    response: DeletedObject('customer'),
    errors: [404, 409],
    handler: ({ accountId, params, now, services }) =>
      services.billing.customers.delete(accountId, params.customer_id, now),
  }),

  // ------------------------------------------------------------------------------------------- products
  defineRoute({
    method: 'POST',
    url: '/products',
    operationId: 'createProduct',
    summary: 'Create a product',
    tag: t.products,
    auth: 'api_key',
    body: B.CreateProductBody,
    response: B.Product,
    status: 201,
    handler: ({ accountId, body, now, services }) => services.billing.products.create(accountId, body, now),
  }),
  defineRoute({
    method: 'GET',
    url: '/products',
    operationId: 'listProducts',
    summary: 'List products, newest first (filter: active; expand=prices)',
    tag: t.products,
    auth: 'api_key',
    query: B.ListProductsQuery,
    response: B.ProductList,
    handler: ({ accountId, query, path, services }) => services.billing.products.list(accountId, path, query),
  }),
  defineRoute({
    method: 'GET',
    url: '/products/:product_id',
    operationId: 'getProduct',
    summary: 'Retrieve a product (expand[]=prices fills prices)',
    tag: t.products,
    auth: 'api_key',
    params: B.ProductIdParams,
    query: B.ProductExpandQuery,
    response: B.Product,
    errors: [404],
    handler: ({ accountId, params, query, services }) =>
      services.billing.products.get(accountId, params.product_id, query),
  }),
  defineRoute({
    method: 'PATCH',
    url: '/products/:product_id',
    operationId: 'updateProduct',
    summary: 'Update a product (is_active in, active out)',
    tag: t.products,
    auth: 'api_key',
    params: B.ProductIdParams,
    body: B.UpdateProductBody,
    response: B.Product,
    errors: [404],
    handler: ({ accountId, params, body, now, services }) =>
      services.billing.products.update(accountId, params.product_id, body, now),
  }),
  defineRoute({
    method: 'DELETE',
    url: '/products/:product_id',
    operationId: 'deleteProduct',
    summary: 'Delete a product; one with prices is archived instead',
    tag: t.products,
    auth: 'api_key',
    params: B.ProductIdParams,
    response: DeletedProductOrArchived,
    errors: [404],
    handler: ({ accountId, params, now, services }) =>
      services.billing.products.delete(accountId, params.product_id, now),
  }),

  // --------------------------------------------------------------------------------------------- prices
  defineRoute({
    method: 'POST',
    url: '/prices',
    operationId: 'createPrice',
    summary: 'Create a price',
    tag: t.prices,
    auth: 'api_key',
    body: B.CreatePriceBody,
    response: B.Price,
    status: 201,
    errors: [404],
    handler: ({ accountId, body, now, services }) => services.billing.prices.create(accountId, body, now),
  }),
  defineRoute({
    method: 'GET',
    url: '/prices',
    operationId: 'listPrices',
    summary: 'List prices, newest first (filters: type, product, active, currency)',
    tag: t.prices,
    auth: 'api_key',
    query: B.ListPricesQuery,
    response: B.PriceList,
    handler: ({ accountId, query, path, services }) => services.billing.prices.list(accountId, path, query),
  }),
  defineRoute({
    method: 'GET',
    url: '/prices/:price_id',
    operationId: 'getPrice',
    summary: 'Retrieve a price',
    tag: t.prices,
    auth: 'api_key',
    params: B.PriceIdParams,
    response: B.Price,
    errors: [404],
    handler: ({ accountId, params, services }) => services.billing.prices.get(accountId, params.price_id),
  }),
  defineRoute({
    method: 'PATCH',
    url: '/prices/:price_id',
    operationId: 'updatePrice',
    summary: 'Update a price (nickname, active, metadata)',
    tag: t.prices,
    auth: 'api_key',
    params: B.PriceIdParams,
    body: B.UpdatePriceBody,
    response: B.Price,
    errors: [404],
    handler: ({ accountId, params, body, now, services }) =>
      services.billing.prices.update(accountId, params.price_id, body, now),
  }),

  // -------------------------------------------------------------------------------------------- coupons
  defineRoute({
    method: 'POST',
    url: '/coupons',
    operationId: 'createCoupon',
    summary: 'Create a coupon (the id may be chosen)',
    tag: t.coupons,
    auth: 'api_key',
    body: B.CreateCouponBody,
    response: B.Coupon,
    status: 201,
    errors: [409],
    handler: ({ accountId, body, now, services }) => services.billing.coupons.create(accountId, body, now),
  }),
  defineRoute({
    method: 'GET',
    url: '/coupons',
    operationId: 'listCoupons',
    summary: 'List coupons, newest first',
    tag: t.coupons,
    auth: 'api_key',
    query: B.ListCouponsQuery,
    response: B.CouponList,
    handler: ({ accountId, query, path, now, services }) => services.billing.coupons.list(accountId, path, query, now),
  }),
  defineRoute({
    method: 'GET',
    url: '/coupons/:coupon_id',
    operationId: 'getCoupon',
    summary: 'Retrieve a coupon',
    tag: t.coupons,
    auth: 'api_key',
    params: B.CouponIdParams,
    response: B.Coupon,
    errors: [404],
    handler: ({ accountId, params, now, services }) => services.billing.coupons.get(accountId, params.coupon_id, now),
  }),
  defineRoute({
    method: 'PATCH',
    url: '/coupons/:coupon_id',
    operationId: 'updateCoupon',
    summary: 'Update a coupon (name, metadata)',
    tag: t.coupons,
    auth: 'api_key',
    params: B.CouponIdParams,
    body: B.UpdateCouponBody,
    response: B.Coupon,
    errors: [404],
    handler: ({ accountId, params, body, now, services }) =>
      services.billing.coupons.update(accountId, params.coupon_id, body, now),
  }),
  defineRoute({
    method: 'DELETE',
    url: '/coupons/:coupon_id',
    operationId: 'deleteCoupon',
    summary: 'Delete a coupon (applied discounts keep running)',
    tag: t.coupons,
    auth: 'api_key',
    params: B.CouponIdParams,
    response: DeletedObject('coupon'),
    errors: [404],
    handler: ({ accountId, params, now, services }) =>
      services.billing.coupons.delete(accountId, params.coupon_id, now),
  }),

  // -------------------------------------------------------------------------------------- subscriptions
  defineRoute({
    method: 'POST',
    url: '/subscriptions',
    operationId: 'createSubscription',
    summary: 'Create a subscription',
    tag: t.subs,
    auth: 'api_key',
    body: B.CreateSubscriptionBody,
    response: B.Subscription,
    status: 201,
    errors: [404],
    handler: async ({ accountId, body, now, services }) => {
      const s = services.billing.subscriptions;
      return s.toApi(accountId, await s.create(accountId, body, now), now);
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/subscriptions',
    operationId: 'listSubscriptions',
    summary: 'List subscriptions, newest first (filters: customer, status)',
    tag: t.subs,
    auth: 'api_key',
    query: B.ListSubscriptionsQuery,
    response: B.SubscriptionList,
    handler: ({ accountId, query, path, now, services }) => {
      return services.billing.subscriptions.list(accountId, path, query, now);
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/subscriptions/:subscription_id',
    operationId: 'getSubscription',
    summary: 'Retrieve a subscription',
    tag: t.subs,
    auth: 'api_key',
    params: B.SubscriptionIdParams,
    response: B.Subscription,
    errors: [404],
    handler: ({ accountId, params, now, services }) => {
      return services.billing.subscriptions.get(accountId, params.subscription_id, now);
    },
  }),
  defineRoute({
    method: 'PATCH',
    url: '/subscriptions/:subscription_id',
    operationId: 'updateSubscription',
    summary: 'Update a subscription (quantity, items, cancel_at_period_end, coupon, …)',
    tag: t.subs,
    auth: 'api_key',
    params: B.SubscriptionIdParams,
    body: B.UpdateSubscriptionBody,
    response: B.Subscription,
    errors: [404, 409],
    handler: async ({ accountId, params, body, now, services }) => {
      const s = services.billing.subscriptions;
      return s.toApi(accountId, await s.update(accountId, params.subscription_id, body, now), now);
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/subscriptions/:subscription_id/cancel',
    operationId: 'cancelSubscription',
    summary: 'Cancel a subscription now, or at period end',
    tag: t.subs,
    auth: 'api_key',
    params: B.SubscriptionIdParams,
    body: B.CancelSubscriptionBody,
    response: B.Subscription,
    errors: [404, 409],
    handler: async ({ accountId, params, body, now, services }) => {
      const s = services.billing.subscriptions;
      return s.toApi(accountId, await s.cancel(accountId, params.subscription_id, body, now), now);
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/subscriptions/:subscription_id/pause',
    operationId: 'pauseSubscription',
    summary: 'Pause a subscription (no renewals while paused)',
    tag: t.subs,
    auth: 'api_key',
    params: B.SubscriptionIdParams,
    body: EmptyBody,
    response: B.Subscription,
    errors: [404, 409],
    handler: async ({ accountId, params, now, services }) => {
      const s = services.billing.subscriptions;
      return s.toApi(accountId, await s.pause(accountId, params.subscription_id, now), now);
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/subscriptions/:subscription_id/resume',
    operationId: 'resumeSubscription',
    summary: 'Resume a paused subscription (a new period starts now)',
    tag: t.subs,
    auth: 'api_key',
    params: B.SubscriptionIdParams,
    body: EmptyBody,
    response: B.Subscription,
    errors: [404, 409],
    handler: async ({ accountId, params, now, services }) => {
      const s = services.billing.subscriptions;
      return s.toApi(accountId, await s.resume(accountId, params.subscription_id, now), now);
    },
  }),

  // --------------------------------------------------------------------------------- subscription items
  defineRoute({
    method: 'POST',
    url: '/subscription-items',
    operationId: 'createSubscriptionItem',
    summary: 'Add an item to a subscription',
    tag: t.items,
    auth: 'api_key',
    body: B.CreateSubscriptionItemBody,
    response: B.SubscriptionItem,
    status: 201,
    errors: [404, 409],
    handler: ({ accountId, body, now, services }) => services.billing.subscriptions.addItem(accountId, body, now),
  }),
  defineRoute({
    method: 'GET',
    url: '/subscription-items',
    operationId: 'listSubscriptionItems',
    summary: "List a subscription's items",
    tag: t.items,
    auth: 'api_key',
    query: B.ListSubscriptionItemsQuery,
    response: B.SubscriptionItemList,
    errors: [404],
    handler: ({ accountId, query, path, services }) => services.billing.subscriptions.listItems(accountId, path, query),
  }),
  defineRoute({
    method: 'GET',
    url: '/subscription-items/:item_id',
    operationId: 'getSubscriptionItem',
    summary: 'Retrieve a subscription item',
    tag: t.items,
    auth: 'api_key',
    params: B.SubscriptionItemIdParams,
    response: B.SubscriptionItem,
    errors: [404],
    handler: ({ accountId, params, services }) => services.billing.subscriptions.getItem(accountId, params.item_id),
  }),
  defineRoute({
    method: 'PATCH',
    url: '/subscription-items/:item_id',
    operationId: 'updateSubscriptionItem',
    summary: "Update a subscription item's quantity",
    tag: t.items,
    auth: 'api_key',
    params: B.SubscriptionItemIdParams,
    body: B.UpdateSubscriptionItemBody,
    response: B.SubscriptionItem,
    errors: [404, 409],
    handler: ({ accountId, params, body, now, services }) =>
      services.billing.subscriptions.updateItem(accountId, params.item_id, body, now),
  }),
  defineRoute({
    method: 'DELETE',
    url: '/subscription-items/:item_id',
    operationId: 'deleteSubscriptionItem',
    summary: 'Remove an item (not the last one)',
    tag: t.items,
    auth: 'api_key',
    params: B.SubscriptionItemIdParams,
    query: B.DeleteSubscriptionItemQuery,
    response: DeletedObject('subscription_item'),
    errors: [404, 409],
    handler: ({ accountId, params, query, now, services }) =>
      services.billing.subscriptions.deleteItem(accountId, params.item_id, query.proration_behavior, now),
  }),

  // -------------------------------------------------------------------------------------- usage records
  defineRoute({
    method: 'POST',
    url: '/usage-records',
    operationId: 'createUsageRecord',
    summary: 'Report usage of a metered subscription item (increment or set)',
    tag: t.usage,
    auth: 'api_key',
    body: B.CreateUsageRecordBody,
    response: B.UsageRecord,
    status: 201,
    errors: [404, 409],
    handler: ({ accountId, body, now, services }) => services.billing.usage.create(accountId, body, now),
  }),
  defineRoute({
    method: 'GET',
    url: '/usage-records/summary',
    operationId: 'listUsageSummaries',
    summary: "A metered item's usage per period, newest first",
    tag: t.usage,
    auth: 'api_key',
    query: B.UsageSummaryQuery,
    response: B.UsageSummaryList,
    errors: [404],
    handler: ({ accountId, query, path, services }) => {
      return services.billing.usage.summaries(accountId, path, query);
    },
  }),

  // ------------------------------------------------------------------------------------------- invoices
  defineRoute({
    method: 'POST',
    url: '/invoices',
    operationId: 'createInvoice',
    summary: 'Create a draft invoice',
    tag: t.invoices,
    auth: 'api_key',
    body: B.CreateInvoiceBody,
    response: B.Invoice,
    status: 201,
    errors: [404],
    handler: async ({ accountId, body, now, baseUrl, services }) => {
      const i = services.billing.invoices;
      return i.toApi(await i.create(accountId, body, now), baseUrl, now);
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/invoices',
    operationId: 'listInvoices',
    summary: 'List invoices, newest first (filters: customer, subscription, status)',
    tag: t.invoices,
    auth: 'api_key',
    query: B.ListInvoicesQuery,
    response: B.InvoiceList,
    handler: async ({ accountId, query, path, now, baseUrl, services }) => {
      const i = services.billing.invoices;
      const page = await i.list(accountId, path, query);
      return { ...page, data: page.data.map((x) => i.toApi(x, baseUrl, now)) };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/invoices/:invoice_id',
    operationId: 'getInvoice',
    summary: 'Retrieve an invoice',
    tag: t.invoices,
    auth: 'api_key',
    params: B.InvoiceIdParams,
    response: B.Invoice,
    errors: [404],
    handler: async ({ accountId, params, now, baseUrl, services }) => {
      const i = services.billing.invoices;
      return i.toApi(await i.load(accountId, params.invoice_id), baseUrl, now);
    },
  }),
  defineRoute({
    method: 'PATCH',
    url: '/invoices/:invoice_id',
    operationId: 'updateInvoice',
    summary: 'Update an invoice (lines, coupon and collection only while draft)',
    tag: t.invoices,
    auth: 'api_key',
    params: B.InvoiceIdParams,
    body: B.UpdateInvoiceBody,
    response: B.Invoice,
    errors: [404, 409],
    handler: async ({ accountId, params, body, now, baseUrl, services }) => {
      const i = services.billing.invoices;
      return i.toApi(await i.update(accountId, params.invoice_id, body, now), baseUrl, now);
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: '/invoices/:invoice_id',
    operationId: 'deleteInvoice',
    summary: 'Delete a draft invoice',
    tag: t.invoices,
    auth: 'api_key',
    params: B.InvoiceIdParams,
    response: DeletedObject('invoice'),
    errors: [404, 409],
    handler: ({ accountId, params, now, services }) =>
      services.billing.invoices.delete(accountId, params.invoice_id, now),
  }),
  defineRoute({
    method: 'POST',
    url: '/invoices/:invoice_id/finalize',
    operationId: 'finalizeInvoice',
    summary: 'Finalize a draft invoice (draft → open)',
    tag: t.invoices,
    auth: 'api_key',
    params: B.InvoiceIdParams,
    body: EmptyBody,
    response: B.Invoice,
    errors: [404, 409],
    handler: async ({ accountId, params, now, baseUrl, services }) => {
      const i = services.billing.invoices;
      return i.toApi(await i.finalize(accountId, params.invoice_id, now), baseUrl, now);
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/invoices/:invoice_id/pay',
    operationId: 'payInvoice',
    summary: 'Pay an invoice (open, past_due or uncollectible → paid)',
    tag: t.invoices,
    auth: 'api_key',
    params: B.InvoiceIdParams,
    body: B.PayInvoiceBody,
    response: B.Invoice,
    errors: [402, 404, 409],
    handler: async ({ accountId, params, body, now, baseUrl, services }) => {
      const i = services.billing.invoices;
      return mapCommitted(await i.pay(accountId, params.invoice_id, body, now), (inv) => i.toApi(inv, baseUrl, now));
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/invoices/:invoice_id/void',
    operationId: 'voidInvoice',
    summary: 'Void an invoice (open, past_due or uncollectible → void)',
    tag: t.invoices,
    auth: 'api_key',
    params: B.InvoiceIdParams,
    body: EmptyBody,
    response: B.Invoice,
    errors: [404, 409],
    handler: async ({ accountId, params, now, baseUrl, services }) => {
      const i = services.billing.invoices;
      return i.toApi(await i.void(accountId, params.invoice_id, now), baseUrl, now);
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/invoices/:invoice_id/mark-uncollectible',
    operationId: 'markInvoiceUncollectible',
    summary: 'Mark an invoice uncollectible (open or past_due → uncollectible)',
    tag: t.invoices,
    auth: 'api_key',
    params: B.InvoiceIdParams,
    body: EmptyBody,
    response: B.Invoice,
    errors: [404, 409],
    handler: async ({ accountId, params, now, baseUrl, services }) => {
      const i = services.billing.invoices;
      return i.toApi(await i.markUncollectible(accountId, params.invoice_id, now), baseUrl, now);
    },
  }),

  // ------------------------------------------------------------------------------ checkout and portal
  defineRoute({
    method: 'POST',
    url: '/checkout-sessions',
    operationId: 'createCheckoutSession',
    summary: 'Create a checkout session (mode payment or subscription)',
    tag: t.checkout,
    auth: 'api_key',
    body: B.CreateCheckoutSessionBody,
    response: B.CheckoutSession,
    status: 201,
    errors: [404],
    handler: ({ accountId, body, now, baseUrl, services }) =>
      services.billing.checkouts.create(accountId, body, now, baseUrl),
  }),
  defineRoute({
    method: 'GET',
    url: '/checkout-sessions',
    operationId: 'listCheckoutSessions',
    summary: 'List checkout sessions, newest first',
    tag: t.checkout,
    auth: 'api_key',
    query: ListOnly,
    response: B.CheckoutSessionList,
    handler: ({ accountId, query, path, services }) => services.billing.checkouts.list(accountId, path, query),
  }),
  defineRoute({
    method: 'GET',
    url: '/checkout-sessions/:checkout_session_id',
    operationId: 'getCheckoutSession',
    summary: 'Retrieve a checkout session',
    tag: t.checkout,
    auth: 'api_key',
    params: B.CheckoutSessionIdParams,
    response: B.CheckoutSession,
    errors: [404],
    handler: ({ accountId, params, services }) => services.billing.checkouts.get(accountId, params.checkout_session_id),
  }),
  defineRoute({
    method: 'POST',
    url: '/checkout-sessions/:checkout_session_id/complete',
    operationId: 'completeCheckoutSession',
    summary: 'Complete a subscription-mode checkout session with a payment method',
    tag: t.checkout,
    auth: 'api_key',
    params: B.CheckoutSessionIdParams,
    body: B.CompleteCheckoutSessionBody,
    response: B.CheckoutSession,
    errors: [404, 409],
    handler: ({ accountId, params, body, now, services }) =>
      services.billing.checkouts.complete(accountId, params.checkout_session_id, body, now),
  }),
  defineRoute({
    method: 'POST',
    url: '/portal-sessions',
    operationId: 'createPortalSession',
    summary: 'Create a customer portal session',
    tag: t.portal,
    auth: 'api_key',
    body: B.CreatePortalSessionBody,
    response: B.PortalSession,
    status: 201,
    errors: [404],
    handler: ({ accountId, body, now, baseUrl, services }) =>
      services.billing.portals.create(accountId, body, now, baseUrl),
  }),
  defineRoute({
    method: 'GET',
    url: '/portal-sessions/:portal_session_id',
    operationId: 'getPortalSession',
    summary: 'Retrieve a portal session',
    tag: t.portal,
    auth: 'api_key',
    params: B.PortalSessionIdParams,
    response: B.PortalSession,
    errors: [404],
    handler: ({ accountId, params, services }) => services.billing.portals.get(accountId, params.portal_session_id),
  }),

  // ---------------------------------------------------------------- hosted-page actions (no API key)
  defineRoute({
    method: 'POST',
    url: '/checkout/:checkout_session_id/complete',
    operationId: 'completeHostedCheckout',
    summary: 'Hosted checkout page: subscribe with a test card',
    tag: t.checkout,
    auth: 'none',
    params: B.CheckoutSessionIdParams,
    body: CardBody,
    response: B.CheckoutSession,
    errors: [404, 409],
    handler: ({ params, body, services }) =>
      services.billing.hosted.completeCheckout(params.checkout_session_id, body.card_number),
  }),
  defineRoute({
    method: 'POST',
    url: '/invoice/:invoice_id/pay',
    operationId: 'payHostedInvoice',
    summary: 'Hosted invoice page: pay the invoice with a test card',
    tag: t.invoices,
    auth: 'none',
    params: B.InvoiceIdParams,
    body: CardBody,
    response: B.Invoice,
    errors: [402, 404, 409],
    handler: ({ params, body, baseUrl, services }) =>
      services.billing.hosted.payInvoice(params.invoice_id, body.card_number, baseUrl),
  }),
  defineRoute({
    method: 'POST',
    url: '/portal/:portal_session_id/payment-method',
    operationId: 'portalUpdateCard',
    summary: "Customer portal: replace the customer's default card",
    tag: t.portal,
    auth: 'none',
    params: B.PortalSessionIdParams,
    body: CardBody,
    response: Type.Object({ default_payment_method: Type.String(), card: Type.Union([Type.String(), Type.Null()]) }),
    errors: [404],
    handler: ({ params, body, services }) =>
      services.billing.hosted.updateCard(params.portal_session_id, body.card_number),
  }),
  defineRoute({
    method: 'POST',
    url: '/portal/:portal_session_id/subscriptions/:subscription_id/cancel',
    operationId: 'portalCancelSubscription',
    summary: 'Customer portal: cancel a subscription at period end',
    tag: t.portal,
    auth: 'none',
    params: Type.Object(
      {
        portal_session_id: Type.String({ minLength: 1, maxLength: 255 }),
        subscription_id: Type.String({ minLength: 1, maxLength: 255 }),
      },
      { additionalProperties: false },
    ),
    body: EmptyBody,
    response: B.Subscription,
    errors: [404, 409],
    handler: ({ params, services }) =>
      services.billing.hosted.cancelAtPeriodEnd(params.portal_session_id, params.subscription_id),
  }),
];
