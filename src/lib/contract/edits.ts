// Changing a fixture's or a trigger's data from the command line, with the Stripe CLI's flags (README "Fixtures",
// docs/api.md "Changing the data: --override, --add, --remove, --skip"): `--override step:param.path=value` sets a
// param, `--add step:param.path=value` sets it only where the step has none, `--remove step:param.path` drops it.
// A path is dotted (`metadata.order`, `items.0.price`) or bracketed as in form encoding (`address[country]`,
// `items[0][price]`). Pure functions, importing nothing: the fixture runner (src/lib/fixtures) and the server's
// trigger scenarios share them; each turns an EditError into its own (an exit 2, a 400).

/** A malformed edit, or one naming a param the step does not have: the message says which and why. */
export class EditError extends Error {
  override name = 'EditError';
}

export type EditOp = 'override' | 'add' | 'remove';

/** One change to one step's params. */
export interface ParamEdit {
  op: EditOp;
  step: string;
  /** `metadata.order`, `items[0][price]` … (paramPath reads it). */
  param: string;
  /** override/add: the value to set (the CLI reads it with valueOf). */
  value?: unknown;
}

/** Keys that would reach an object's prototype instead of a param. */
const UNSAFE = new Set(['__proto__', 'prototype', 'constructor']);

/** `a.b[0][c]` → `['a', 'b', '0', 'c']`; undefined when it is not a path (empty part, unbalanced bracket, unsafe key). */
export function paramPath(param: string): string[] | undefined {
  const parts: string[] = [];
  const re = /([^.[\]]+)|\[([^[\]]*)\]|(\.)/gy;
  let expectPart = true;
  let m: RegExpExecArray | null;
  let at = 0;
  while (at < param.length) {
    re.lastIndex = at;
    m = re.exec(param);
    if (!m) return undefined;
    at = re.lastIndex;
    if (m[3] !== undefined) {
      if (expectPart) return undefined;
      expectPart = true;
      continue;
    }
    const part = m[1] ?? m[2]!;
    // a bare name must follow a dot or start the path; a bracket may follow anything
    if (m[1] !== undefined && !expectPart) return undefined;
    if (part === '' || UNSAFE.has(part)) return undefined;
    parts.push(part);
    expectPart = false;
  }
  return parts.length > 0 && !expectPart ? parts : undefined;
}

/**
 * A value as written on the command line: a JSON number, `true`, `false`, `null`, a JSON object or array, or a
 * JSON string in quotes is that value; anything else is the text itself (applyEdits keeps a replaced text value
 * text: `name=123` stays "123").
 */
export function valueOf(text: string): unknown {
  const t = text.trim();
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(t) || /^(true|false|null)$/.test(t) || /^["{[]/.test(t)) {
    try {
      return JSON.parse(t);
    } catch {
      return text;
    }
  }
  return text;
}

const USAGE: Record<EditOp, string> = {
  override: '--override STEP:PARAM=VALUE (e.g. --override customer:email=ada@example.com)',
  add: '--add STEP:PARAM=VALUE (e.g. --add customer:metadata.order=42)',
  remove: '--remove STEP:PARAM (e.g. --remove customer:description)',
};

/** Reads one `--override`/`--add` (`step:param=value`) or `--remove` (`step:param`) flag value. */
export function parseEdit(op: EditOp, text: string): ParamEdit {
  const fail = (why: string) => new EditError(`--${op} ${JSON.stringify(text)}: ${why}; the syntax is ${USAGE[op]}.`);
  const eq = text.indexOf('=');
  const target = op === 'remove' || eq < 0 ? text : text.slice(0, eq);
  if (op === 'remove' && eq >= 0) throw fail('--remove takes no value');
  if (op !== 'remove' && eq < 0) throw fail('no "=VALUE"');
  const colon = target.indexOf(':');
  if (colon < 0) throw fail('no step name before ":"');
  const step = target.slice(0, colon).trim();
  const param = target.slice(colon + 1).trim();
  if (step === '') throw fail('the step name is blank');
  if (param === '') throw fail('the param is blank');
  if (!paramPath(param))
    throw fail(
      `"${param}" is not a param path (names joined by "." or in brackets: metadata.order, address[country], items.0.price)`,
    );
  return op === 'remove' ? { op, step, param } : { op, step, param, value: valueOf(text.slice(eq + 1)) };
}

/** The flags' values as edits, in the order override, add, remove (the Stripe CLI's). */
export function parseEdits(flags: { override?: string[]; add?: string[]; remove?: string[] }): ParamEdit[] {
  return [
    ...(flags.override ?? []).map((t) => parseEdit('override', t)),
    ...(flags.add ?? []).map((t) => parseEdit('add', t)),
    ...(flags.remove ?? []).map((t) => parseEdit('remove', t)),
  ];
}

/** How an edit is written on the command line (for messages). */
export const editText = (e: ParamEdit) =>
  `--${e.op} ${e.step}:${e.param}${e.op === 'remove' ? '' : `=${typeof e.value === 'string' ? e.value : JSON.stringify(e.value)}`}`;

/**
 * The value set at a place: a text value replaced keeps being text (a number or boolean written for it is
 * written as text), and so is every scalar under `metadata` (whose values are strings).
 */
function typed(existing: unknown, value: unknown, path: string[]): unknown {
  const scalar = typeof value === 'number' || typeof value === 'boolean';
  if (scalar && (typeof existing === 'string' || path.at(-2) === 'metadata')) return String(value);
  return value;
}

/**
 * `params` with `edits` (all of one step) applied, in order; `params` itself is not changed. Throws
 * EditError for a `--remove` of a param the step does not have, or a path that goes through a value that
 * is not an object or array.
 */
export function applyEdits(params: Record<string, unknown> | undefined, edits: ParamEdit[]): Record<string, unknown> {
  const out = structuredClone(params ?? {});
  for (const edit of edits) {
    const path = paramPath(edit.param);
    if (!path) throw new EditError(`${editText(edit)}: "${edit.param}" is not a param path.`);
    let cur: unknown = out;
    for (let i = 0; i < path.length - 1; i++) {
      const key = path[i]!;
      const container = cur as Record<string, unknown>;
      let next = Array.isArray(container) ? container[Number(key)] : container[key];
      if (next === undefined || ((next === null || typeof next !== 'object') && edit.op === 'override')) {
        if (edit.op === 'remove')
          throw new EditError(`${editText(edit)}: step "${edit.step}" has no param ${edit.param}.`);
        next = /^\d+$/.test(path[i + 1]!) ? [] : {};
        if (Array.isArray(container)) setIndex(container, key, next, edit);
        else container[key] = next;
      } else if (next === null || typeof next !== 'object') {
        throw new EditError(
          `${editText(edit)}: ${path.slice(0, i + 1).join('.')} of step "${edit.step}" is ${JSON.stringify(next)}, not an object (use --override to replace it).`,
        );
      }
      cur = next;
    }
    const last = path.at(-1)!;
    const container = cur as Record<string, unknown>;
    const existing = Array.isArray(container) ? container[Number(last)] : container[last];
    if (edit.op === 'remove') {
      if (existing === undefined)
        throw new EditError(`${editText(edit)}: step "${edit.step}" has no param ${edit.param}.`);
      if (Array.isArray(container)) container.splice(Number(last), 1);
      else delete container[last];
    } else if (edit.op === 'override' || existing === undefined) {
      const value = typed(existing, structuredClone(edit.value), path);
      if (Array.isArray(container)) setIndex(container, last, value, edit);
      else container[last] = value;
    }
  }
  return out;
}

/** Sets element `key` of an array: an index up to its length (one past the end appends). */
function setIndex(array: unknown[], key: string, value: unknown, edit: ParamEdit): void {
  const i = /^\d+$/.test(key) ? Number(key) : NaN;
  if (!(i <= array.length))
    throw new EditError(
      `${editText(edit)}: ${key} is not an index of an array of ${array.length} (0…${array.length}).`,
    );
  array[i] = value;
}

/** The edits grouped by step, in order. */
export function editsByStep(edits: ParamEdit[]): Map<string, ParamEdit[]> {
  const by = new Map<string, ParamEdit[]>();
  for (const e of edits) by.set(e.step, [...(by.get(e.step) ?? []), e]);
  return by;
}

/** Whether an override or add of `step` sets `param` (or a param inside it). */
export function sets(edits: ParamEdit[], step: string, param: string): boolean {
  const want = paramPath(param)!;
  return edits.some((e) => {
    if (e.step !== step || e.op === 'remove') return false;
    const p = paramPath(e.param)!;
    return want.every((part, i) => p[i] === part);
  });
}
