// Payment sessions (docs/api.md "Payment sessions").
import { Type, type Static } from '@sinclair/typebox';
import { Currency, DateTime, Email, HttpUrl, IdParam, ListQuery, ListOf, Metadata, Nullable, Uuid } from './common.js';
import { MAX_AMOUNT } from './numbers.js';

export const PaymentMethodType = Type.Union([
  Type.Literal('card'),
  Type.Literal('walletone_pay'),
  Type.Literal('wallettwo_pay'),
  Type.Literal('bank_account'),
  Type.Literal('walletthree'),
]);
export type PaymentMethodType = Static<typeof PaymentMethodType>;
export const PAYMENT_METHOD_TYPES: PaymentMethodType[] = [
  'card',
  'walletone_pay',
  'wallettwo_pay',
  'bank_account',
  'walletthree',
];

export const SessionStatus = Type.Union([
  Type.Literal('requires_payment_method'),
  Type.Literal('requires_action'),
  Type.Literal('processing'),
  Type.Literal('succeeded'),
  Type.Literal('failed'),
  Type.Literal('canceled'),
]);
export type SessionStatus = Static<typeof SessionStatus>;

export const CancellationReason = Type.Union([
  Type.Literal('duplicate'),
  Type.Literal('fraudulent'),
  Type.Literal('requested_by_customer'),
  Type.Literal('abandoned'),
]);
export type CancellationReason = Static<typeof CancellationReason>;

export const CaptureMethod = Type.Union([Type.Literal('automatic'), Type.Literal('manual')]);

const SessionCustomer = Type.Object(
  {
    email: Type.Optional(Email),
    name: Type.Optional(Type.String({ maxLength: 256 })),
    phone: Type.Optional(Type.String({ maxLength: 40 })),
  },
  { additionalProperties: false },
);

const AddressLine = Type.String({ maxLength: 256 });
/**
 * A billing or shipping address, stored and echoed as given. The live service's sessions read `street` and
 * `recipient_name`; customers (and Stripe) use `line1`/`line2`: both spellings are accepted.
 */
export const SessionAddress = Type.Object(
  {
    line1: Type.Optional(AddressLine),
    line2: Type.Optional(AddressLine),
    street: Type.Optional(AddressLine),
    city: Type.Optional(AddressLine),
    state: Type.Optional(AddressLine),
    postal_code: Type.Optional(Type.String({ maxLength: 32 })),
    country: Type.Optional(Type.String({ maxLength: 64 })),
    recipient_name: Type.Optional(AddressLine),
  },
  { additionalProperties: false },
);
export type SessionAddress = Static<typeof SessionAddress>;

/** The cardholder's browser, for 3DS risk checks: stored, never echoed (it is the payer's personal data). */
const Browser = Type.Object(
  {
    ip_address: Type.Optional(Type.String({ maxLength: 64 })),
    user_agent: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: false },
);

/** What the cardholder's bank statement shows (22 characters: the card networks' limit, as at Stripe). */
const StatementDescriptor = Type.String({ maxLength: 22 });

/** `redirect_to_url` is the live service's (and Stripe's) form; `url` is payorch's earlier one, kept. */
export const NextAction = Type.Object({
  type: Type.Literal('redirect_to_url'),
  url: Type.String(),
  redirect_to_url: Type.Object({ url: Type.String(), return_url: Type.String() }),
});
export type NextAction = Static<typeof NextAction>;

/** The session's latest payment (the live service calls a payment an attempt). */
export const LatestAttempt = Type.Object({
  id: Uuid,
  psp: Nullable(Type.String()),
  status: Type.String(),
  psp_transaction_id: Nullable(Type.String()),
});
export type LatestAttempt = Static<typeof LatestAttempt>;

export const PaymentSession = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('payment_session'),
    status: SessionStatus,
    amount: Type.Integer(),
    currency: Type.String(),
    client_secret: Type.String(),
    external_id: Nullable(Type.String()),
    description: Nullable(Type.String()),
    customer_email: Nullable(Type.String()),
    customer_name: Nullable(Type.String()),
    customer_phone: Nullable(Type.String()),
    merchant_reference: Nullable(Type.String()),
    statement_descriptor: Nullable(Type.String()),
    billing_address: Nullable(SessionAddress),
    shipping_address: Nullable(SessionAddress),
    save_payment_method: Type.Boolean(),
    capture_method: CaptureMethod,
    payment_method_types: Type.Array(PaymentMethodType),
    success_url: Nullable(Type.String()),
    cancel_url: Nullable(Type.String()),
    fallback_url: Type.String(),
    metadata: Metadata,
    cancellation_reason: Nullable(CancellationReason),
    canceled_at: Nullable(Type.Integer()),
    /** The latest payment of the session, null before the first confirm. */
    latest_attempt: Nullable(LatestAttempt),
    /** What the payer must do next (a 3DS challenge) while the session is requires_action; else null. */
    next_action: Nullable(NextAction),
    expires_at: DateTime,
    created_at: DateTime,
    updated_at: DateTime,
    livemode: Type.Boolean(),
  },
  { $id: 'PaymentSession' },
);
export type PaymentSession = Static<typeof PaymentSession>;

export const CreateSessionBody = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT }),
    currency: Currency,
    external_id: Type.Optional(Type.String({ maxLength: 255 })),
    merchant_reference: Type.Optional(Type.String({ maxLength: 255 })),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    statement_descriptor: Type.Optional(StatementDescriptor),
    customer: Type.Optional(SessionCustomer),
    /** The same as `customer.email` (the live service's e-commerce plugin sends it so). */
    customer_email: Type.Optional(Email),
    billing_address: Type.Optional(SessionAddress),
    shipping_address: Type.Optional(SessionAddress),
    browser: Type.Optional(Browser),
    capture_method: Type.Optional(CaptureMethod),
    payment_method_types: Type.Optional(Type.Array(PaymentMethodType, { minItems: 1, uniqueItems: true })),
    success_url: Type.Optional(HttpUrl),
    /** The same as `success_url` (Stripe's name, which the live service's e-commerce plugin sends). */
    return_url: Type.Optional(HttpUrl),
    cancel_url: Type.Optional(HttpUrl),
    /** Recorded and echoed; test mode saves no payment method. */
    save_payment_method: Type.Optional(Type.Boolean()),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateSessionBody = Static<typeof CreateSessionBody>;

export const UpdateSessionBody = Type.Object(
  {
    amount: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_AMOUNT })),
    currency: Type.Optional(Currency),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    statement_descriptor: Type.Optional(StatementDescriptor),
    customer: Type.Optional(SessionCustomer),
    billing_address: Type.Optional(SessionAddress),
    shipping_address: Type.Optional(SessionAddress),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type UpdateSessionBody = Static<typeof UpdateSessionBody>;

export const CancelSessionBody = Type.Object(
  { cancellation_reason: Type.Optional(CancellationReason) },
  { additionalProperties: false },
);
export type CancelSessionBody = Static<typeof CancelSessionBody>;

export const ListSessionsQuery = Type.Object(
  { ...ListQuery, status: Type.Optional(SessionStatus), external_id: Type.Optional(Type.String({ maxLength: 255 })) },
  { additionalProperties: false },
);
export type ListSessionsQuery = Static<typeof ListSessionsQuery>;

export const SessionIdParams = Type.Object({ session_id: IdParam }, { additionalProperties: false });
export const SessionList = ListOf(PaymentSession);
