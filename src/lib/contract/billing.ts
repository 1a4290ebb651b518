// Billing (docs/api.md "Billing", "Conventions"): customers, products, prices, coupons, subscriptions and their items, usage records,
// invoices, checkout and portal sessions. Amounts are integers in the currency's minor unit.
import { Type, type Static } from '@sinclair/typebox';
import {
  Currency,
  DateTime,
  Email,
  HttpUrl,
  IdParam,
  ListOf,
  ListQuery,
  Metadata,
  Nullable,
  PaymentMethodRef,
  UnixSecondsInput,
} from './common.js';
import { MAX_AMOUNT } from './numbers.js';

const Str = (max = 5000) => Type.String({ maxLength: max });
const Amount = Type.Integer({ minimum: 0, maximum: MAX_AMOUNT });

// ------------------------------------------------------------------------------------------- customers

export const Address = Type.Object(
  {
    line1: Type.Optional(Str(200)),
    line2: Type.Optional(Str(200)),
    city: Type.Optional(Str(200)),
    state: Type.Optional(Str(200)),
    postal_code: Type.Optional(Str(40)),
    country: Type.Optional(Str(2)),
  },
  { additionalProperties: false },
);
export type Address = Static<typeof Address>;

export const TaxId = Type.Object({ type: Str(40), value: Str(100) }, { additionalProperties: false });

export const Customer = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('customer'),
    email: Nullable(Type.String()),
    name: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    description: Nullable(Type.String()),
    billing_address: Nullable(Address),
    shipping_address: Nullable(Address),
    default_payment_method: Nullable(Type.String()),
    tax_exempt: Type.Boolean(),
    tax_ids: Type.Array(TaxId),
    metadata: Metadata,
    created: Type.Integer(),
    livemode: Type.Boolean(),
  },
  { $id: 'Customer' },
);
export type Customer = Static<typeof Customer>;

const customerFields = {
  email: Type.Optional(Email),
  name: Type.Optional(Str(256)),
  phone: Type.Optional(Str(40)),
  description: Type.Optional(Str(1000)),
  billing_address: Type.Optional(Address),
  shipping_address: Type.Optional(Address),
  default_payment_method: Type.Optional(PaymentMethodRef),
  tax_exempt: Type.Optional(Type.Boolean()),
  tax_ids: Type.Optional(Type.Array(TaxId, { maxItems: 10 })),
  metadata: Type.Optional(Metadata),
};
export const CreateCustomerBody = Type.Object(customerFields, { additionalProperties: false });
export type CreateCustomerBody = Static<typeof CreateCustomerBody>;
export const UpdateCustomerBody = Type.Object(customerFields, { additionalProperties: false });
export type UpdateCustomerBody = Static<typeof UpdateCustomerBody>;
export const ListCustomersQuery = Type.Object(
  { ...ListQuery, email: Type.Optional(Str(512)) },
  { additionalProperties: false },
);
export type ListCustomersQuery = Static<typeof ListCustomersQuery>;
export const CustomerList = ListOf(Customer);

// ---------------------------------------------------------------------------------------------- prices

export const RecurringInterval = Type.Union([
  Type.Literal('day'),
  Type.Literal('week'),
  Type.Literal('month'),
  Type.Literal('year'),
]);
export type RecurringInterval = Static<typeof RecurringInterval>;
export const UsageType = Type.Union([Type.Literal('licensed'), Type.Literal('metered')]);
export const AggregateUsage = Type.Union([
  Type.Literal('sum'),
  Type.Literal('last_during_period'),
  Type.Literal('last_ever'),
  Type.Literal('max'),
]);
export type AggregateUsage = Static<typeof AggregateUsage>;
export const BillingScheme = Type.Union([Type.Literal('per_unit'), Type.Literal('tiered')]);
export const TiersMode = Type.Union([Type.Literal('graduated'), Type.Literal('volume')]);

export const Recurring = Type.Object({
  interval: RecurringInterval,
  interval_count: Type.Integer(),
  usage_type: UsageType,
  aggregate_usage: Nullable(AggregateUsage),
});
export type Recurring = Static<typeof Recurring>;

export const Tier = Type.Object({
  up_to: Nullable(Type.Integer()),
  unit_amount: Type.Integer(),
  flat_amount: Type.Integer(),
});
export type Tier = Static<typeof Tier>;

export const Price = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('price'),
    product: Type.String(),
    active: Type.Boolean(),
    currency: Type.String(),
    unit_amount: Nullable(Type.Integer()),
    type: Type.Union([Type.Literal('one_time'), Type.Literal('recurring')]),
    billing_scheme: BillingScheme,
    recurring: Nullable(Recurring),
    tiers: Nullable(Type.Array(Tier)),
    tiers_mode: Nullable(TiersMode),
    nickname: Nullable(Type.String()),
    metadata: Metadata,
    created: Type.Integer(),
    livemode: Type.Boolean(),
  },
  { $id: 'Price' },
);
export type Price = Static<typeof Price>;

const TierInput = Type.Object(
  {
    up_to: Type.Union([Type.Integer({ minimum: 1 }), Type.Literal('inf')]),
    unit_amount: Type.Optional(Amount),
    flat_amount: Type.Optional(Amount),
  },
  { additionalProperties: false },
);

export const CreatePriceBody = Type.Object(
  {
    product: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    product_data: Type.Optional(
      Type.Object(
        { name: Type.String({ minLength: 1, maxLength: 250 }), metadata: Type.Optional(Metadata) },
        { additionalProperties: false },
      ),
    ),
    currency: Currency,
    unit_amount: Type.Optional(Amount),
    billing_scheme: Type.Optional(BillingScheme),
    tiers: Type.Optional(Type.Array(TierInput, { minItems: 1, maxItems: 250 })),
    tiers_mode: Type.Optional(TiersMode),
    /** The price's own `type`, as the live service reads it: must agree with `recurring` (given or not). */
    type: Type.Optional(Type.Union([Type.Literal('one_time'), Type.Literal('recurring')])),
    recurring: Type.Optional(
      Type.Object(
        {
          interval: RecurringInterval,
          interval_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 })),
          usage_type: Type.Optional(UsageType),
          aggregate_usage: Type.Optional(AggregateUsage),
        },
        { additionalProperties: false },
      ),
    ),
    nickname: Type.Optional(Str(250)),
    active: Type.Optional(Type.Boolean()),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreatePriceBody = Static<typeof CreatePriceBody>;
export const UpdatePriceBody = Type.Object(
  { nickname: Type.Optional(Str(250)), active: Type.Optional(Type.Boolean()), metadata: Type.Optional(Metadata) },
  { additionalProperties: false },
);
export type UpdatePriceBody = Static<typeof UpdatePriceBody>;
export const ListPricesQuery = Type.Object(
  {
    ...ListQuery,
    type: Type.Optional(Type.Union([Type.Literal('one_time'), Type.Literal('recurring')])),
    product: Type.Optional(Str(255)),
    active: Type.Optional(Type.Boolean()),
    currency: Type.Optional(Currency),
  },
  { additionalProperties: false },
);
export type ListPricesQuery = Static<typeof ListPricesQuery>;
export const PriceList = ListOf(Price);

// -------------------------------------------------------------------------------------------- products

export const Product = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('product'),
    name: Type.String(),
    description: Nullable(Type.String()),
    statement_descriptor: Nullable(Type.String()),
    unit_label: Nullable(Type.String()),
    images: Type.Array(Type.String()),
    active: Type.Boolean(),
    default_price: Nullable(Type.String()),
    prices: Type.Optional(Type.Array(Price)),
    metadata: Metadata,
    created: Type.Integer(),
    updated: Type.Integer(),
    livemode: Type.Boolean(),
    deleted: Type.Optional(Type.Boolean()),
  },
  { $id: 'Product' },
);
export type Product = Static<typeof Product>;

const productFields = {
  description: Type.Optional(Str(5000)),
  statement_descriptor: Type.Optional(Type.String({ maxLength: 22 })),
  unit_label: Type.Optional(Str(12)),
  images: Type.Optional(Type.Array(HttpUrl, { maxItems: 8 })),
  metadata: Type.Optional(Metadata),
};
export const CreateProductBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 250 }), active: Type.Optional(Type.Boolean()), ...productFields },
  { additionalProperties: false },
);
export type CreateProductBody = Static<typeof CreateProductBody>;
export const UpdateProductBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 250 })),
    is_active: Type.Optional(Type.Boolean()),
    default_price: Type.Optional(Str(255)),
    ...productFields,
  },
  { additionalProperties: false },
);
export type UpdateProductBody = Static<typeof UpdateProductBody>;
const Expand = Type.Array(Type.Literal('prices'), { maxItems: 1 });
export const ProductExpandQuery = Type.Object(
  { expand: Type.Optional(Expand), 'expand[]': Type.Optional(Expand) },
  { additionalProperties: false },
);
export type ProductExpandQuery = Static<typeof ProductExpandQuery>;
export const ListProductsQuery = Type.Object(
  {
    ...ListQuery,
    active: Type.Optional(Type.Boolean()),
    expand: Type.Optional(Expand),
    'expand[]': Type.Optional(Expand),
  },
  { additionalProperties: false },
);
export type ListProductsQuery = Static<typeof ListProductsQuery>;
export const ProductList = ListOf(Product);

// --------------------------------------------------------------------------------------------- coupons

export const CouponDuration = Type.Union([Type.Literal('once'), Type.Literal('repeating'), Type.Literal('forever')]);
export const Coupon = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('coupon'),
    name: Nullable(Type.String()),
    percent_off: Nullable(Type.Integer()),
    amount_off: Nullable(Type.Integer()),
    currency: Nullable(Type.String()),
    duration: CouponDuration,
    duration_in_months: Nullable(Type.Integer()),
    max_redemptions: Nullable(Type.Integer()),
    times_redeemed: Type.Integer(),
    redeem_by: Nullable(Type.Integer()),
    applies_to: Nullable(Type.Object({ products: Type.Array(Type.String()) })),
    valid: Type.Boolean(),
    metadata: Metadata,
    created: Type.Integer(),
    livemode: Type.Boolean(),
  },
  { $id: 'Coupon' },
);
export type Coupon = Static<typeof Coupon>;
export const CreateCouponBody = Type.Object(
  {
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })),
    name: Type.Optional(Str(40)),
    percent_off: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    amount_off: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_AMOUNT })),
    currency: Type.Optional(Currency),
    duration: Type.Optional(CouponDuration),
    duration_in_months: Type.Optional(Type.Integer({ minimum: 1, maximum: 120 })),
    max_redemptions: Type.Optional(Type.Integer({ minimum: 1 })),
    redeem_by: Type.Optional(UnixSecondsInput),
    applies_to: Type.Optional(
      Type.Object({ products: Type.Array(Str(255), { maxItems: 100 }) }, { additionalProperties: false }),
    ),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateCouponBody = Static<typeof CreateCouponBody>;
export const UpdateCouponBody = Type.Object(
  { name: Type.Optional(Str(40)), metadata: Type.Optional(Metadata) },
  { additionalProperties: false },
);
export type UpdateCouponBody = Static<typeof UpdateCouponBody>;
export const ListCouponsQuery = Type.Object({ ...ListQuery }, { additionalProperties: false });
export type ListCouponsQuery = Static<typeof ListCouponsQuery>;
export const CouponList = ListOf(Coupon);

export const Discount = Type.Object({
  coupon: Coupon,
  start: Type.Integer(),
  end: Nullable(Type.Integer()),
});
export type Discount = Static<typeof Discount>;

// --------------------------------------------------------------------------------------- subscriptions

export const SubscriptionStatus = Type.Union([
  Type.Literal('trialing'),
  Type.Literal('active'),
  Type.Literal('past_due'),
  Type.Literal('paused'),
  Type.Literal('canceled'),
  Type.Literal('unpaid'),
]);
export type SubscriptionStatus = Static<typeof SubscriptionStatus>;
export const CollectionMethod = Type.Union([Type.Literal('charge_automatically'), Type.Literal('send_invoice')]);
export type CollectionMethod = Static<typeof CollectionMethod>;

export const SubscriptionItem = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('subscription_item'),
    subscription: Type.String(),
    price: Price,
    quantity: Type.Integer(),
    metadata: Metadata,
    created: Type.Integer(),
  },
  { $id: 'SubscriptionItem' },
);
export type SubscriptionItem = Static<typeof SubscriptionItem>;

export const Subscription = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('subscription'),
    customer: Type.String(),
    status: SubscriptionStatus,
    currency: Type.String(),
    current_period_start: Type.Integer(),
    current_period_end: Type.Integer(),
    billing_cycle_anchor: Type.Integer(),
    trial_start: Nullable(Type.Integer()),
    trial_end: Nullable(Type.Integer()),
    cancel_at_period_end: Type.Boolean(),
    canceled_at: Nullable(Type.Integer()),
    ended_at: Nullable(Type.Integer()),
    paused_at: Nullable(Type.Integer()),
    collection_method: CollectionMethod,
    days_until_due: Nullable(Type.Integer()),
    default_payment_method: Nullable(Type.String()),
    discount: Nullable(Discount),
    items: Type.Object({ object: Type.Literal('list'), data: Type.Array(SubscriptionItem) }),
    latest_invoice: Nullable(Type.String()),
    metadata: Metadata,
    created: Type.Integer(),
    livemode: Type.Boolean(),
  },
  { $id: 'Subscription' },
);
export type Subscription = Static<typeof Subscription>;

const ItemInput = Type.Object(
  {
    price: Type.String({ minLength: 1, maxLength: 255 }),
    quantity: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export const ProrationBehavior = Type.Union([Type.Literal('create_prorations'), Type.Literal('none')]);

export const CreateSubscriptionBody = Type.Object(
  {
    customer: Type.String({ minLength: 1, maxLength: 255 }),
    items: Type.Array(ItemInput, { minItems: 1, maxItems: 20 }),
    trial_period_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 730 })),
    trial_end: Type.Optional(UnixSecondsInput),
    billing_cycle_anchor: Type.Optional(UnixSecondsInput),
    cancel_at_period_end: Type.Optional(Type.Boolean()),
    collection_method: Type.Optional(CollectionMethod),
    days_until_due: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 })),
    default_payment_method: Type.Optional(PaymentMethodRef),
    coupon: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateSubscriptionBody = Static<typeof CreateSubscriptionBody>;

export const UpdateSubscriptionBody = Type.Object(
  {
    quantity: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    items: Type.Optional(
      Type.Array(
        Type.Object(
          {
            id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
            price: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
            quantity: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
            deleted: Type.Optional(Type.Boolean()),
            metadata: Type.Optional(Metadata),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 20 },
      ),
    ),
    cancel_at_period_end: Type.Optional(Type.Boolean()),
    coupon: Type.Optional(Type.String({ maxLength: 255, description: 'a coupon id, or "" to remove the discount' })),
    default_payment_method: Type.Optional(PaymentMethodRef),
    days_until_due: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 })),
    collection_method: Type.Optional(CollectionMethod),
    proration_behavior: Type.Optional(ProrationBehavior),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type UpdateSubscriptionBody = Static<typeof UpdateSubscriptionBody>;

export const CancelSubscriptionBody = Type.Object(
  { at_period_end: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type CancelSubscriptionBody = Static<typeof CancelSubscriptionBody>;
export const ListSubscriptionsQuery = Type.Object(
  { ...ListQuery, customer: Type.Optional(Str(255)), status: Type.Optional(SubscriptionStatus) },
  { additionalProperties: false },
);
export type ListSubscriptionsQuery = Static<typeof ListSubscriptionsQuery>;
export const SubscriptionList = ListOf(Subscription);

export const CreateSubscriptionItemBody = Type.Object(
  {
    subscription: Type.String({ minLength: 1, maxLength: 255 }),
    price: Type.String({ minLength: 1, maxLength: 255 }),
    quantity: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    proration_behavior: Type.Optional(ProrationBehavior),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateSubscriptionItemBody = Static<typeof CreateSubscriptionItemBody>;
export const UpdateSubscriptionItemBody = Type.Object(
  {
    quantity: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    proration_behavior: Type.Optional(ProrationBehavior),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type UpdateSubscriptionItemBody = Static<typeof UpdateSubscriptionItemBody>;
export const DeleteSubscriptionItemQuery = Type.Object(
  { proration_behavior: Type.Optional(ProrationBehavior) },
  { additionalProperties: false },
);
export const ListSubscriptionItemsQuery = Type.Object(
  { ...ListQuery, subscription: Str(255) },
  { additionalProperties: false },
);
export type ListSubscriptionItemsQuery = Static<typeof ListSubscriptionItemsQuery>;
export const SubscriptionItemList = ListOf(SubscriptionItem);

// -------------------------------------------------------------------------------------- usage records

export const UsageRecord = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('usage_record'),
    subscription_item: Type.String(),
    quantity: Type.Integer(),
    timestamp: Type.Integer(),
    action: Type.Union([Type.Literal('increment'), Type.Literal('set')]),
    created: Type.Integer(),
    livemode: Type.Boolean(),
  },
  { $id: 'UsageRecord' },
);
export type UsageRecord = Static<typeof UsageRecord>;
export const CreateUsageRecordBody = Type.Object(
  {
    subscription_item: Type.String({ minLength: 1, maxLength: 255 }),
    quantity: Type.Integer({ minimum: 0, maximum: 1_000_000_000 }),
    timestamp: Type.Optional(UnixSecondsInput),
    action: Type.Optional(Type.Union([Type.Literal('increment'), Type.Literal('set')])),
  },
  { additionalProperties: false },
);
export type CreateUsageRecordBody = Static<typeof CreateUsageRecordBody>;
export const UsageSummary = Type.Object({
  id: Type.String(),
  object: Type.Literal('usage_record_summary'),
  subscription_item: Type.String(),
  period: Type.Object({ start: Type.Integer(), end: Type.Integer() }),
  total_usage: Type.Integer(),
  invoice: Nullable(Type.String()),
  livemode: Type.Boolean(),
});
export type UsageSummary = Static<typeof UsageSummary>;
export const UsageSummaryQuery = Type.Object(
  { ...ListQuery, subscription_item: Str(255) },
  { additionalProperties: false },
);
export type UsageSummaryQuery = Static<typeof UsageSummaryQuery>;
export const UsageSummaryList = ListOf(UsageSummary);

// -------------------------------------------------------------------------------------------- invoices

export const InvoiceStatus = Type.Union([
  Type.Literal('draft'),
  Type.Literal('open'),
  Type.Literal('paid'),
  Type.Literal('void'),
  Type.Literal('uncollectible'),
  Type.Literal('past_due'),
]);
export type InvoiceStatus = Static<typeof InvoiceStatus>;

export const LineItem = Type.Object({
  id: Type.String(),
  object: Type.Literal('line_item'),
  type: Type.Union([
    Type.Literal('subscription'),
    Type.Literal('usage'),
    Type.Literal('proration'),
    Type.Literal('invoiceitem'),
    Type.Literal('discount'),
  ]),
  amount: Type.Integer(),
  currency: Type.String(),
  description: Type.String(),
  price: Nullable(Type.Object({ id: Type.String(), product: Type.String() })),
  quantity: Nullable(Type.Integer()),
  period: Type.Object({ start: Type.Integer(), end: Type.Integer() }),
  coupon: Nullable(Type.String()),
});
export type LineItem = Static<typeof LineItem>;

export const Invoice = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('invoice'),
    number: Nullable(Type.String()),
    customer: Type.String(),
    subscription: Nullable(Type.String()),
    billing_reason: Type.String(),
    collection_method: CollectionMethod,
    currency: Type.String(),
    description: Nullable(Type.String()),
    hosted_invoice_url: Type.String(),
    status: InvoiceStatus,
    subtotal: Type.Integer(),
    discount_amount: Type.Integer(),
    tax: Type.Integer(),
    total: Type.Integer(),
    amount_due: Type.Integer(),
    amount_paid: Type.Integer(),
    amount_remaining: Type.Integer(),
    paid: Type.Boolean(),
    attempt_count: Type.Integer(),
    next_payment_attempt: Nullable(Type.Integer()),
    last_payment_error: Nullable(
      Type.Object({ code: Type.String(), decline_code: Nullable(Type.String()), message: Type.String() }),
    ),
    payment_id: Nullable(Type.String()),
    discount: Nullable(Discount),
    days_until_due: Nullable(Type.Integer()),
    due_date: Nullable(Type.Integer()),
    period_start: Type.Integer(),
    period_end: Type.Integer(),
    finalized_at: Nullable(Type.Integer()),
    paid_at: Nullable(Type.Integer()),
    voided_at: Nullable(Type.Integer()),
    marked_uncollectible_at: Nullable(Type.Integer()),
    lines: Type.Object({ object: Type.Literal('list'), data: Type.Array(LineItem) }),
    metadata: Metadata,
    created: Type.Integer(),
    livemode: Type.Boolean(),
  },
  { $id: 'Invoice' },
);
export type Invoice = Static<typeof Invoice>;

const InvoiceLineInput = Type.Object(
  {
    price: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    amount: Type.Optional(Type.Integer({ minimum: -MAX_AMOUNT, maximum: MAX_AMOUNT })),
    description: Type.Optional(Str(500)),
  },
  { additionalProperties: false },
);
export const CreateInvoiceBody = Type.Object(
  {
    customer: Type.String({ minLength: 1, maxLength: 255 }),
    currency: Type.Optional(Currency),
    lines: Type.Optional(Type.Array(InvoiceLineInput, { maxItems: 250 })),
    collection_method: Type.Optional(CollectionMethod),
    days_until_due: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 })),
    description: Type.Optional(Str(1500)),
    coupon: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateInvoiceBody = Static<typeof CreateInvoiceBody>;
export const UpdateInvoiceBody = Type.Object(
  {
    description: Type.Optional(Str(1500)),
    metadata: Type.Optional(Metadata),
    days_until_due: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 })),
    collection_method: Type.Optional(CollectionMethod),
    lines: Type.Optional(Type.Array(InvoiceLineInput, { maxItems: 250 })),
    coupon: Type.Optional(Type.String({ maxLength: 255 })),
  },
  { additionalProperties: false },
);
export type UpdateInvoiceBody = Static<typeof UpdateInvoiceBody>;
export const PayInvoiceBody = Type.Object(
  { payment_method: Type.Optional(PaymentMethodRef), paid_out_of_band: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type PayInvoiceBody = Static<typeof PayInvoiceBody>;
export const ListInvoicesQuery = Type.Object(
  {
    ...ListQuery,
    customer: Type.Optional(Str(255)),
    subscription: Type.Optional(Str(255)),
    status: Type.Optional(InvoiceStatus),
  },
  { additionalProperties: false },
);
export type ListInvoicesQuery = Static<typeof ListInvoicesQuery>;
export const InvoiceList = ListOf(Invoice);

// ------------------------------------------------------------------------------- checkout and portal

export const CheckoutSession = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('checkout_session'),
    mode: Type.Union([Type.Literal('payment'), Type.Literal('subscription')]),
    status: Type.Union([Type.Literal('open'), Type.Literal('complete'), Type.Literal('expired')]),
    customer: Nullable(Type.String()),
    customer_email: Nullable(Type.String()),
    line_items: Type.Object({
      object: Type.Literal('list'),
      data: Type.Array(
        Type.Object({
          price: Type.String(),
          quantity: Type.Integer(),
          amount: Type.Integer(),
          description: Type.String(),
        }),
      ),
    }),
    amount_total: Type.Integer(),
    currency: Type.String(),
    url: Type.String(),
    payment_session: Nullable(Type.String()),
    subscription: Nullable(Type.String()),
    success_url: Nullable(Type.String()),
    cancel_url: Nullable(Type.String()),
    trial_period_days: Nullable(Type.Integer()),
    metadata: Metadata,
    created: Type.Integer(),
    completed_at: Nullable(DateTime),
    expires_at: DateTime,
    livemode: Type.Boolean(),
  },
  { $id: 'CheckoutSession' },
);
export type CheckoutSession = Static<typeof CheckoutSession>;
export const CreateCheckoutSessionBody = Type.Object(
  {
    mode: Type.Union([Type.Literal('payment'), Type.Literal('subscription')]),
    line_items: Type.Array(
      Type.Object(
        {
          price: Type.String({ minLength: 1, maxLength: 255 }),
          quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 20 },
    ),
    customer: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    customer_email: Type.Optional(Email),
    success_url: Type.Optional(HttpUrl),
    cancel_url: Type.Optional(HttpUrl),
    trial_period_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 730 })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateCheckoutSessionBody = Static<typeof CreateCheckoutSessionBody>;
export const CompleteCheckoutSessionBody = Type.Object(
  { payment_method: PaymentMethodRef },
  { additionalProperties: false },
);
export type CompleteCheckoutSessionBody = Static<typeof CompleteCheckoutSessionBody>;
export const ListCheckoutSessionsQuery = Type.Object({ ...ListQuery }, { additionalProperties: false });
export const CheckoutSessionList = ListOf(CheckoutSession);

export const PortalSession = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('portal_session'),
    customer: Type.String(),
    return_url: Nullable(Type.String()),
    url: Type.String(),
    created: Type.Integer(),
    expires_at: DateTime,
    livemode: Type.Boolean(),
  },
  { $id: 'PortalSession' },
);
export type PortalSession = Static<typeof PortalSession>;
export const CreatePortalSessionBody = Type.Object(
  { customer: Type.String({ minLength: 1, maxLength: 255 }), return_url: Type.Optional(HttpUrl) },
  { additionalProperties: false },
);
export type CreatePortalSessionBody = Static<typeof CreatePortalSessionBody>;

// --------------------------------------------------------------------------------------------- params

export const IdParams = Type.Object({ id: IdParam }, { additionalProperties: false });
export const CustomerIdParams = Type.Object({ customer_id: IdParam }, { additionalProperties: false });
export const ProductIdParams = Type.Object({ product_id: IdParam }, { additionalProperties: false });
export const PriceIdParams = Type.Object({ price_id: IdParam }, { additionalProperties: false });
export const CouponIdParams = Type.Object({ coupon_id: IdParam }, { additionalProperties: false });
export const SubscriptionIdParams = Type.Object({ subscription_id: IdParam }, { additionalProperties: false });
export const SubscriptionItemIdParams = Type.Object({ item_id: IdParam }, { additionalProperties: false });
export const InvoiceIdParams = Type.Object({ invoice_id: IdParam }, { additionalProperties: false });
export const CheckoutSessionIdParams = Type.Object({ checkout_session_id: IdParam }, { additionalProperties: false });
export const PortalSessionIdParams = Type.Object({ portal_session_id: IdParam }, { additionalProperties: false });

/** What a DELETE answers. */
export interface DeletedResource {
  id: string;
  object: string;
  deleted: true;
}
