// The range of numbers the API takes and gives (docs/api.md "Numbers"). The one place that decides it: the
// server's validators (http/validation.ts) and /openapi.json (openapi.ts) both pass their schemas through here.
// Kept free of runtime imports (the CLI may load it without TypeBox).

/** Every integer is a safe integer: ±(2^53 − 1), the range where a JSON number is exact in JavaScript. */
export const MAX_SAFE_INTEGER = Number.MAX_SAFE_INTEGER;
export const MIN_SAFE_INTEGER = -Number.MAX_SAFE_INTEGER;

/** The largest amount in minor units: a payment, a line, a hold, a coupon's amount_off (docs/api.md "Numbers"). */
export const MAX_AMOUNT = 99_999_999_999;

/** Unix-seconds timestamps taken as input: 0 (1970) to 253402300799 (9999-12-31T23:59:59Z). */
export const MAX_UNIX_SECONDS = 253_402_300_799;

/** Offsets of offset-paginated lists: up to 10^9 (no list is that long; SQLite takes any of them). */
export const MAX_OFFSET = 1_000_000_000;

const NUMERIC = new Set(['integer', 'number']);

function isNumeric(type: unknown): boolean {
  return typeof type === 'string'
    ? NUMERIC.has(type)
    : Array.isArray(type) && type.some((t) => NUMERIC.has(t as string));
}

/**
 * One JSON Schema node with the safe range added where it has no bound of its own: an `integer` or `number`
 * schema without `minimum`/`exclusiveMinimum` gets `minimum: MIN_SAFE_INTEGER`, without `maximum`/
 * `exclusiveMaximum` gets `maximum: MAX_SAFE_INTEGER` (a copy; any other value is returned as it is).
 * As a JSON.stringify replacer step it bounds every node of a schema.
 */
export function withSafeRange(node: unknown): unknown {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
  const s = node as Record<string, unknown>;
  if (!isNumeric(s.type)) return node;
  const low = s.minimum === undefined && s.exclusiveMinimum === undefined;
  const high = s.maximum === undefined && s.exclusiveMaximum === undefined;
  if (!low && !high) return node;
  return { ...s, ...(low ? { minimum: MIN_SAFE_INTEGER } : {}), ...(high ? { maximum: MAX_SAFE_INTEGER } : {}) };
}

/** A plain-JSON copy of `schema` (no TypeBox symbols, no `$id`) in which every number has a range. */
export function boundedSchema<T>(schema: T): T {
  return JSON.parse(
    JSON.stringify(schema, (key, value: unknown) => (key === '$id' ? undefined : withSafeRange(value))),
  ) as T;
}

/**
 * The first number in a parsed JSON document that JavaScript did not read exactly: not finite (`1e400` reads as
 * Infinity) or an integer beyond the safe range (`9007199254740993` reads as …992). Its path is in the form
 * validation errors name parameters in (`items[0].quantity`); `undefined` when every number is exact.
 * Iterative: a body may nest arrays hundreds of thousands deep (JSON.parse takes that; a recursion would not).
 */
export function inexactNumber(value: unknown): { path: string; keys: (string | number)[]; value: number } | undefined {
  // Depth-first with an explicit stack; each entry's parent and key are kept by index, for the path of a find.
  const values: unknown[] = [value];
  const parents: number[] = [-1];
  const keys: (string | number)[] = [''];
  const stack: number[] = [0];
  while (stack.length) {
    const at = stack.pop()!;
    const v = values[at];
    if (typeof v === 'number') {
      if (!Number.isFinite(v) || (Number.isInteger(v) && !Number.isSafeInteger(v))) {
        const chain = chainOf(at, parents, keys);
        return { path: pathOf(chain), keys: chain, value: v };
      }
    } else if (v !== null && typeof v === 'object') {
      const children: [string | number, unknown][] = Array.isArray(v) ? v.map((c, i) => [i, c]) : Object.entries(v);
      for (let i = children.length - 1; i >= 0; i--) {
        const [key, child] = children[i]!;
        if (child === null || (typeof child !== 'object' && typeof child !== 'number')) continue;
        stack.push(values.length);
        values.push(child);
        parents.push(at);
        keys.push(key);
      }
    }
  }
  return undefined;
}

/** At most this many characters of a path are named (a body may nest hundreds of thousands deep). */
const MAX_PATH = 255;

/** The keys from the document's root down to entry `at`. */
function chainOf(at: number, parents: number[], keys: (string | number)[]): (string | number)[] {
  const chain: (string | number)[] = [];
  for (let i = at; i > 0; i = parents[i]!) chain.push(keys[i]!);
  return chain.reverse();
}

/** Keys from a document's root as a parameter path (`items[0].quantity`), cut at MAX_PATH characters. */
export function pathOf(chain: (string | number)[]): string {
  const path = chain.reduce<string>((acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${k}` : k), '');
  return path.length > MAX_PATH ? `${path.slice(0, MAX_PATH - 1)}…` : path;
}
