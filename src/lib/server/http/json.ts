// Request bodies: JSON only (docs/api.md "Conventions": anything else with a body → 415), and only numbers JavaScript reads
// exactly (docs/api.md "Numbers"): JSON.parse turns `1e400` into Infinity and `9007199254740993` into …992
// without a word, after which no schema can tell what the caller sent.
import type { FastifyRequest } from 'fastify';
import { inexactNumber, MAX_SAFE_INTEGER, MIN_SAFE_INTEGER } from '../../contract/numbers.js';
import { errors } from '../errors.js';

/** A number literal with an exponent or of 16 digits or more: only then can JSON.parse have lost something. */
const MAYBE_INEXACT = /\d[eE]|\d{16}/;

/**
 * The parsed body (`undefined` for an empty one), or the contract's error: `invalid_json`, or
 * `parameter_invalid` naming the field whose number is not finite or beyond ±(2^53 − 1) — unless that field is
 * not one the route's body schema (`bodySchema()`, asked only then) takes: then `parameter_unknown`, as the schema
 * would have said.
 */
export function parseJsonBody(text: string, bodySchema?: () => unknown): unknown {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw errors.invalidJson((err as Error).message);
  }
  const inexact = MAYBE_INEXACT.test(text) ? inexactNumber(value) : undefined;
  if (inexact) {
    const field = inexact.path.split(/[.[]/)[0]!;
    if (field && takesNot(bodySchema?.(), field)) throw errors.parameterUnknown(field);
    throw errors.parameterInvalid(inexact.path || 'body', `must be a number from ${MIN_SAFE_INTEGER} to ${MAX_SAFE_INTEGER}`);
  }
  return value;
}

/** Whether a body schema refuses a top-level `field` (it lists its fields and takes no others). */
function takesNot(schema: unknown, field: string): boolean {
  const s = schema as { properties?: Record<string, unknown>; additionalProperties?: unknown } | undefined;
  return !!s?.properties && s.additionalProperties === false && !Object.hasOwn(s.properties, field);
}

/** fastify's content-type parser for application/json (parseAs: 'string'). */
export function jsonBodyParser(request: FastifyRequest, body: string | Buffer, done: (err: Error | null, value?: unknown) => void): void {
  let value: unknown;
  try {
    value = parseJsonBody(body as string, () => request.routeOptions.schema?.body);
  } catch (err) {
    return done(err as Error, undefined);
  }
  done(null, value);
}
