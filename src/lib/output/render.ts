// Rendering API objects for people (detail views and tables, colour when stdout is a terminal) and for
// scripts (`--json`: exactly the API object). Commands describe *what* to show; this file decides *how*,
// including the one rule that keeps data from driving the terminal (`printable`). Secrets are masked by the
// views (mask.ts), never in --json, which is the API's object as it came.
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
}

export function useColor(stream: NodeJS.WriteStream = process.stdout, env = process.env): boolean {
  if ('NO_COLOR' in env && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return true;
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

// chalk is loaded only when a stream is coloured (a terminal without NO_COLOR, or FORCE_COLOR): importing it
// costs ~7–9 ms of CLI start-up, and without colour chalk (level 0) returns its arguments unchanged — which
// `plain` does too, with chalk's own rule (one argument → '' + it; several → joined with spaces).
let chalkModule: typeof import('chalk') | undefined;

/** Loads chalk when stdout or stderr will be coloured. BaseCommand runs it before a command runs or reports. */
export async function loadColor(): Promise<void> {
  if (!chalkModule && (useColor(process.stdout) || useColor(process.stderr))) chalkModule = await import('chalk');
}

const plainStyle = (...args: unknown[]): string => (args.length === 1 ? '' + (args[0] as string) : args.join(' '));
const plain = new Proxy(plainStyle, { get: (_target, prop) => (prop === 'level' ? 0 : plain) }) as unknown as ChalkInstance;

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
export const colorErr = () => chalkErr ?? (settled() ? (chalkErr = chalkFor(process.stderr)) : chalkFor(process.stderr));

const GOOD = new Set(['succeeded', 'active', 'paid', 'verified', 'captured', 'authenticated', 'passed', 'ok', 'true']);
const BAD = new Set(['failed', 'canceled', 'void', 'uncollectible', 'unpaid', 'rejected', 'closed', 'frozen', 'revoked', 'past_due', 'refunded', 'expired']);

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
  return JSON.stringify(value, null, 2).replace(JSON_RAW_CONTROL, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One value as one line of JSON (`listen --json`: a line per event), escaped as `jsonText` escapes. */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(JSON_RAW_CONTROL, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
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

export async function tableText<T>(rows: T[], columns: Column<T>[]): Promise<string> {
  const { default: Table } = await import('cli-table3');
  const c = color();
  const table = new Table({
    head: columns.map((col) => c.bold(col.header)),
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
    chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '   ' },
  });
  for (const row of rows) table.push(columns.map((col) => (col.status ? statusText(text(col.value(row)), c) : text(col.value(row)))));
  return table.toString().split('\n').map((l) => l.trimEnd()).join('\n');
}
