// Shared building blocks of every resource and request schema (docs/api.md "Conventions", "Errors").
// TypeBox schemas are plain JSON Schema: the server validates with them, the client and CLI take their
// static types from them, and /openapi.json is generated from them.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { MAX_UNIX_SECONDS } from './numbers.js';

export { API_PREFIX } from './prefix.js';

/** `metadata`: at most 50 keys, key ≤ 40 chars, string values ≤ 500 chars. */
export const Metadata = Type.Unsafe<Record<string, string>>({
  type: 'object',
  maxProperties: 50,
  propertyNames: { maxLength: 40, minLength: 1 },
  additionalProperties: { type: 'string', maxLength: 500 },
  description: 'Key-value pairs: at most 50 keys, keys up to 40 characters, string values up to 500 characters.',
});

/**
 * Three-letter ISO 4217 code, any case on input, UPPERCASE on output. The pattern alone says the length, so that
 * every currency that is not three letters (`us`, `usd1`, `u$d`) gets one message: "must be a three-letter ISO 4217
 * currency code" (docs/api.md "Errors"); three letters that are no currency are refused by domain/values.ts.
 */
export const Currency = Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 currency code' });

/** After the scheme: a host start, then no whitespace or control character anywhere. */
const URL_REST = '://[^\\s\\u0000-\\u001f\\u007f/$.?#][^\\s\\u0000-\\u001f\\u007f]*$';

/**
 * Absolute http(s) URL, with no whitespace or control character anywhere: a URL parser drops tabs and line
 * breaks and percent-encodes the other controls, so the URL stored would not be the URL used.
 */
export const HttpUrl = Type.String({
  maxLength: 2048,
  pattern: `^https?${URL_REST}`,
  description: 'absolute http(s) URL',
});

/** The same rule as HttpUrl, https only (a wallet's merchant-validation URL). */
export const HttpsUrl = Type.String({
  maxLength: 2048,
  pattern: `^https${URL_REST}`,
  description: 'absolute https URL',
});

/** A value made only of digits, spaces and dashes: a card number (or what could be one), never a token. */
const CARD_NUMBER_LIKE = '[\\d\\s-]+';
const CARD_NUMBER_RE = new RegExp(`^${CARD_NUMBER_LIKE}$`);
export const looksLikeCardNumber = (value: string): boolean => CARD_NUMBER_RE.test(value);

/** Refuses what looksLikeCardNumber finds: a card number, which only the vault may take. */
export const PAYMENT_METHOD_PATTERN = `^(?!${CARD_NUMBER_LIKE}$)`;

/**
 * A saved payment method's reference (a test token such as tok_visa, a vault token, a network token). Never a
 * card number: one sent here would be stored and shown in clear (docs/api.md "Billing").
 */
export const PaymentMethodRef = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: PAYMENT_METHOD_PATTERN,
  description: 'a payment method token (e.g. tok_visa), never a card number',
});

export const Email = Type.String({ maxLength: 512, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' });

/** ISO 8601 UTC date-time with milliseconds. */
export const DateTime = Type.String({ format: 'date-time', description: 'ISO 8601 UTC, milliseconds' });
export const UnixSeconds = Type.Integer({ description: 'Unix seconds' });
/** The one exception to "an integer timestamp is Unix seconds": a wallet's merchant session (docs/api.md "Conventions"). */
export const UnixMilliseconds = Type.Integer({ description: 'Unix milliseconds' });
/** A Unix-seconds timestamp a request sets: 1970 to the end of 9999 (docs/api.md "Numbers"). */
export const UnixSecondsInput = Type.Integer({ minimum: 0, maximum: MAX_UNIX_SECONDS, description: 'Unix seconds' });

export const Uuid = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  description: 'UUID',
});

/** Path parameter holding an object id: validated loosely (an unknown id is a 404, not a 400). */
export const IdParam = Type.String({ minLength: 1, maxLength: 255 });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

// ---------------------------------------------------------------------------------------------- errors

export const ErrorType = Type.Union([
  Type.Literal('api_error'),
  Type.Literal('authentication_error'),
  Type.Literal('card_error'),
  Type.Literal('invalid_request_error'),
  Type.Literal('validation_error'),
]);
export type ErrorType = Static<typeof ErrorType>;

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      type: ErrorType,
      code: Type.String(),
      message: Type.String(),
      param: Type.Optional(Type.String()),
      request_id: Type.Optional(Type.String()),
      decline_code: Type.Optional(Type.String()),
      payment_id: Type.Optional(Type.String()),
    }),
  },
  { $id: 'ErrorBody', description: 'The body of every failure' },
);
export type ErrorBody = Static<typeof ErrorBody>;

// ----------------------------------------------------------------------------------------------- lists

/** Query parameters shared by every `{object: "list"}` listing (contract §6). */
export const ListQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
  starting_after: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  ending_before: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
};
export interface ListParams {
  limit?: number;
  starting_after?: string;
  ending_before?: string;
}

export const ListOf = <T extends TSchema>(item: T) =>
  Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(item),
    has_more: Type.Boolean(),
    total_count: Type.Integer(),
    url: Type.String(),
  });

export interface List<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  total_count: number;
  url: string;
}

export const DeletedObject = (object: string) =>
  Type.Object({ id: Type.String(), object: Type.Literal(object), deleted: Type.Literal(true) });

/** Body of POSTs that take no parameters: `{}` or no body; any field is unknown. */
export const EmptyBody = Type.Object({}, { additionalProperties: false });
export const EmptyQuery = Type.Object({}, { additionalProperties: false });
