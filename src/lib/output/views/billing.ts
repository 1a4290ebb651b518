// How billing objects are shown to people: detail fields and list columns per resource.
import type {
  CheckoutSession,
  Coupon,
  Customer,
  Invoice,
  PortalSession,
  Price,
  Product,
  Subscription,
  SubscriptionItem,
  UsageRecord,
  UsageSummary,
} from '../../contract/billing.js';
import type { ClockState } from '../../contract/meta.js';
import { formatMoney, formatTime } from '../format.js';
import type { Column, Field } from '../render.js';

const meta = (m: Record<string, string> | undefined) =>
  Object.entries(m ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
const every = (r: { interval: string; interval_count: number } | null | undefined) =>
  r ? (r.interval_count === 1 ? `/${r.interval}` : `/${r.interval_count} ${r.interval}s`) : '';

export function priceText(p: Price): string {
  if (p.billing_scheme === 'tiered')
    return `tiered (${p.tiers_mode}, ${p.tiers?.length ?? 0} tiers) ${p.currency}${every(p.recurring)}`;
  return `${formatMoney(p.unit_amount, p.currency)}${every(p.recurring)}`;
}

export const customerFields: Field<Customer>[] = [
  { label: 'id', value: (c) => c.id },
  { label: 'email', value: (c) => c.email },
  { label: 'name', value: (c) => c.name },
  { label: 'phone', value: (c) => c.phone },
  { label: 'description', value: (c) => c.description },
  { label: 'payment method', value: (c) => c.default_payment_method },
  { label: 'tax exempt', value: (c) => (c.tax_exempt ? 'yes' : '') },
  { label: 'metadata', value: (c) => meta(c.metadata) },
  { label: 'created', value: (c) => formatTime(c.created) },
];
export const customerColumns: Column<Customer>[] = [
  { header: 'ID', value: (c) => c.id },
  { header: 'EMAIL', value: (c) => c.email, shrink: true },
  { header: 'NAME', value: (c) => c.name, shrink: true },
  { header: 'PAYMENT METHOD', value: (c) => c.default_payment_method, optional: true },
  { header: 'CREATED', value: (c) => formatTime(c.created), optional: true },
];

export const productFields: Field<Product>[] = [
  { label: 'id', value: (p) => p.id },
  { label: 'name', value: (p) => p.name },
  { label: 'active', value: (p) => String(p.active), status: true },
  { label: 'description', value: (p) => p.description },
  { label: 'unit label', value: (p) => p.unit_label },
  { label: 'default price', value: (p) => p.default_price },
  { label: 'prices', value: (p) => p.prices?.map((x) => `${x.id} ${priceText(x)}`).join('; ') },
  { label: 'metadata', value: (p) => meta(p.metadata) },
  { label: 'created', value: (p) => formatTime(p.created) },
  { label: 'updated', value: (p) => formatTime(p.updated) },
];
export const productColumns: Column<Product>[] = [
  { header: 'ID', value: (p) => p.id },
  { header: 'NAME', value: (p) => p.name, shrink: true },
  { header: 'ACTIVE', value: (p) => String(p.active), status: true },
  { header: 'DEFAULT PRICE', value: (p) => p.default_price, optional: true },
  { header: 'CREATED', value: (p) => formatTime(p.created), optional: true },
];

export const priceFields: Field<Price>[] = [
  { label: 'id', value: (p) => p.id },
  { label: 'product', value: (p) => p.product },
  { label: 'price', value: priceText },
  { label: 'type', value: (p) => p.type },
  {
    label: 'usage',
    value: (p) =>
      p.recurring
        ? `${p.recurring.usage_type}${p.recurring.aggregate_usage ? ` (${p.recurring.aggregate_usage})` : ''}`
        : '',
  },
  {
    label: 'tiers',
    value: (p) =>
      p.tiers
        ?.map(
          (t) =>
            `≤${t.up_to ?? '∞'}: ${formatMoney(t.unit_amount, p.currency)}${t.flat_amount ? ` + ${formatMoney(t.flat_amount, p.currency)}` : ''}`,
        )
        .join('; '),
  },
  { label: 'active', value: (p) => String(p.active), status: true },
  { label: 'nickname', value: (p) => p.nickname },
  { label: 'metadata', value: (p) => meta(p.metadata) },
  { label: 'created', value: (p) => formatTime(p.created) },
];
export const priceColumns: Column<Price>[] = [
  { header: 'ID', value: (p) => p.id },
  { header: 'PRODUCT', value: (p) => p.product, optional: true },
  { header: 'PRICE', value: priceText, shrink: true },
  { header: 'TYPE', value: (p) => (p.recurring?.usage_type === 'metered' ? 'metered' : p.type) },
  { header: 'ACTIVE', value: (p) => String(p.active), status: true },
  { header: 'NICKNAME', value: (p) => p.nickname, shrink: true, optional: true },
];

const couponOff = (c: Coupon) =>
  c.percent_off !== null ? `${c.percent_off}% off` : `${formatMoney(c.amount_off, c.currency)} off`;
const couponDuration = (c: Coupon) => (c.duration === 'repeating' ? `${c.duration_in_months} months` : c.duration);
export const couponFields: Field<Coupon>[] = [
  { label: 'id', value: (c) => c.id },
  { label: 'name', value: (c) => c.name },
  { label: 'discount', value: couponOff },
  { label: 'duration', value: couponDuration },
  { label: 'valid', value: (c) => String(c.valid), status: true },
  {
    label: 'redeemed',
    value: (c) => `${c.times_redeemed}${c.max_redemptions !== null ? ` of ${c.max_redemptions}` : ''}`,
  },
  { label: 'redeem by', value: (c) => formatTime(c.redeem_by) },
  { label: 'products', value: (c) => c.applies_to?.products.join(', ') },
  { label: 'created', value: (c) => formatTime(c.created) },
];
export const couponColumns: Column<Coupon>[] = [
  { header: 'ID', value: (c) => c.id },
  { header: 'NAME', value: (c) => c.name, shrink: true },
  { header: 'DISCOUNT', value: couponOff },
  { header: 'DURATION', value: couponDuration },
  { header: 'REDEEMED', value: (c) => c.times_redeemed },
  { header: 'VALID', value: (c) => String(c.valid), status: true },
];

const itemsText = (s: Subscription) => s.items.data.map((i) => `${i.quantity} × ${priceText(i.price)}`).join(', ');
export const subscriptionFields: Field<Subscription>[] = [
  { label: 'id', value: (s) => s.id },
  { label: 'status', value: (s) => s.status, status: true },
  { label: 'customer', value: (s) => s.customer },
  { label: 'items', value: itemsText },
  { label: 'period', value: (s) => `${formatTime(s.current_period_start)} → ${formatTime(s.current_period_end)}` },
  { label: 'trial', value: (s) => (s.trial_end ? `${formatTime(s.trial_start)} → ${formatTime(s.trial_end)}` : '') },
  {
    label: 'collection',
    value: (s) => `${s.collection_method}${s.days_until_due !== null ? ` (${s.days_until_due} days)` : ''}`,
  },
  { label: 'discount', value: (s) => (s.discount ? s.discount.coupon.id : '') },
  {
    label: 'cancels',
    value: (s) => (s.cancel_at_period_end ? `at period end (${formatTime(s.current_period_end)})` : ''),
  },
  { label: 'ended', value: (s) => formatTime(s.ended_at) },
  { label: 'latest invoice', value: (s) => s.latest_invoice },
  { label: 'metadata', value: (s) => meta(s.metadata) },
  { label: 'created', value: (s) => formatTime(s.created) },
];
export const subscriptionColumns: Column<Subscription>[] = [
  { header: 'ID', value: (s) => s.id },
  { header: 'STATUS', value: (s) => s.status, status: true },
  { header: 'CUSTOMER', value: (s) => s.customer, optional: true },
  { header: 'ITEMS', value: itemsText, shrink: true },
  { header: 'PERIOD END', value: (s) => formatTime(s.current_period_end), optional: true },
];

export const itemFields: Field<SubscriptionItem>[] = [
  { label: 'id', value: (i) => i.id },
  { label: 'subscription', value: (i) => i.subscription },
  { label: 'price', value: (i) => `${i.price.id} ${priceText(i.price)}` },
  { label: 'quantity', value: (i) => i.quantity },
  { label: 'created', value: (i) => formatTime(i.created) },
];
export const itemColumns: Column<SubscriptionItem>[] = [
  { header: 'ID', value: (i) => i.id },
  { header: 'PRICE', value: (i) => i.price.id },
  { header: 'AMOUNT', value: (i) => priceText(i.price), shrink: true },
  { header: 'QUANTITY', value: (i) => i.quantity },
];

export const usageFields: Field<UsageRecord>[] = [
  { label: 'id', value: (u) => u.id },
  { label: 'item', value: (u) => u.subscription_item },
  { label: 'quantity', value: (u) => u.quantity },
  { label: 'action', value: (u) => u.action },
  { label: 'timestamp', value: (u) => formatTime(u.timestamp) },
];
export const usageSummaryColumns: Column<UsageSummary>[] = [
  { header: 'PERIOD START', value: (u) => formatTime(u.period.start) },
  { header: 'PERIOD END', value: (u) => formatTime(u.period.end) },
  { header: 'TOTAL USAGE', value: (u) => u.total_usage },
  { header: 'INVOICE', value: (u) => u.invoice, optional: true },
];

export const invoiceFields: Field<Invoice>[] = [
  { label: 'id', value: (i) => i.id },
  { label: 'number', value: (i) => i.number },
  { label: 'status', value: (i) => i.status, status: true },
  { label: 'customer', value: (i) => i.customer },
  { label: 'subscription', value: (i) => i.subscription },
  { label: 'subtotal', value: (i) => formatMoney(i.subtotal, i.currency) },
  { label: 'discount', value: (i) => (i.discount_amount ? formatMoney(-i.discount_amount, i.currency) : '') },
  { label: 'total', value: (i) => formatMoney(i.total, i.currency) },
  { label: 'paid', value: (i) => formatMoney(i.amount_paid, i.currency) },
  { label: 'remaining', value: (i) => formatMoney(i.amount_remaining, i.currency) },
  { label: 'lines', value: (i) => i.lines.data.map((l) => `${l.description}: ${formatMoney(l.amount, l.currency)}`) },
  { label: 'collection', value: (i) => i.collection_method },
  { label: 'due', value: (i) => formatTime(i.due_date) },
  { label: 'attempts', value: (i) => (i.attempt_count ? String(i.attempt_count) : '') },
  { label: 'next attempt', value: (i) => formatTime(i.next_payment_attempt) },
  {
    label: 'last error',
    value: (i) =>
      i.last_payment_error
        ? `${i.last_payment_error.code}${i.last_payment_error.decline_code ? ` (${i.last_payment_error.decline_code})` : ''}`
        : '',
  },
  { label: 'period', value: (i) => `${formatTime(i.period_start)} → ${formatTime(i.period_end)}` },
  { label: 'hosted page', value: (i) => i.hosted_invoice_url },
  { label: 'created', value: (i) => formatTime(i.created) },
];
/** Who a customer is, for a column: the email, else the name, else (not known, or neither set) the id. */
const who = (customers: ReadonlyMap<string, Customer>, id: string) => {
  const c = customers.get(id);
  return c?.email || c?.name || id;
};

/** Invoice rows; `customers` (looked up by the command) turns the customer's id into who it is. */
export const invoiceColumns = (customers: ReadonlyMap<string, Customer> = new Map()): Column<Invoice>[] => [
  { header: 'ID', value: (i) => i.id },
  { header: 'NUMBER', value: (i) => i.number, optional: true },
  { header: 'STATUS', value: (i) => i.status, status: true },
  { header: 'TOTAL', value: (i) => formatMoney(i.total, i.currency) },
  { header: 'CUSTOMER', value: (i) => who(customers, i.customer), shrink: true },
  { header: 'CREATED', value: (i) => formatTime(i.created), optional: true },
];

export const checkoutFields: Field<CheckoutSession>[] = [
  { label: 'id', value: (c) => c.id },
  { label: 'mode', value: (c) => c.mode },
  { label: 'status', value: (c) => c.status, status: true },
  { label: 'total', value: (c) => formatMoney(c.amount_total, c.currency) },
  { label: 'items', value: (c) => c.line_items.data.map((l) => `${l.quantity} × ${l.description}`).join(', ') },
  { label: 'customer', value: (c) => c.customer ?? c.customer_email },
  { label: 'url', value: (c) => c.url },
  { label: 'payment session', value: (c) => c.payment_session },
  { label: 'subscription', value: (c) => c.subscription },
  { label: 'expires', value: (c) => formatTime(c.expires_at) },
];
export const checkoutColumns: Column<CheckoutSession>[] = [
  { header: 'ID', value: (c) => c.id },
  { header: 'MODE', value: (c) => c.mode },
  { header: 'STATUS', value: (c) => c.status, status: true },
  { header: 'TOTAL', value: (c) => formatMoney(c.amount_total, c.currency) },
  { header: 'CREATED', value: (c) => formatTime(c.created), optional: true },
];

export const portalFields: Field<PortalSession>[] = [
  { label: 'id', value: (p) => p.id },
  { label: 'customer', value: (p) => p.customer },
  { label: 'url', value: (p) => p.url },
  { label: 'return url', value: (p) => p.return_url },
  { label: 'expires', value: (p) => formatTime(p.expires_at) },
];

export const clockFields: Field<ClockState>[] = [{ label: 'now', value: (c) => formatTime(c.now_iso) }];
export const clockRunColumns: Column<ClockState['ran'][number]>[] = [
  { header: 'AT', value: (r) => formatTime(r.at) },
  { header: 'WORK', value: (r) => r.name, shrink: true },
  { header: 'COUNT', value: (r) => r.count },
];
