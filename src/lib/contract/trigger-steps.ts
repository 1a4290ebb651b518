// The named steps of each trigger scenario (docs/api.md "Test triggers"): what `override`, `add`, `remove` and
// `skip` of POST /test-helpers/trigger name, and `payorch trigger --list` shows. Each is the body of one public
// request the scenario makes through the domain (the route whose schema checks it once edited). The names are
// those of the event's built-in fixture (`payorch fixtures show EVENT`) where it has the same request.
// test/events/trigger.test.ts checks that each scenario runs exactly these steps.
import type { EventType } from './event-types.js';

export interface TriggerStep {
  name: string;
  /** The request whose body the step is (`POST /create-session`). */
  request: string;
}

/** The request each step is: by step name, or by object and step name for `update` and `cancel`. */
const REQUESTS: Record<string, string> = {
  session: 'POST /create-session',
  payment: 'POST /confirm-payment/{session}',
  refund: 'POST /refund-payment/{payment}',
  customer: 'POST /customers',
  product: 'POST /products',
  price: 'POST /prices',
  coupon: 'POST /coupons',
  subscription: 'POST /subscriptions',
  invoice: 'POST /invoices',
  checkout_session: 'POST /checkout-sessions',
  bank_account: 'POST /bank-accounts',
  ledger_account: 'POST /ledger-accounts',
  funding_account: 'POST /ledger-accounts',
  journal_entry: 'POST /journal-entries',
  hold: 'POST /ledger-accounts/{ledger_account}/holds',
  capture: 'POST /holds/{hold}/capture',
  freeze: 'POST /ledger-accounts/{ledger_account}/freeze',
  unfreeze: 'POST /ledger-accounts/{ledger_account}/unfreeze',
  close: 'POST /ledger-accounts/{ledger_account}/close',
  identity_token: 'POST /identity-tokens',
  kyc_verification: 'POST /kyc-verifications',
  'payment_session update': 'PATCH /sessions/{session}',
  'payment_session cancel': 'POST /sessions/{session}/cancel',
  'payment cancel': 'POST /sessions/{session}/cancel',
  'bank_account update': 'PATCH /bank-accounts/{bank_account}',
  'customer update': 'PATCH /customers/{customer}',
  'product update': 'PATCH /products/{product}',
  'price update': 'PATCH /prices/{price}',
  'coupon update': 'PATCH /coupons/{coupon}',
  'subscription update': 'PATCH /subscriptions/{subscription}',
  'subscription cancel': 'POST /subscriptions/{subscription}/cancel',
  'invoice update': 'PATCH /invoices/{invoice}',
};

const TABLE: Record<EventType, string[]> = {
  'payment.requires_action': ['session', 'payment'],
  'payment.authorized': ['session', 'payment'],
  'payment.captured': ['session', 'payment'],
  'payment.failed': ['session', 'payment'],
  'payment.canceled': ['session', 'payment', 'cancel'],
  'refund.succeeded': ['session', 'payment', 'refund'],
  'refund.failed': ['session', 'payment', 'refund'],
  'payment_session.created': ['session'],
  'payment_session.updated': ['session', 'update'],
  'payment_session.succeeded': ['session', 'payment'],
  'payment_session.failed': ['session', 'payment'],
  'payment_session.canceled': ['session', 'cancel'],
  'payment_session.expired': ['session'],
  'bank_account.created': ['bank_account'],
  'bank_account.updated': ['bank_account', 'update'],
  'bank_account.verified': ['bank_account'],
  'bank_account.verification_failed': ['bank_account'],
  'bank_account.deleted': ['bank_account'],
  'network_token.created': [],
  'network_token.deleted': [],
  'customer.created': ['customer'],
  'customer.updated': ['customer', 'update'],
  'customer.deleted': ['customer'],
  'product.created': ['product'],
  'product.updated': ['product', 'update'],
  'product.deleted': ['product'],
  'price.created': ['price'],
  'price.updated': ['price', 'update'],
  'coupon.created': ['coupon'],
  'coupon.updated': ['coupon', 'update'],
  'coupon.deleted': ['coupon'],
  'subscription.created': ['customer', 'price', 'subscription'],
  'subscription.updated': ['customer', 'price', 'subscription', 'update'],
  'subscription.trial_will_end': ['customer', 'price', 'subscription'],
  'subscription.renewed': ['customer', 'price', 'subscription'],
  'subscription.canceled': ['customer', 'price', 'subscription', 'cancel'],
  'invoice.upcoming': ['customer', 'price', 'subscription'],
  'invoice.created': ['customer', 'invoice'],
  'invoice.updated': ['customer', 'invoice', 'update'],
  'invoice.deleted': ['customer', 'invoice'],
  'invoice.finalized': ['customer', 'invoice'],
  'invoice.paid': ['customer', 'invoice'],
  'invoice.payment_failed': ['customer', 'price', 'subscription'],
  'invoice.overdue': ['customer', 'invoice'],
  'invoice.marked_uncollectible': ['customer', 'invoice'],
  'invoice.voided': ['customer', 'invoice'],
  'checkout_session.completed': ['price', 'checkout_session', 'payment'],
  'checkout_session.expired': ['price', 'checkout_session'],
  'ledger_account.created': ['ledger_account'],
  'ledger_account.frozen': ['ledger_account', 'freeze'],
  'ledger_account.unfrozen': ['ledger_account', 'freeze', 'unfreeze'],
  'ledger_account.closed': ['ledger_account', 'close'],
  'journal_entry.created': ['ledger_account', 'funding_account', 'journal_entry'],
  'hold.created': ['ledger_account', 'funding_account', 'journal_entry', 'hold'],
  'hold.captured': ['ledger_account', 'funding_account', 'journal_entry', 'hold', 'capture'],
  'hold.released': ['ledger_account', 'funding_account', 'journal_entry', 'hold'],
  'hold.expired': ['ledger_account', 'funding_account', 'journal_entry', 'hold'],
  'kyc_verification.created': ['kyc_verification'],
  'kyc_verification.processing': ['identity_token', 'kyc_verification'],
  'kyc_verification.verified': ['identity_token', 'kyc_verification'],
  'kyc_verification.rejected': ['identity_token', 'kyc_verification'],
  'kyc_verification.requires_input': ['identity_token', 'kyc_verification'],
  'kyc_verification.canceled': ['kyc_verification'],
  'identity_token.created': ['identity_token'],
  'identity_token.deleted': ['identity_token'],
};

/** The named steps of the scenario of `type`, in the order it runs them. */
export function triggerSteps(type: EventType): TriggerStep[] {
  const object = type.slice(0, type.indexOf('.'));
  return (TABLE[type] ?? []).map((name) => ({ name, request: REQUESTS[`${object} ${name}`] ?? REQUESTS[name]! }));
}
