// JSON Schema validation: bodies strictly (no type coercion), query strings and path params with coercion
// (they arrive as strings). Ajv errors become the contract's validation errors.
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { errors, ServiceError } from '../errors.js';
import { nearestField } from './suggest.js';
import { boundedSchema } from '../../contract/numbers.js';
import { PAYMENT_METHOD_PATTERN } from '../../contract/common.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * `validateSchema: false`: Ajv would otherwise compile the JSON Schema meta-schema before the first
 * route's schema. The schemas are ours (contract/, TypeBox); test/http/schemas.test.ts checks every one of
 * them against the meta-schema instead.
 */
function makeAjv(coerce: boolean): Ajv {
  // verbose: an error carries the schema it failed (for "did you mean" on an unknown field); bodies only.
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: false,
    removeAdditional: false,
    allErrors: false,
    strict: false,
    validateSchema: false,
    verbose: !coerce,
  });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const queryAjv = makeAjv(true);

/** Every integer and number without a bound of its own gets the safe range (contract/numbers.ts). */
export function compileValidator(schema: object, httpPart: string | undefined) {
  const ajv = httpPart === 'body' ? bodyAjv : queryAjv;
  return ajv.compile(boundedSchema(schema));
}

/** `/customer/email` + `name` → `customer.email.name`; `/items/0/price` → `items[0].price`. */
function paramPath(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (child !== undefined) parts.push(child);
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

/** What a pattern asks for, in words (the contract's patterns); otherwise the pattern itself. */
function patternRule(pattern: string): string {
  if (pattern.startsWith('^https?://')) return 'must be an absolute http or https URL (https://…)';
  if (pattern.startsWith('^https://')) return 'must be an absolute https URL (https://…)';
  if (pattern === PAYMENT_METHOD_PATTERN)
    return 'must be a payment method token (e.g. tok_visa), never a card number: tokenize cards with POST /vault/tokens';
  if (pattern.includes('@')) return 'must be an email address';
  if (pattern === '^[A-Za-z]{3}$') return 'must be a three-letter ISO 4217 currency code';
  if (pattern === '^[A-Za-z]{2}$') return 'must be a two-letter ISO 3166 country code';
  if (pattern.startsWith('^[0-9a-fA-F]{8}-')) return 'must be a UUID';
  if (pattern === '^[A-Za-z0-9_-]+$') return 'may contain only letters, digits, "_" and "-"';
  if (pattern === '^[A-Za-z0-9-]+$') return 'may contain only letters, digits and "-"';
  return `must match ${pattern}`;
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'type':
      return `must be of type ${String(p.type)}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `must be ${String(p.comparison)} ${String(p.limit)}`;
    case 'minLength':
      return `must be at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters`;
    case 'minItems':
      return `must have at least ${String(p.limit)} items`;
    case 'maxItems':
      return `must have at most ${String(p.limit)} items`;
    case 'maxProperties':
      return `must have at most ${String(p.limit)} keys`;
    case 'uniqueItems':
      return 'must not contain duplicates';
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'pattern':
      return patternRule(String(p.pattern));
    case 'format':
      return `is not a valid ${String(p.format)}`;
    case 'propertyNames':
      return 'has an invalid key';
    default:
      return e.message ?? 'is invalid';
  }
}

/** Turns the validation failure fastify reports into the contract's error. */
export function validationError(list: ErrorObject[], context: string | undefined): ServiceError {
  // A union (anyOf) of literals reports one error per branch: treat as an enum.
  const first = list[0]!;
  const unknown = list.find((e) => e.keyword === 'additionalProperties');
  if (unknown) {
    const field = String((unknown.params as { additionalProperty: string }).additionalProperty);
    return errors.parameterUnknown(
      paramPath(unknown.instancePath, field),
      nearestField(field, unknown.parentSchema, paramPath(unknown.instancePath)),
    );
  }
  const missing = list.find((e) => e.keyword === 'required');
  if (missing)
    return errors.parameterMissing(
      paramPath(missing.instancePath, String((missing.params as { missingProperty: string }).missingProperty)),
    );
  const where = paramPath(first.instancePath) || (context === 'body' ? 'body' : (context ?? 'request'));
  if (first.instancePath === '' && first.keyword === 'type' && context === 'body') {
    return errors.invalidRequest('invalid_body', 'The request body must be a JSON object.');
  }
  const literals = list.filter((e) => e.keyword === 'const' && e.instancePath === first.instancePath);
  if (literals.length > 1) {
    const allowed = literals
      .map((e) => JSON.stringify((e.params as { allowedValue: unknown }).allowedValue))
      .join(', ');
    return errors.parameterInvalid(where, `must be one of ${allowed}`);
  }
  // A failing key of an object (metadata's keys: propertyNames) says so and names the key.
  if (first.propertyName !== undefined) {
    const key = first.propertyName.length > 48 ? `${first.propertyName.slice(0, 48)}…` : first.propertyName;
    return errors.parameterInvalid(
      where,
      `key ${JSON.stringify(key)} ${describe(first).replace(/^must be at most (\d+) characters$/, 'is too long: keys must be at most $1 characters')}`,
    );
  }
  return errors.parameterInvalid(where, describe(first));
}
