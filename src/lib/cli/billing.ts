// Small parsers shared by the billing commands, and the customers a list of invoices names.
import { Flags } from '@oclif/core';
import type { Client } from '../client/client.js';
import { PayorchError } from '../client/errors.js';
import type { Customer } from '../contract/billing.js';
import { metadataFlag, parseMetadata } from './base.js';
import { CliError, EXIT } from './errors.js';

/** `price_123` or `price_123:3` → {price, quantity?}. */
export function parsePriceQuantity(value: string, flag: string): { price: string; quantity?: number } {
  const [price, qty, ...rest] = value.split(':');
  if (!price || rest.length || (qty !== undefined && !/^\d+$/.test(qty)))
    throw new CliError(`--${flag} takes PRICE_ID or PRICE_ID:QUANTITY (got "${value}").`, EXIT.USAGE);
  return qty === undefined ? { price } : { price, quantity: Number(qty) };
}

/** `10:500` / `10:500:1000` / `inf:300` → a tier (up_to : unit_amount [: flat_amount]). */
export function parseTier(value: string): { up_to: number | 'inf'; unit_amount: number; flat_amount?: number } {
  const m = /^(inf|\d+):(\d+)(?::(\d+))?$/.exec(value);
  if (!m)
    throw new CliError(
      `--tier takes UP_TO:UNIT_AMOUNT[:FLAT_AMOUNT], UP_TO a number or inf (got "${value}").`,
      EXIT.USAGE,
    );
  return {
    up_to: m[1] === 'inf' ? 'inf' : Number(m[1]),
    unit_amount: Number(m[2]),
    ...(m[3] !== undefined ? { flat_amount: Number(m[3]) } : {}),
  };
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 7 * 86_400 };
const MONTHS: Record<string, number> = { mo: 1, y: 12 };
const DURATION_HELP = 'A duration looks like 30d, 12h, 90m, 45s, 2w, 1mo, 1y or 1d12h';

/**
 * The time (Unix s) a duration after `start`: `30d`, `12h`, `90m`, `45s`, `2w`, `1mo`, `1y`, `1mo15d`…
 * Months and years are calendar months, counted first, as a monthly subscription's periods are: the same day of
 * the month and time of day, clamped to the month's last day (Jan 31 + 1mo → Feb 28, or 29); from the last day
 * of a month they go to the last day of the target month (Feb 28 + 1mo → Mar 31), so that repeated `1mo`
 * advances meet every renewal of a monthly subscription, whatever its day. The other units are fixed lengths.
 */
export function durationTarget(value: string, start: number): number {
  const parts = [...value.matchAll(/(\d+)(mo|[smhdwy])/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== value)
    throw new CliError(`${DURATION_HELP} (got "${value}").`, EXIT.USAGE);
  let months = 0;
  let seconds = 0;
  for (const p of parts) {
    const n = Number(p[1]);
    if (MONTHS[p[2]!] !== undefined) months += n * MONTHS[p[2]!]!;
    else seconds += n * UNITS[p[2]!]!;
  }
  if (!Number.isSafeInteger(months) || !Number.isSafeInteger(seconds) || months > 12 * 10_000)
    throw new CliError(`${DURATION_HELP} (got "${value}": too long).`, EXIT.USAGE);
  return addCalendarMonths(start, months) + seconds;
}

/** `start` (Unix s) plus `months` calendar months (durationTarget's rule). */
export function addCalendarMonths(start: number, months: number): number {
  if (months === 0) return start;
  const d = new Date(start * 1000);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const lastDay = (year: number, month: number) => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const endOfMonth = d.getUTCDate() === lastDay(y, m);
  const target = new Date(Date.UTC(y, m + months, 1));
  const last = lastDay(target.getUTCFullYear(), target.getUTCMonth());
  const day = endOfMonth ? last : Math.min(d.getUTCDate(), last);
  const ms = Date.UTC(
    target.getUTCFullYear(),
    target.getUTCMonth(),
    day,
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
  );
  return Math.floor(ms / 1000);
}

/** A date flag: Unix seconds, or anything Date.parse reads (2027-01-01, 2027-01-01T12:00:00Z). */
export function parseDate(value: string, flag: string): number {
  if (/^\d+$/.test(value)) return Number(value);
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw new CliError(
      `--${flag} takes a date (2027-01-31 or an ISO time) or Unix seconds (got "${value}").`,
      EXIT.USAGE,
    );
  return Math.floor(ms / 1000);
}

/** `--proration-behavior`, of every command that changes what a subscription bills. */
export const prorationFlag = Flags.option({
  description: 'create_prorations (default) or none',
  options: ['create_prorations', 'none'] as const,
})();

/** `--collection-method`, of invoices and subscriptions. */
export const collectionMethodFlag = Flags.option({
  description: 'charge_automatically (default) or send_invoice',
  options: ['charge_automatically', 'send_invoice'] as const,
})();

/** The customer fields `customers create` and `customers update` both take, and how they map to the body. */
export const customerFlags = {
  email: Flags.string({ description: 'Email' }),
  name: Flags.string({ description: 'Name' }),
  phone: Flags.string({ description: 'Phone' }),
  description: Flags.string({ description: 'Description' }),
  'payment-method': Flags.string({ description: 'Default payment method (a card token such as tok_visa)' }),
  metadata: metadataFlag,
};

export function customerParams(flags: {
  email?: string;
  name?: string;
  phone?: string;
  description?: string;
  'payment-method'?: string;
  metadata?: string[];
}) {
  return {
    email: flags.email,
    name: flags.name,
    phone: flags.phone,
    description: flags.description,
    default_payment_method: flags['payment-method'],
    metadata: parseMetadata(flags.metadata),
  };
}

/** At most this many customers are looked up for one list (a page holds at most 100 rows). */
export const CUSTOMER_LOOKUPS = 50;
const LOOKUPS_AT_ONCE = 8;

/**
 * The customers of `ids` (an invoice carries only its customer's id, in the contract and the live service alike):
 * each distinct id retrieved once, the first CUSTOMER_LOOKUPS of them, a few at a time. One that cannot be had
 * (deleted, or the server busy) is simply missing from the map: the view shows its id. `skipped` counts the
 * distinct ids beyond the bound.
 */
export async function customersOf(
  client: Client,
  ids: string[],
): Promise<{ customers: Map<string, Customer>; skipped: number }> {
  const distinct = [...new Set(ids)];
  const wanted = distinct.slice(0, CUSTOMER_LOOKUPS);
  const customers = new Map<string, Customer>();
  let next = 0;
  const worker = async () => {
    while (next < wanted.length) {
      const id = wanted[next++]!;
      try {
        customers.set(id, await client.customers.retrieve(id));
      } catch (err) {
        if (!(err instanceof PayorchError)) throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKUPS_AT_ONCE, wanted.length) }, worker));
  return { customers, skipped: distinct.length - wanted.length };
}
