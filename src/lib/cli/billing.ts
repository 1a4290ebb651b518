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

/** `30d`, `12h`, `90m`, `45s`, `2w`, `1d12h` → seconds. */
export function parseDuration(value: string): number {
  const parts = [...value.matchAll(/(\d+)([smhdw])/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== value)
    throw new CliError(`A duration looks like 30d, 12h, 90m, 45s, 2w or 1d12h (got "${value}").`, EXIT.USAGE);
  return parts.reduce((a, p) => a + Number(p[1]) * UNITS[p[2]!]!, 0);
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
