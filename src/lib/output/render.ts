// Rendering API objects for people (detail views and tables, colour when stdout is a terminal) and for
// scripts (`--json`: exactly the API object). Commands describe *what* to show; this file decides *how*,
// including the one rule that keeps data from driving the terminal (`printable`). Secrets are masked by the
// views (mask.ts), never in --json, which is the API's object as it came.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ChalkInstance } from 'chalk';

export interface Field<T> {
  label: string;
  /**
   * The value; several lines (a journal entry's lines, an invoice's items, KYC checks) as an array: the first on
   * the label's row, each next one on a row of its own under it. Each line is escaped (`printable`) on its own,
   * so a line break inside data still shows as `\n` and never starts a row.
   */
  value: (obj: T) => string | number | boolean | null | undefined | readonly string[];
  /** Colour the value as a status. */
  status?: boolean;
}

export interface Column<T> {
  header: string;
  value: (obj: T) => string | number | boolean | null | undefined;
  status?: boolean;
  /**
   * When the table is wider than the terminal: the value may be shortened, ending in `…` (names, descriptions,
   * emails, URLs), or with `'wrap'` continued on more lines within its column (reference text, such as what an
   * event type means). Columns without it are never shortened — a cut id, amount, status or time is worse than
   * none.
   */
  shrink?: boolean | 'wrap';
  /** When the table is wider than the terminal even with its values shortened: the column may be left out. */
  optional?: boolean;
}

export type ColorMode = 'on' | 'off' | 'auto';
/** The global `--color` (BaseCommand sets it from argv before anything is printed). */
let colorMode: ColorMode = 'auto';
export function setColorMode(mode: ColorMode): void {
  colorMode = mode;
  chalkOut = chalkErr = undefined;
}

/**
 * Colour or not — the one place that decides. `--color on|off` (a per-run choice: it wins over the environment,
 * as no-color.org asks); else (`auto`, the default) NO_COLOR (non-empty) turns it off; FORCE_COLOR decides next,
 * as chalk and Node read it — `0` or `false` off, anything else (empty included) on; otherwise a terminal that
 * is not `dumb`.
 */
export function useColor(stream: NodeJS.WriteStream = process.stdout, env = process.env, mode = colorMode): boolean {
  if (mode !== 'auto') return mode === 'on';
  if ('NO_COLOR' in env && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

// chalk is loaded only when a stream is coloured (a terminal without NO_COLOR, or FORCE_COLOR): it costs
// start-up, and without colour chalk (level 0) returns its arguments unchanged — which `plain` does too, with
// chalk's own rule (one argument → '' + it; several → joined with spaces).
let chalkModule: typeof import('chalk') | undefined;

/** Loads chalk when stdout or stderr will be coloured. BaseCommand runs it before a command runs or reports. */
export async function loadColor(): Promise<void> {
  if (!chalkModule && (useColor(process.stdout) || useColor(process.stderr))) chalkModule = await import('chalk');
}

const plainStyle = (...args: unknown[]): string => (args.length === 1 ? '' + (args[0] as string) : args.join(' '));
const plain = new Proxy(plainStyle, {
  get: (_target, prop) => (prop === 'level' ? 0 : plain),
}) as unknown as ChalkInstance;

function chalkFor(stream: NodeJS.WriteStream): ChalkInstance {
  // Without chalk loaded (a path that rendered before BaseCommand's loadColor()), plain text rather than a crash.
  if (!useColor(stream) || !chalkModule) return plain;
  return new chalkModule.Chalk({ level: 1 });
}

let chalkOut: ChalkInstance | undefined;
let chalkErr: ChalkInstance | undefined;
// Cached once chalk is loaded; until then each use decides again (plain text: cheap).
const settled = () => Boolean(chalkModule);
export const color = () => chalkOut ?? (settled() ? (chalkOut = chalkFor(process.stdout)) : chalkFor(process.stdout));
export const colorErr = () =>
  chalkErr ?? (settled() ? (chalkErr = chalkFor(process.stderr)) : chalkFor(process.stderr));

const GOOD = new Set(['succeeded', 'active', 'paid', 'verified', 'captured', 'authenticated', 'passed', 'ok', 'true']);
const BAD = new Set([
  'failed',
  'canceled',
  'void',
  'uncollectible',
  'unpaid',
  'rejected',
  'closed',
  'frozen',
  'revoked',
  'past_due',
  'refunded',
  'expired',
]);

export function statusText(value: string, c: ChalkInstance = color()): string {
  if (GOOD.has(value)) return c.green(value);
  if (BAD.has(value)) return c.red(value);
  return c.yellow(value);
}

/**
 * Characters that make a terminal do something instead of showing text: C0 controls (ESC, BEL, CR, LF, …),
 * DEL, C1 controls (U+0080–U+009F, e.g. the one-byte CSI), line/paragraph separators and the bidirectional
 * overrides and isolates that reorder what is shown.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** What JSON.stringify leaves unescaped of CONTROL (it escapes C0 itself; structural newlines stay). */
const JSON_RAW_CONTROL = /[\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const escapeControl = (ch: string): string => {
  if (ch === '\n') return '\\n';
  if (ch === '\r') return '\\r';
  if (ch === '\t') return '\\t';
  const code = ch.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/**
 * Text from data (names, descriptions, ids, error messages) made safe to show on a terminal: every control
 * character becomes a visible escape (`\x1b`, `\n`, `\u202e`). Every human view goes through it; colour is
 * applied after, so our own styling still works.
 */
export function printable(value: unknown): string {
  const s = value === null || value === undefined ? '' : String(value);
  return s.replace(CONTROL, escapeControl);
}

const text = printable;

/**
 * The last line of defence for a whole human view about to be written: control characters escaped as
 * `printable` does, except line breaks and the colour sequences (SGR, `ESC[…m`) our own styling adds.
 * Values in detail views and tables were already made printable, so this changes nothing there; it catches
 * data a command put into a sentence of its own.
 */
export function safeText(view: string): string {
  return view.replace(/\x1b\[[0-9;]*m|[\s\S]/g, (m) => (m.length > 1 || m === '\n' ? m : printable(m)));
}

/**
 * `--json`: exactly the value (the API object as it came, secrets included: the README's output rule). The
 * characters `JSON.stringify` leaves raw that a terminal would act on (DEL, C1, separators, bidi) are written as
 * `\uXXXX` escapes, which parse back to the same string.
 */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    JSON_RAW_CONTROL,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** One value as one line of JSON (`listen --json`: a line per event), escaped as `jsonText` escapes. */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(
    JSON_RAW_CONTROL,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export function detailText<T>(obj: T, title: string, fields: Field<T>[]): string {
  const c = color();
  const width = Math.max(...fields.map((f) => f.label.length));
  const lines = [c.bold(printable(title))];
  const under = ' '.repeat(2 + width + 2);
  for (const f of fields) {
    const value = f.value(obj);
    const rows = (Array.isArray(value) ? value : [value]).map(text).filter((r) => r !== '');
    if (rows.length === 0) continue;
    const [first, ...rest] = rows as [string, ...string[]];
    lines.push(`  ${c.dim(f.label.padEnd(width))}  ${f.status && rest.length === 0 ? statusText(first, c) : first}`);
    for (const row of rest) lines.push(under + row);
  }
  return lines.join('\n');
}

/**
 * The width a view on `stream` must fit: a terminal's size, or — when the terminal reports none (0 columns: a
 * pseudo-terminal nobody sized, some CI runners) — COLUMNS, as gh and most tools read it. Undefined when the
 * stream is not a terminal (piped output keeps every value whole, COLUMNS or not) or no width is known.
 */
export function terminalWidth(
  stream: { isTTY?: boolean; columns?: number },
  env: NodeJS.ProcessEnv = process.env,
): number | undefined {
  if (!stream.isTTY) return undefined;
  if (stream.columns && stream.columns > 0) return stream.columns;
  const columns = Number(env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? columns : undefined;
}

const widthScope = new AsyncLocalStorage<number | undefined>();

/**
 * Runs `render` with the width tables must fit (the terminal's columns), or none (`undefined`: not a terminal —
 * piped output keeps every value whole, as gh's does). BaseCommand runs every human view through it.
 */
export function withWidth<R>(width: number | undefined, render: () => R): R {
  return widthScope.run(width, render);
}

const GAP = 3;
/** A shortened column keeps at least this many characters (or its header, when longer); a wrapped one, more. */
const MIN_SHRUNK = 8;
const MIN_WRAPPED = 20;
/** Optional columns leave before a shortened one gets less than this. */
const ROOMY = 20;

/**
 * The columns to show and their widths in `max` characters, from their natural widths: optional columns leave until
 * shrinkable ones keep some room (ROOMY) — those with nothing in them first, then the others from the right; one that
 * fits again once a later one left comes back. Shrinkable columns then give way (down to their minimum) and share the
 * width left evenly. Returns undefined when the table fits as it is. If it cannot fit even so, it is shown with what is
 * left (the terminal wraps it) rather than cutting an id or an amount.
 */
export function fitColumns(
  natural: number[],
  columns: (Pick<Column<unknown>, 'header' | 'shrink' | 'optional'> & { empty?: boolean })[],
  max: number,
): { shown: number[]; widths: number[] } | undefined {
  const total = (ws: number[]) => ws.reduce((a, w) => a + w, 0) + GAP * Math.max(0, ws.length - 1);
  if (total(natural) <= max) return undefined;
  const atLeast = (floor: number) => (i: number) => {
    const { shrink, header } = columns[i]!;
    return shrink
      ? Math.min(natural[i]!, Math.max(floor, header.length, shrink === 'wrap' ? MIN_WRAPPED : MIN_SHRUNK))
      : natural[i]!;
  };
  const least = atLeast(MIN_SHRUNK);
  const roomy = atLeast(ROOMY);
  const optional = natural
    .map((_, i) => i)
    .filter((i) => columns[i]!.optional)
    .reverse();
  const order = [...optional.filter((i) => columns[i]!.empty), ...optional.filter((i) => !columns[i]!.empty)];
  const shown = natural.map((_, i) => i);
  const dropped: number[] = [];
  for (const i of order) {
    if (total(shown.map(roomy)) <= max) break;
    shown.splice(shown.indexOf(i), 1);
    dropped.push(i);
  }
  // A column left out early may fit again once a wider one left after it (the last to leave goes back first).
  for (const i of dropped.reverse()) {
    const back = [...shown, i].sort((a, b) => a - b);
    if (total(back.map(roomy)) <= max) shown.splice(0, shown.length, ...back);
  }
  const widths = shown.map(least);
  let spare = max - total(widths);
  for (;;) {
    const wanting = shown.flatMap((i, k) => (widths[k]! < natural[i]! ? [k] : []));
    if (spare <= 0 || wanting.length === 0) break;
    const share = Math.max(1, Math.floor(spare / wanting.length));
    for (const k of wanting) {
      const add = Math.min(share, natural[shown[k]!]! - widths[k]!, spare);
      widths[k]! += add;
      spare -= add;
    }
  }
  return { shown, widths };
}

export async function tableText<T>(rows: T[], columns: Column<T>[]): Promise<string> {
  const { default: Table } = await import('cli-table3');
  const c = color();
  const cells = rows.map((row) =>
    columns.map((col) => (col.status ? statusText(text(col.value(row)), c) : text(col.value(row)))),
  );
  const render = (shown: number[], colWidths?: number[]) => {
    const table = new Table({
      head: shown.map((i) => c.bold(columns[i]!.header)),
      ...(colWidths ? { colWidths } : {}),
      style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
      chars: {
        top: '',
        'top-mid': '',
        'top-left': '',
        'top-right': '',
        bottom: '',
        'bottom-mid': '',
        'bottom-left': '',
        'bottom-right': '',
        left: '',
        'left-mid': '',
        mid: '',
        'mid-mid': '',
        right: '',
        'right-mid': '',
        middle: ' '.repeat(GAP),
      },
    });
    for (const row of cells)
      table.push(
        shown.map((i) => (colWidths && columns[i]!.shrink === 'wrap' ? { content: row[i]!, wordWrap: true } : row[i]!)),
      );
    return {
      table,
      text: table
        .toString()
        .split('\n')
        .map((l) => l.trimEnd())
        .join('\n'),
    };
  };
  const all = columns.map((_, i) => i);
  const whole = render(all);
  const max = widthScope.getStore();
  // cli-table3 has measured every column (colour codes and wide characters counted as the terminal shows them).
  const described = columns.map((col, i) => ({ ...col, empty: cells.every((row) => row[i] === '') }));
  const fit = max === undefined ? undefined : fitColumns(whole.table.options.colWidths as number[], described, max);
  return fit ? render(fit.shown, fit.widths).text : whole.text;
}
