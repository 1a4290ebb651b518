// `--data JSON|@file|-` for commands that accept a whole request body (`payorch api`, `ledger post`).
import { readFileSync } from 'node:fs';
import { CliError, EXIT } from './errors.js';

export function readJsonData(data: string): unknown {
  let text = data;
  if (data === '-') text = readFileSync(0, 'utf8');
  else if (data.startsWith('@')) {
    try {
      text = readFileSync(data.slice(1), 'utf8');
    } catch (err) {
      throw new CliError(`Cannot read ${data.slice(1)}: ${(err as Error).message}`, EXIT.USAGE);
    }
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`--data is not valid JSON: ${(err as Error).message}`, EXIT.USAGE);
  }
}

/**
 * `-d key=value` pairs as the Stripe CLI and curl users type them (`amount=100`, `metadata[order]=7`,
 * `items[0][price]=price_1`, `expand[]=prices`), as the JSON object the server takes: brackets nest (a numeric
 * index or `[]` makes an array), and a value that is a whole number written plainly (`100`, `-5`; not `007`,
 * `1e3` or `1.5`) becomes a number, `true`/`false` a boolean — except under `metadata`, whose values are always
 * strings. Anything else is a string (the rule README.md and `api --help` give).
 */
export function formData(pairs: string[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? '' : pair.slice(0, eq);
    const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
    if (!m)
      throw new CliError(
        `-d takes JSON, @file, - (stdin) or key=value pairs such as amount=100 or metadata[order]=7 (got "${pair}").`,
        EXIT.USAGE,
      );
    const path = [m[1]!, ...[...m[2]!.matchAll(/\[([^[\]]*)\]/g)].map((b) => b[1]!)];
    const raw = pair.slice(eq + 1);
    const value = path[0] === 'metadata' ? raw : typed(raw);
    let node: Record<string, unknown> | unknown[] = root;
    for (let i = 0; i < path.length; i++) {
      const part = path[i]!;
      const last = i === path.length - 1;
      const nextIsIndex = !last && /^(\d*)$/.test(path[i + 1]!);
      const conflict = () =>
        new CliError(
          `-d ${pair}: "${path.slice(0, i + 1).join('.')}" is given twice or both as a value and a group.`,
          EXIT.USAGE,
        );
      if (Array.isArray(node)) {
        if (!/^\d*$/.test(part)) throw conflict();
        const index = part === '' ? node.length : Number(part);
        if (index > node.length) throw new CliError(`-d ${pair}: index ${index} skips ${node.length}.`, EXIT.USAGE);
        if (last) {
          if (index < node.length) throw conflict();
          node.push(value);
        } else {
          node[index] ??= nextIsIndex ? [] : {};
          if (typeof node[index] !== 'object' || node[index] === null || Array.isArray(node[index]) !== nextIsIndex)
            throw conflict();
          node = node[index] as Record<string, unknown> | unknown[];
        }
        continue;
      }
      if (part === '' || part === '__proto__' || part === 'constructor' || part === 'prototype') throw conflict();
      if (last) {
        if (Object.prototype.hasOwnProperty.call(node, part)) throw conflict();
        node[part] = value;
      } else {
        if (!Object.prototype.hasOwnProperty.call(node, part)) node[part] = nextIsIndex ? [] : {};
        const child = node[part];
        if (typeof child !== 'object' || child === null || Array.isArray(child) !== nextIsIndex) throw conflict();
        node = child as Record<string, unknown> | unknown[];
      }
    }
  }
  return root;
}

function typed(value: string): string | number | boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^-?(0|[1-9]\d*)$/.test(value) && Number.isSafeInteger(Number(value))) return Number(value);
  return value;
}

/** Whether `-d`'s value is a key=value pair (else JSON, @file or -). */
export const isFormPair = (data: string): boolean => /^[^[\]={"'\s@-][^=]*=/.test(data) && !/^\s*[[{]/.test(data);
