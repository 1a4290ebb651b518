// Request bodies: JSON only (docs/api.md "Conventions": anything else with a body → 415), and only numbers JavaScript reads
// exactly (docs/api.md "Numbers"): JSON.parse turns `1e400` into Infinity and `9007199254740993` into …992
// without a word, after which no schema can tell what the caller sent.
import type { FastifyRequest } from 'fastify';
import { inexactNumber, MAX_SAFE_INTEGER, MIN_SAFE_INTEGER, pathOf } from '../../contract/numbers.js';
import { errors } from '../errors.js';

/** A number literal with an exponent or of 16 digits or more: only then can JSON.parse have lost something. */
const MAYBE_INEXACT = /\d[eE]|\d{16}/;

/**
 * The parsed body (`undefined` for an empty one), or the contract's error: `invalid_json`, or
 * `parameter_invalid` naming the field whose number is not finite or beyond ±(2^53 − 1) — unless the route's body
 * schema (`bodySchema()`, asked only then) does not take a field on the way to it (`extra`, or `customer.fax`):
 * then `parameter_unknown` naming that field, as the schema would have said.
 */
export function parseJsonBody(text: string, bodySchema?: () => unknown): unknown {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw errors.invalidJson(withoutQuote((err as Error).message));
  }
  const inexact = MAYBE_INEXACT.test(text) ? inexactNumber(value) : undefined;
  if (inexact) {
    const unknown = unknownAlong(bodySchema?.(), inexact.keys);
    if (unknown) throw errors.parameterUnknown(unknown);
    throw errors.parameterInvalid(
      inexact.path || 'body',
      `must be a number from ${MIN_SAFE_INTEGER} to ${MAX_SAFE_INTEGER}`,
    );
  }
  return value;
}

/**
 * JSON.parse's message without the text it quotes around some errors (`Unexpected token '}', ..."4321","a":}" is
 * not valid JSON`): a body can hold a card number or an SSN, and an error must never repeat it.
 */
function withoutQuote(message: string): string {
  const m = /^(Unexpected token .+?), ".*" is not valid JSON$/s.exec(message);
  if (m) return `${m[1]} in JSON`;
  return message.includes(' is not valid JSON') ? 'Unexpected token in JSON' : message;
}

interface SchemaNode {
  type?: unknown;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: unknown;
  items?: SchemaNode | SchemaNode[];
}

/**
 * The first field along `keys` that `schema` refuses (its object lists its fields and takes no others), as a
 * parameter path; undefined when every key on the way is taken or the schema cannot say by itself (a union, a
 * map such as metadata, an array where an object is expected).
 */
function unknownAlong(schema: unknown, keys: (string | number)[]): string | undefined {
  let s = schema as SchemaNode | undefined;
  for (let i = 0; i < keys.length && s; i++) {
    const key = keys[i]!;
    if (typeof key === 'number') {
      s = s.type === 'array' && s.items && !Array.isArray(s.items) ? s.items : undefined;
      continue;
    }
    if (!s.properties || s.additionalProperties !== false) return undefined;
    if (!Object.hasOwn(s.properties, key)) return pathOf(keys.slice(0, i + 1));
    s = s.properties[key];
  }
  return undefined;
}

/** fastify's content-type parser for application/json (parseAs: 'string'). */
export function jsonBodyParser(
  request: FastifyRequest,
  body: string | Buffer,
  done: (err: Error | null, value?: unknown) => void,
): void {
  let value: unknown;
  try {
    value = parseJsonBody(body as string, () => request.routeOptions.schema?.body);
  } catch (err) {
    return done(err as Error, undefined);
  }
  done(null, value);
}
