// JSON Schema (as TypeBox emits it for the routes) → fast-check arbitraries: `valid(schema)` generates values the
// schema accepts, `invalid(schema)` values it rejects (wrong type, unknown field, missing required, out of range,
// too long, odd unicode). Supports what the route schemas use: object (properties, required, additionalProperties
// false or a schema, patternProperties '^(.*)$' (Type.Record), maxProperties, propertyNames), string (minLength,
// maxLength, pattern, format date-time), integer/number (minimum, maximum, exclusive bounds), boolean, null,
// array (items, minItems, maxItems, uniqueItems), anyOf, const, enum.
// Anything else throws, so a new schema feature shows up as a failing test instead of silently weak fuzzing.
import fc, { type Arbitrary } from 'fast-check';

export type Schema = Record<string, any>;

const KNOWN = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'maxProperties',
  'minProperties',
  'propertyNames',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'anyOf',
  'const',
  'description',
  'default',
  'title',
  'examples',
  '$id',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'enum',
  'patternProperties',
]);
const TYPEBOX_KIND = Symbol.for('TypeBox.Kind');

function check(schema: Schema): void {
  for (const k of Object.keys(schema))
    if (!KNOWN.has(k))
      throw new Error(`arbitrary: unsupported JSON Schema keyword "${k}" in ${JSON.stringify(schema)}`);
  void TYPEBOX_KIND;
}

/** Long strings are capped so that a run stays fast; boundary lengths are still generated. */
const STRING_CAP = 40;

/** Odd but valid unicode: astral emoji, combining marks, RTL, zero-width, NUL and control characters, BOM. */
const ODD_UNICODE = [
  '\ud800',
  '\udfff x',
  '\u0000',
  '\u0007',
  '\u001b[31m',
  '\u202e',
  '\u200b',
  '\ufeff',
  '\ud83d\udca5',
  'e\u0301',
  '\u0644\u0627',
  '𝕏',
  '\uffff',
  '%00',
  '../',
  '\\',
  '"',
  "'",
  '<script>',
];
export const oddUnicode = fc.constantFrom(...ODD_UNICODE);

function stringArb(s: Schema): Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = s.maxLength ?? Math.max(min, STRING_CAP);
  if (s.format === 'date-time')
    return fc
      .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString());
  if (s.format !== undefined) throw new Error(`arbitrary: unsupported format ${s.format}`);
  if (s.pattern !== undefined) {
    const re = new RegExp(s.pattern);
    const fits = (v: string) => v.length >= min && v.length <= max && re.test(v);
    try {
      return fc.stringMatching(re).filter(fits);
    } catch {
      // A pattern fast-check cannot generate from (a lookahead: "not only digits"): any string it accepts.
      return fc.string({ minLength: Math.max(min, 1), maxLength: Math.min(max, STRING_CAP) }).filter(fits);
    }
  }
  const capped = Math.min(max, Math.max(min, STRING_CAP));
  const lengths = fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength: min, maxLength: capped, unit: 'grapheme' }) },
    { weight: 1, arbitrary: fc.string({ minLength: min, maxLength: capped, unit: 'binary' }) },
    { weight: 1, arbitrary: fc.array(oddUnicode, { minLength: 1, maxLength: 4 }).map((a) => a.join('')) },
    // boundary: exactly min and exactly max characters
    { weight: 1, arbitrary: fc.constantFrom(min, max).map((n) => 'x'.repeat(n)) },
  );
  // Ajv counts Unicode code points; keep only what the schema accepts.
  return lengths.filter((v) => {
    const n = [...v].length;
    return n >= min && n <= max;
  });
}

function numberArb(s: Schema, integer: boolean): Arbitrary<number> {
  const step = integer ? 1 : 1e-6;
  const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + step : -1e12);
  const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - step : 1e12);
  if (integer) {
    const edges = fc.constantFrom(min, max);
    return fc.oneof(
      { weight: 4, arbitrary: fc.bigInt({ min: BigInt(Math.ceil(min)), max: BigInt(Math.floor(max)) }).map(Number) },
      { weight: 1, arbitrary: edges },
    );
  }
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

/**
 * A property-name hint: an arbitrary to mix in for a property (e.g. real ids for `account_id`, real currencies for
 * `currency`). Hinted values are mixed with schema-generated ones; they need not be schema-valid.
 */
export type Hint = (name: string, schema: Schema) => Arbitrary<unknown> | undefined;

export function valid(schema: Schema, hint?: Hint): Arbitrary<unknown> {
  check(schema);
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  if (schema.anyOf) return fc.oneof(...(schema.anyOf as Schema[]).map((b) => valid(b, hint)));
  switch (schema.type) {
    case 'string':
      return stringArb(schema);
    case 'integer':
      return numberArb(schema, true);
    case 'number':
      return numberArb(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const item = valid(schema.items ?? {}, hint);
      const c = { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 5, 5) };
      if (schema.uniqueItems) return fc.uniqueArray(item, { ...c, selector: (v) => JSON.stringify(v) });
      return fc.array(item, c);
    }
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const required: string[] = schema.required ?? [];
      const model: Record<string, Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) {
        const hinted = hint?.(k, v);
        model[k] = hinted
          ? fc.oneof({ weight: 2, arbitrary: hinted }, { weight: 1, arbitrary: valid(v, hint) })
          : valid(v, hint);
      }
      const fixed = fc.record(model, { requiredKeys: required });
      // Type.Record(Type.String(), X) emits patternProperties {'^(.*)$': X}: treat it like additionalProperties X
      const pp = schema.patternProperties as Record<string, Schema> | undefined;
      const extra =
        pp && Object.keys(pp).length === 1 && Object.keys(pp)[0] === '^(.*)$'
          ? Object.values(pp)[0]
          : schema.additionalProperties;
      if (pp && extra === schema.additionalProperties)
        throw new Error(`arbitrary: unsupported patternProperties ${JSON.stringify(pp)}`);
      if (extra && typeof extra === 'object') {
        const names = schema.propertyNames ?? {};
        const maxKeys = Math.min(schema.maxProperties ?? 5, 5);
        const key = stringArb({ minLength: names.minLength ?? 0, maxLength: names.maxLength ?? 40 }).filter(
          (k) => !(k in props) && k !== '__proto__',
        );
        return fc.tuple(fixed, fc.dictionary(key, valid(extra, hint), { maxKeys })).map(([a, b]) => ({ ...b, ...a }));
      }
      return fixed;
    }
    case undefined:
      // `{}`: anything JSON that the server reads exactly (docs/api.md: numbers up to ±(2^53 − 1), anywhere)
      return fc.jsonValue({ maxDepth: 2 }).filter(exactNumbers);
    default:
      throw new Error(`arbitrary: unsupported type ${String(schema.type)}`);
  }
}

/** Whether every number in `v` is one the server reads exactly (within ±(2^53 − 1)); others are its 400. */
function exactNumbers(v: unknown): boolean {
  if (typeof v === 'number') return Math.abs(v) <= Number.MAX_SAFE_INTEGER;
  if (Array.isArray(v)) return v.every(exactNumbers);
  if (v !== null && typeof v === 'object') return Object.values(v).every(exactNumbers);
  return true;
}

/** A JSON value of another type than the schema's. */
function wrongType(schema: Schema): Arbitrary<unknown> {
  const all: Record<string, Arbitrary<unknown>> = {
    string: fc.string({ maxLength: 5 }),
    integer: fc.integer(),
    number: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
    boolean: fc.boolean(),
    array: fc.array(fc.integer(), { maxLength: 2 }),
    object: fc.constant({ nested: { x: 1 } }),
    null: fc.constant(null),
  };
  const types = new Set<string>();
  const collect = (s: Schema) => {
    if (s.anyOf) (s.anyOf as Schema[]).forEach(collect);
    else if (s.type) types.add(s.type);
    else if ('const' in s)
      types.add(s.const === null ? 'null' : typeof s.const === 'number' ? 'integer' : typeof s.const);
    else if (s.enum)
      (s.enum as unknown[]).forEach((v) =>
        types.add(v === null ? 'null' : typeof v === 'number' ? 'integer' : typeof v),
      );
  };
  collect(schema);
  if (types.has('number')) types.add('integer');
  const others = Object.entries(all).filter(([t]) => !types.has(t) && !(t === 'integer' && types.has('number')));
  return fc.oneof(...others.map(([, a]) => a));
}

/** One value that violates the schema itself (not a nested part). Undefined when no such value exists. */
function violation(schema: Schema): Arbitrary<unknown> | undefined {
  if (schema.type === undefined && !schema.anyOf && !schema.enum && !('const' in schema)) return undefined; // anything goes
  const out: Arbitrary<unknown>[] = [wrongType(schema)];
  const literals =
    'const' in schema || schema.enum || (schema.anyOf && (schema.anyOf as Schema[]).every((b) => 'const' in b));
  if (literals) out.push(fc.constant('not-one-of-the-allowed-values\u202e'));
  if (schema.type === 'string') {
    if (schema.maxLength !== undefined)
      out.push(fc.constant('y'.repeat(schema.maxLength + 1)), fc.constant('\ud83d\udca5'.repeat(schema.maxLength + 1)));
    if (schema.minLength) out.push(fc.constant(''));
    if (schema.pattern) {
      // Chosen from the values the pattern refuses, listed once: a filter on a generator would spin for ever on a
      // pattern that accepts all of them (PaymentMethodRef's "not only digits" does).
      const re = new RegExp(schema.pattern);
      const refused = ODD_UNICODE.map((u) => `${u} not matching`).filter((v) => !re.test(v));
      if (refused.length > 0) out.push(fc.constantFrom(...refused));
    }
    if (schema.format === 'date-time') out.push(fc.constantFrom('yesterday', '2026-13-45T99:99:99Z', '\u0000'));
  }
  if (schema.type === 'integer' || schema.type === 'number') {
    if (schema.minimum !== undefined) out.push(fc.constant(schema.minimum - 1));
    if (schema.exclusiveMinimum !== undefined) out.push(fc.constant(schema.exclusiveMinimum));
    if (schema.exclusiveMaximum !== undefined) out.push(fc.constant(schema.exclusiveMaximum));
    if (schema.maximum !== undefined) out.push(fc.constant(schema.maximum + 1));
    if (schema.type === 'integer') out.push(fc.constant(1.5));
  }
  if (schema.type === 'array') {
    if (schema.minItems) out.push(fc.constant([]));
    if (schema.maxItems !== undefined) out.push(fc.constant(Array.from({ length: schema.maxItems + 1 }, (_, i) => i)));
    if (schema.items) {
      const bad = violation(schema.items);
      if (bad) out.push(bad.map((b) => [b]));
    }
  }
  if (schema.type === 'object') {
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    const required: string[] = schema.required ?? [];
    if (schema.additionalProperties === false)
      out.push(valid(schema).map((v) => ({ ...(v as object), unknown_field_zz: 1 })));
    if (required.length)
      out.push(fc.tuple(valid(schema), fc.constantFrom(...required)).map(([v, k]) => omit(v as object, k)));
    if (
      schema.maxProperties !== undefined &&
      schema.additionalProperties &&
      typeof schema.additionalProperties === 'object'
    ) {
      out.push(
        fc.constant(Object.fromEntries(Array.from({ length: schema.maxProperties + 1 }, (_, i) => [`k${i}`, 'v']))),
      );
    }
    if (
      schema.propertyNames?.maxLength !== undefined &&
      schema.additionalProperties &&
      typeof schema.additionalProperties === 'object'
    ) {
      out.push(fc.constant({ ['k'.repeat(schema.propertyNames.maxLength + 1)]: 'v' }));
    }
    // one property replaced by an invalid value
    const breakable = Object.entries(props)
      .map(([k, s]) => [k, violation(s)] as const)
      .filter(([, a]) => a !== undefined);
    if (breakable.length) {
      out.push(
        fc
          .tuple(valid(schema), fc.oneof(...breakable.map(([k, a]) => a!.map((bad) => [k, bad] as const))))
          .map(([v, [k, bad]]) => ({ ...(v as object), [k]: bad })),
      );
    }
  }
  return fc.oneof(...out);
}

function omit(v: object, k: string): object {
  const copy = { ...(v as Record<string, unknown>) };
  delete copy[k];
  return copy;
}

/** Values the schema rejects. */
export function invalid(schema: Schema): Arbitrary<unknown> {
  check(schema);
  const v = violation(schema);
  if (!v) throw new Error(`arbitrary: no invalid value exists for ${JSON.stringify(schema)}`);
  return v;
}
