// Payments, routing, 3DS, wallets, the test vault, bank accounts and network tokens
// (docs/api.md "Payments", "Bank accounts", "3D Secure").
import { Type, type Static } from '@sinclair/typebox';
import {
  Currency,
  DateTime,
  HttpsUrl,
  IdParam,
  ListOf,
  ListQuery,
  Metadata,
  Nullable,
  Uuid,
  UnixMilliseconds,
  UnixSeconds,
} from './common.js';
import { NextAction, PaymentMethodType } from './sessions.js';

/** The eleven processors of the local server (contract §7). */
export const PSP_IDS = [
  'aurora',
  'basalt',
  'cobalt',
  'dune',
  'ember',
  'fjord',
  'garnet',
  'harbor',
  'iris',
  'jasper',
  'krypton',
] as const;
export type PspId = (typeof PSP_IDS)[number];
export const PspId = Type.Union(PSP_IDS.map((id) => Type.Literal(id)));

/** `requires_action`: waiting for the payer's 3DS challenge (the live service's value; see docs/api.md "Live-service parity"). */
export const PaymentStatus = Type.Union([
  Type.Literal('requires_action'),
  Type.Literal('pending'),
  Type.Literal('authorized'),
  Type.Literal('captured'),
  Type.Literal('failed'),
  Type.Literal('canceled'),
  Type.Literal('refunded'),
]);
export type PaymentStatus = Static<typeof PaymentStatus>;

export const PaymentAttempt = Type.Object({
  psp: Type.String(),
  /** `succeeded` (the processor approved or asked for 3DS), `failed` (declined, error, or down) */
  status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('requires_action')]),
  code: Nullable(Type.String()),
});
export type PaymentAttempt = Static<typeof PaymentAttempt>;

export const PaymentRouting = Type.Object({
  attempts: Type.Integer(),
  selected_psp: Nullable(Type.String()),
  /** `forced` (the confirm named a `psp`) or `routing_rules` */
  selection_reason: Type.String(),
  is_retry: Type.Boolean(),
});

export const ThreeDSecure = Type.Object({
  version: Type.String(),
  /** challenge_required, authenticated or failed, as the 3DS result's `status` */
  authentication_status: Type.String(),
  eci: Nullable(Type.String()),
});

export const CardDetails = Type.Object({
  brand: Type.String(),
  last4: Type.String(),
  exp_month: Type.Integer(),
  exp_year: Type.Integer(),
});

export const Refund = Type.Object({ amount: Type.Integer(), reason: Nullable(Type.String()), created_at: DateTime });

export const Payment = Type.Object(
  {
    id: Uuid,
    object: Type.Literal('payment'),
    /** null for off-session charges (billing) */
    session_id: Nullable(Uuid),
    amount: Type.Integer(),
    currency: Type.String(),
    status: PaymentStatus,
    capture_method: Type.Union([Type.Literal('automatic'), Type.Literal('manual')]),
    payment_method_type: PaymentMethodType,
    psp: Nullable(Type.String()),
    psp_transaction_id: Nullable(Type.String()),
    captured_amount: Type.Integer(),
    refunded_amount: Type.Integer(),
    card: Nullable(CardDetails),
    wallet: Nullable(Type.Object({ type: Type.String(), card_network: Nullable(Type.String()) })),
    bank_account: Nullable(
      Type.Object({
        id: Type.String(),
        last4: Type.String(),
        routing_last4: Type.String(),
        account_holder_name: Type.String(),
        bank_name: Nullable(Type.String()),
        account_type: Nullable(Type.Union([Type.Literal('checking'), Type.Literal('savings')])),
      }),
    ),
    attempts: Type.Array(PaymentAttempt),
    /** The live service's summary of `attempts`. */
    routing: PaymentRouting,
    routing_profile_id: Nullable(Type.String()),
    next_action: Nullable(NextAction),
    three_d_secure: Nullable(ThreeDSecure),
    failure_code: Nullable(Type.String()),
    failure_message: Nullable(Type.String()),
    decline_code: Nullable(Type.String()),
    refunds: Type.Array(Refund),
    description: Nullable(Type.String()),
    metadata: Metadata,
    /** ACH: when the debit settles (ISO); null otherwise */
    settles_at: Nullable(DateTime),
    canceled_at: Nullable(UnixSeconds),
    created_at: DateTime,
    livemode: Type.Boolean(),
  },
  { $id: 'Payment' },
);
export type Payment = Static<typeof Payment>;
export const PaymentList = ListOf(Payment);

export const ConfirmBankAccount = Type.Object(
  {
    account_holder_name: Type.String({ minLength: 1, maxLength: 256 }),
    bank_account_id: Type.String({ minLength: 1, maxLength: 255 }),
    /** Must match the bank account's own type when given. */
    account_type: Type.Optional(Type.Union([Type.Literal('checking'), Type.Literal('savings')])),
  },
  { additionalProperties: false },
);

/** The live service's VGS field aliases: accepted, never stored or echoed (test mode resolves `token_id` locally). */
const VgsData = Type.Object(
  {
    card_number: Type.Optional(Type.String({ maxLength: 128 })),
    card_expiry: Type.Optional(Type.String({ maxLength: 128 })),
    card_cvc: Type.Optional(Type.String({ maxLength: 128 })),
  },
  { additionalProperties: false },
);

const Token = Type.String({ minLength: 1, maxLength: 255 });
export const ConfirmPaymentBody = Type.Object(
  {
    token_id: Type.Optional(Token),
    walletone_pay_token: Type.Optional(Token),
    wallettwo_pay_token: Type.Optional(Token),
    walletthree_token: Type.Optional(Token),
    bank_account: Type.Optional(ConfirmBankAccount),
    payment_method_type: Type.Optional(PaymentMethodType),
    psp: Type.Optional(PspId),
    /** The session to confirm, for `POST /confirm-payment` (on `/confirm-payment/{id}` it must equal the path's). */
    session_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    /** Which vault made `token_id`; test mode resolves every token against its own vault. */
    token_provider: Type.Optional(
      Type.Union([Type.Literal('atlas'), Type.Literal('basis_theory'), Type.Literal('vgs')]),
    ),
    /** Recorded on the payment; the local server has one routing table. */
    routing_profile_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    vgs_data: Type.Optional(VgsData),
  },
  { additionalProperties: false },
);
export type ConfirmPaymentBody = Static<typeof ConfirmPaymentBody>;

export const CapturePaymentBody = Type.Object(
  { amount: Type.Optional(Type.Integer({ minimum: 1 })) },
  { additionalProperties: false },
);
export type CapturePaymentBody = Static<typeof CapturePaymentBody>;

/** Free text, as at the live service (its e-commerce plugin sends an order reference); Stripe's three reasons among others. */
export const RefundReason = Type.String({ minLength: 1, maxLength: 500 });
export const RefundPaymentBody = Type.Object(
  { amount: Type.Optional(Type.Integer({ minimum: 1 })), reason: Type.Optional(RefundReason) },
  { additionalProperties: false },
);
export type RefundPaymentBody = Static<typeof RefundPaymentBody>;

export const ListPaymentsQuery = Type.Object(
  {
    ...ListQuery,
    session_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    status: Type.Optional(PaymentStatus),
  },
  { additionalProperties: false },
);
export type ListPaymentsQuery = Static<typeof ListPaymentsQuery>;

export const PaymentIdParams = Type.Object({ payment_id: IdParam }, { additionalProperties: false });

// ------------------------------------------------------------------------------------------------ 3DS

export const ThreeDSResult = Type.Object(
  {
    object: Type.Literal('threeds_result'),
    session_id: Uuid,
    payment_id: Uuid,
    status: Type.Union([Type.Literal('challenge_required'), Type.Literal('authenticated'), Type.Literal('failed')]),
    authentication_value: Nullable(Type.String()),
    eci: Nullable(Type.String()),
    ds_transaction_id: Type.String(),
    liability_shift: Type.Boolean(),
    /** The payment's status after this step. */
    payment_status: PaymentStatus,
  },
  { $id: 'ThreeDSResult' },
);
export type ThreeDSResult = Static<typeof ThreeDSResult>;

// ------------------------------------------------------------------------------------------- wallets

export const ValidateMerchantBody = Type.Object(
  { validation_url: HttpsUrl, domain: Type.String({ minLength: 1, maxLength: 253 }), session_id: Uuid },
  { additionalProperties: false },
);
export type ValidateMerchantBody = Static<typeof ValidateMerchantBody>;
export const ValidateMerchantSessionBody = Type.Object(
  { validation_url: HttpsUrl, domain: Type.String({ minLength: 1, maxLength: 253 }) },
  { additionalProperties: false },
);

export const MerchantSession = Type.Object({
  object: Type.Literal('walletone_merchant_session'),
  session_id: Uuid,
  merchant_session_identifier: Type.String(),
  merchant_identifier: Type.String(),
  domain_name: Type.String(),
  display_name: Type.String(),
  nonce: Type.String(),
  signature: Type.String(),
  /** Milliseconds: the wallet's own merchant-session form, handed to its payment sheet unchanged. */
  epoch_timestamp: UnixMilliseconds,
  expires_at: UnixMilliseconds,
});
export type MerchantSession = Static<typeof MerchantSession>;

// ---------------------------------------------------------------------------------- vault + pages

export const VaultTokenBody = Type.Object(
  {
    number: Type.String({ minLength: 1, maxLength: 32 }),
    exp_month: Type.Integer({ minimum: 1, maximum: 12 }),
    exp_year: Type.Integer({ minimum: 2000, maximum: 2100 }),
    cvc: Type.Optional(Type.String({ minLength: 1, maxLength: 8 })),
  },
  { additionalProperties: false },
);
export type VaultTokenBody = Static<typeof VaultTokenBody>;

export const VaultToken = Type.Object({
  object: Type.Literal('token'),
  token_id: Type.String(),
  card: CardDetails,
  created_at: DateTime,
});
export type VaultToken = Static<typeof VaultToken>;

export const SessionConfig = Type.Object({
  object: Type.Literal('session_config'),
  session_id: Uuid,
  status: Type.String(),
  amount: Type.Integer(),
  currency: Type.String(),
  description: Nullable(Type.String()),
  external_id: Nullable(Type.String()),
  capture_method: Type.String(),
  payment_method_types: Type.Array(Type.String()),
  /** The live service's name for the methods the checkout offers (the same list). */
  payment_methods: Type.Array(Type.String()),
  client_secret: Type.String(),
  fallback_url: Type.String(),
  /** Always `test` on the local server. */
  environment: Type.Literal('test'),
  /** The vault that makes card tokens (`atlas`: the service's own; here the local test vault at `tokenize_url`). */
  capture_provider: Type.Literal('atlas'),
  tokenize_url: Type.String(),
  walletone_pay: Type.Optional(
    Type.Object({
      merchant_id: Type.String(),
      merchant_name: Type.String(),
      country_code: Type.String(),
      supported_networks: Type.Array(Type.String()),
    }),
  ),
  wallettwo_pay: Type.Optional(
    Type.Object({
      merchant_id: Type.String(),
      merchant_name: Type.String(),
      environment: Type.String(),
      allowed_card_networks: Type.Array(Type.String()),
    }),
  ),
  bank_account: Type.Optional(Type.Object({ account_types: Type.Array(Type.String()) })),
  success_url: Nullable(Type.String()),
  cancel_url: Nullable(Type.String()),
  expires_at: DateTime,
  payment: Nullable(
    Type.Object({
      id: Type.String(),
      status: PaymentStatus,
      next_action: Nullable(NextAction),
      failure_code: Nullable(Type.String()),
      failure_message: Nullable(Type.String()),
    }),
  ),
  livemode: Type.Boolean(),
});
export type SessionConfig = Static<typeof SessionConfig>;

export const TestCardsList = Type.Object({
  object: Type.Literal('test_values'),
  cards: Type.Array(
    Type.Object({
      token: Type.String(),
      number: Nullable(Type.String()),
      brand: Type.String(),
      result: Type.String(),
      description: Type.String(),
    }),
  ),
  wallet_tokens: Type.Array(Type.Object({ token: Type.String(), result: Type.String() })),
  bank_accounts: Type.Array(
    Type.Object({ routing_number: Type.String(), account_number: Type.String(), result: Type.String() }),
  ),
  microdeposit_amounts: Type.Array(Type.Integer()),
});
export type TestCardsList = Static<typeof TestCardsList>;

// --------------------------------------------------------------------------------------- processors

export const RoutingRule = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 100 })),
    payment_method_types: Type.Optional(Type.Array(PaymentMethodType, { minItems: 1 })),
    currencies: Type.Optional(Type.Array(Currency, { minItems: 1 })),
    min_amount: Type.Optional(Type.Integer({ minimum: 0 })),
    max_amount: Type.Optional(Type.Integer({ minimum: 0 })),
    candidates: Type.Array(PspId, { minItems: 1, uniqueItems: true }),
  },
  { additionalProperties: false },
);
export type RoutingRule = Static<typeof RoutingRule>;

export const ProcessorsState = Type.Object({
  object: Type.Literal('processors'),
  processors: Type.Array(
    Type.Object({ id: Type.String(), status: Type.Union([Type.Literal('up'), Type.Literal('down')]) }),
  ),
  routing: Type.Array(RoutingRule),
  max_attempts: Type.Integer(),
});
export type ProcessorsState = Static<typeof ProcessorsState>;

export const SetProcessorBody = Type.Object(
  { status: Type.Union([Type.Literal('up'), Type.Literal('down')]) },
  { additionalProperties: false },
);
export const PspParams = Type.Object({ psp: IdParam }, { additionalProperties: false });

// ------------------------------------------------------------------------------------- bank accounts

export const BankAccountStatus = Type.Union([
  Type.Literal('unverified'),
  Type.Literal('pending'),
  Type.Literal('verified'),
  Type.Literal('failed'),
]);

export const BankAccount = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('bank_account'),
    customer_id: Nullable(Type.String()),
    holder_name: Type.String(),
    account_type: Type.Union([Type.Literal('checking'), Type.Literal('savings')]),
    last4: Type.String(),
    routing_last4: Type.String(),
    bank_name: Type.String(),
    country: Type.String(),
    currency: Type.String(),
    is_default: Type.Boolean(),
    verification_status: BankAccountStatus,
    verification_method: Nullable(Type.String()),
    microdeposits: Nullable(Type.Object({ expires_at: DateTime, attempts_remaining: Type.Integer() })),
    nickname: Nullable(Type.String()),
    metadata: Metadata,
    created: UnixSeconds,
    /** `created` as a date-time (the live service's field). */
    created_at: DateTime,
    livemode: Type.Boolean(),
  },
  { $id: 'BankAccount' },
);
export type BankAccount = Static<typeof BankAccount>;
export const BankAccountList = ListOf(BankAccount);

export const CreateBankAccountBody = Type.Object(
  {
    account_number: Type.String({ minLength: 1, maxLength: 34 }),
    routing_number: Type.String({ minLength: 1, maxLength: 16 }),
    holder_name: Type.String({ minLength: 1, maxLength: 256 }),
    customer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    account_type: Type.Optional(Type.Union([Type.Literal('checking'), Type.Literal('savings')])),
    country: Type.Optional(Type.String({ minLength: 2, maxLength: 2, pattern: '^[A-Za-z]{2}$' })),
    currency: Type.Optional(Currency),
    nickname: Type.Optional(Type.String({ maxLength: 100 })),
    /** The customer's default account (needs `customer_id`); default: true for a customer's first account. */
    is_default: Type.Optional(Type.Boolean()),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateBankAccountBody = Static<typeof CreateBankAccountBody>;

export const UpdateBankAccountBody = Type.Object(
  {
    nickname: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    is_default: Type.Optional(Type.Boolean()),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type UpdateBankAccountBody = Static<typeof UpdateBankAccountBody>;

export const ListBankAccountsQuery = Type.Object(
  {
    ...ListQuery,
    customer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    verification_status: Type.Optional(BankAccountStatus),
  },
  { additionalProperties: false },
);
export type ListBankAccountsQuery = Static<typeof ListBankAccountsQuery>;

export const BankAccountIdParams = Type.Object({ bank_account_id: IdParam }, { additionalProperties: false });

export const MicrodepositResult = Type.Object({
  status: Type.String(),
  method: Type.Literal('microdeposits'),
  expires_at: DateTime,
});
export type MicrodepositResult = Static<typeof MicrodepositResult>;

export const VerifyBankAccountBody = Type.Object(
  { amounts: Type.Array(Type.Integer({ minimum: 1, maximum: 99 }), { minItems: 2, maxItems: 2 }) },
  { additionalProperties: false },
);
export type VerifyBankAccountBody = Static<typeof VerifyBankAccountBody>;
export const VerifyResult = Type.Object({
  verified: Type.Boolean(),
  attempts_remaining: Type.Integer(),
  verification_status: BankAccountStatus,
});
export type VerifyResult = Static<typeof VerifyResult>;

// ------------------------------------------------------------------------------------ network tokens

export const NetworkToken = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('network_token'),
    status: Type.Literal('active'),
    card: CardDetails,
    network_token_last4: Type.String(),
    created_at: DateTime,
    livemode: Type.Boolean(),
    // The live service's names for the same facts (it answers in camelCase here).
    networkTokenId: Type.String(),
    /** The card network (`visa`, `mastercard`, …). */
    network: Type.String(),
    tokenExpiryMonth: Type.String(),
    tokenExpiryYear: Type.String(),
    /** Only on a create with `request_cryptogram: true`. */
    cryptogram: Type.Optional(Type.String()),
    cryptogramType: Type.Optional(Type.String()),
  },
  { $id: 'NetworkToken' },
);
export type NetworkToken = Static<typeof NetworkToken>;
/** `session_id`: the live service's browser form (the session's client secret as bearer) names the session so. */
const NetworkTokenSession = Type.Optional(Type.String({ minLength: 1, maxLength: 255 }));
export const CreateNetworkTokenBody = Type.Object(
  {
    token_id: Type.String({ minLength: 1, maxLength: 255 }),
    session_id: NetworkTokenSession,
    request_cryptogram: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const CryptogramBody = Type.Object({ session_id: NetworkTokenSession }, { additionalProperties: false });
export type CreateNetworkTokenBody = Static<typeof CreateNetworkTokenBody>;
export const NetworkTokenIdParams = Type.Object({ network_token_id: IdParam }, { additionalProperties: false });
export const Cryptogram = Type.Object({
  object: Type.Literal('network_token_cryptogram'),
  network_token_id: Type.String(),
  cryptogram: Type.String(),
  eci: Type.String(),
  expires_at: DateTime,
  /** The live service's names: the cryptogram's kind and `expires_at` again. */
  cryptogramType: Type.String(),
  expiresAt: DateTime,
});
export type Cryptogram = Static<typeof Cryptogram>;

export const SessionIdOnly = Type.Object({ session_id: IdParam }, { additionalProperties: false });
