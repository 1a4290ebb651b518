// Identity vault and KYC verifications (docs/api.md "Identity vault", "KYC verifications").
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, IdParam, ListOf, ListQuery, Metadata, Nullable } from './common.js';
import { MAX_OFFSET } from './numbers.js';

export const IdentityTokenType = Type.Union([
  Type.Literal('ssn'),
  Type.Literal('ssn_last4'),
  Type.Literal('ein'),
  Type.Literal('itin'),
  Type.Literal('passport'),
  Type.Literal('drivers_license'),
  Type.Literal('national_id'),
  Type.Literal('tax_id'),
  Type.Literal('custom'),
]);
export type IdentityTokenType = Static<typeof IdentityTokenType>;
export { IDENTITY_TOKEN_TYPES } from './limits.js';

export const IdentityToken = Type.Object(
  {
    token_id: Type.String(),
    object: Type.Literal('identity_token'),
    type: IdentityTokenType,
    masked_value: Type.String({ description: 'at most the last 4 characters of the value are shown' }),
    field_name: Nullable(Type.String()),
    environment: Type.String({ description: '"test" on the local server' }),
    created_at: DateTime,
  },
  { $id: 'IdentityToken' },
);
export type IdentityToken = Static<typeof IdentityToken>;

export const CreateIdentityTokenBody = Type.Object(
  {
    type: IdentityTokenType,
    // Length is checked in the domain so that no validation message ever echoes the value.
    value: Type.String(),
    field_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type CreateIdentityTokenBody = Static<typeof CreateIdentityTokenBody>;

export const ListIdentityTokensQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0 })),
    type: Type.Optional(IdentityTokenType),
  },
  { additionalProperties: false },
);
export type ListIdentityTokensQuery = Static<typeof ListIdentityTokensQuery>;

export const IdentityTokenPage = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(IdentityToken),
    pagination: Type.Object({
      total: Type.Integer(),
      limit: Type.Integer(),
      offset: Type.Integer(),
      has_more: Type.Boolean(),
    }),
  },
  { $id: 'IdentityTokenPage' },
);
export type IdentityTokenPage = Static<typeof IdentityTokenPage>;

export const DeletedIdentityToken = Type.Object({
  token_id: Type.String(),
  object: Type.Literal('identity_token'),
  deleted: Type.Literal(true),
});
export type DeletedIdentityToken = Static<typeof DeletedIdentityToken>;

export const IdentityTokenIdParams = Type.Object({ token_id: IdParam }, { additionalProperties: false });

// --------------------------------------------------------------------------------------------------- KYC

export const VerificationLevel = Type.Union([Type.Literal('basic'), Type.Literal('enhanced')]);
export type VerificationLevel = Static<typeof VerificationLevel>;

export const KycStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('processing'),
  Type.Literal('verified'),
  Type.Literal('rejected'),
  Type.Literal('requires_input'),
  Type.Literal('canceled'),
]);
export type KycStatus = Static<typeof KycStatus>;

export const KycCheckType = Type.Union([
  Type.Literal('identity'),
  Type.Literal('watchlist'),
  Type.Literal('document'),
  Type.Literal('address'),
]);
export type KycCheckType = Static<typeof KycCheckType>;

export const KycCheck = Type.Object({
  id: Type.String(),
  check_type: KycCheckType,
  status: Type.Union([Type.Literal('pending'), Type.Literal('passed'), Type.Literal('failed')]),
  status_reason: Nullable(Type.String()),
  confidence_score: Nullable(Type.Integer({ minimum: 0, maximum: 100 })),
  created_at: DateTime,
  completed_at: Nullable(DateTime),
});
export type KycCheck = Static<typeof KycCheck>;

export const KycVerification = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('kyc_verification'),
    status: KycStatus,
    status_reason: Nullable(Type.String()),
    customer_id: Type.String(),
    verification_level: VerificationLevel,
    identity_token_ids: Type.Array(Type.String()),
    provider: Type.String(),
    provider_session_token: Type.String(),
    risk_score: Nullable(Type.Integer({ minimum: 0, maximum: 100 })),
    checks: Type.Array(KycCheck),
    metadata: Metadata,
    created_at: DateTime,
    submitted_at: Nullable(DateTime),
    completed_at: Nullable(DateTime),
    livemode: Type.Boolean(),
  },
  { $id: 'KycVerification' },
);
export type KycVerification = Static<typeof KycVerification>;

const TokenIds = Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 20, uniqueItems: true });

export const CreateKycBody = Type.Object(
  {
    customer_id: Type.String({ minLength: 1, maxLength: 255 }),
    verification_level: VerificationLevel,
    identity_token_ids: Type.Optional(TokenIds),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateKycBody = Static<typeof CreateKycBody>;

export const SubmitKycBody = Type.Object(
  { identity_token_ids: Type.Optional(TokenIds) },
  { additionalProperties: false },
);
export type SubmitKycBody = Static<typeof SubmitKycBody>;

export const ListKycQuery = Type.Object(
  {
    ...ListQuery,
    status: Type.Optional(KycStatus),
    customer: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);
export type ListKycQuery = Static<typeof ListKycQuery>;

export const KycIdParams = Type.Object({ verification_id: IdParam }, { additionalProperties: false });
export const KycList = ListOf(KycVerification);
