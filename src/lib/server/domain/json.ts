// An API object together with its JSON text, for objects both recorded in an event and returned: the event's body
// and the answer use that text rather than serialising the object twice more. The object must not change after the
// text is attached: the text is what is sent.

const TEXT = Symbol('json text');

/** `value`, carrying `json` (which must be `JSON.stringify(value)`). */
export function withJsonText<T extends object>(value: T, json: string): T {
  Object.defineProperty(value, TEXT, { value: json, enumerable: false });
  return value;
}

/** The JSON text attached to `value` (withJsonText), if any. */
export function jsonTextOf(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? (value as { [TEXT]?: string })[TEXT] : undefined;
}
