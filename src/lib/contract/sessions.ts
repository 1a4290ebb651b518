// Payment sessions (service-interface.md "Payment session", contract.md §7).
import { Type, type Static } from '@sinclair/typebox';
import { Currency, DateTime, Email, HttpUrl, IdParam, ListQuery, ListOf, Metadata, Nullable, Uuid } from './common.js';

export const PaymentMethodType = Type.Union([
  Type.Literal('card'),
  Type.Literal('walletone_pay'),
  Type.Literal('wallettwo_pay'),
  Type.Literal('bank_account'),
  Type.Literal('walletthree'),
]);
export type PaymentMethodType = Static<typeof PaymentMethodType>;
export const PAYMENT_METHOD_TYPES: PaymentMethodType[] = ['card', 'walletone_pay', 'wallettwo_pay', 'bank_account', 'walletthree'];

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
  { email: Type.Optional(Email), name: Type.Optional(Type.String({ maxLength: 256 })) },
  { additionalProperties: false },
);

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
    capture_method: CaptureMethod,
    payment_method_types: Type.Array(PaymentMethodType),
    success_url: Nullable(Type.String()),
    cancel_url: Nullable(Type.String()),
    fallback_url: Type.String(),
    metadata: Metadata,
    cancellation_reason: Nullable(CancellationReason),
    canceled_at: Nullable(Type.Integer()),
    expires_at: DateTime,
    created_at: DateTime,
    livemode: Type.Boolean(),
  },
  { $id: 'PaymentSession' },
);
export type PaymentSession = Static<typeof PaymentSession>;

export const CreateSessionBody = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: 99_999_999_999 }),
    currency: Currency,
    external_id: Type.Optional(Type.String({ maxLength: 255 })),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    customer: Type.Optional(SessionCustomer),
    capture_method: Type.Optional(CaptureMethod),
    payment_method_types: Type.Optional(Type.Array(PaymentMethodType, { minItems: 1, uniqueItems: true })),
    success_url: Type.Optional(HttpUrl),
    cancel_url: Type.Optional(HttpUrl),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateSessionBody = Static<typeof CreateSessionBody>;

export const UpdateSessionBody = Type.Object(
  {
    amount: Type.Optional(Type.Integer({ minimum: 1, maximum: 99_999_999_999 })),
    currency: Type.Optional(Currency),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    customer: Type.Optional(SessionCustomer),
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
