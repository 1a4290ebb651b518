// Billing arithmetic: exact integer minor units only (no floating point anywhere an amount is made).
// The rounding rules here are the ones written down in docs/api.md ("Billing: money").
import type { Price, RecurringInterval, Tier } from '../../../contract/billing.js';
import { MAX_AMOUNT } from '../../../contract/numbers.js';
import { DAY_S } from '../../../contract/time.js';

/** a × num / den rounded half away from zero, exactly (BigInt: a × num can exceed 2^53). */
export function mulDivRound(a: number, num: number, den: number): number {
  if (den <= 0) throw new RangeError('den must be positive');
  const neg = a < 0 !== num < 0 && a !== 0 && num !== 0;
  const p = BigInt(Math.abs(a)) * BigInt(Math.abs(num));
  const d = BigInt(den);
  const q = (p * 2n + d) / (2n * d); // floor((2p + d) / 2d) = round half up of p/d for p ≥ 0
  if (q > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('result beyond the exact integer range');
  const r = Number(q);
  return neg ? -r : r;
}

/** The part of `amount` for `remaining` of `total` seconds (prorations), rounded half away from zero. */
export const prorate = (amount: number, remaining: number, total: number): number =>
  remaining >= total ? amount : remaining <= 0 ? 0 : mulDivRound(amount, remaining, total);

/** `percent` % of `amount`, rounded half away from zero. */
export const percentOf = (amount: number, percent: number): number => mulDivRound(amount, percent, 100);

/**
 * What `quantity` units of `price` cost for one period (per_unit, or tiered graduated/volume), computed in
 * BigInt; a result beyond Number.MAX_SAFE_INTEGER throws a RangeError (callers bound inputs with
 * `billableAmount` first, so the engine never meets one).
 */
export function priceAmount(
  price: Pick<Price, 'billing_scheme' | 'unit_amount' | 'tiers' | 'tiers_mode'>,
  quantity: number,
): number {
  const q = BigInt(quantity);
  let total = 0n;
  if (price.billing_scheme === 'per_unit') total = BigInt(price.unit_amount ?? 0) * q;
  else if (quantity > 0) {
    const tiers = price.tiers ?? [];
    if (price.tiers_mode === 'volume') {
      const tier = tierFor(tiers, quantity);
      total = BigInt(tier.flat_amount) + BigInt(tier.unit_amount) * q;
    } else {
      // graduated: each unit at the price of the tier it falls in; a tier's flat amount once any unit falls in it
      let lower = 0;
      for (const t of tiers) {
        if (quantity <= lower) break;
        const upper = t.up_to ?? Infinity;
        const units = Math.min(quantity, upper) - lower;
        total += BigInt(t.flat_amount) + BigInt(t.unit_amount) * BigInt(units);
        lower = upper;
      }
    }
  }
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('amount beyond the exact integer range');
  return Number(total);
}

/** The amount, or undefined when it would exceed MAX_AMOUNT (callers answer 400). */
export function billableAmount(
  price: Pick<Price, 'billing_scheme' | 'unit_amount' | 'tiers' | 'tiers_mode'>,
  quantity: number,
): number | undefined {
  try {
    const a = priceAmount(price, quantity);
    return a <= MAX_AMOUNT ? a : undefined;
  } catch {
    return undefined;
  }
}

function tierFor(tiers: Tier[], quantity: number): Tier {
  for (const t of tiers) if (t.up_to === null || quantity <= t.up_to) return t;
  return tiers[tiers.length - 1]!;
}

/**
 * `anchor` (Unix seconds) moved `n` intervals forward, in UTC. Months and years keep the anchor's day of the
 * month, clamped to the month's last day (Jan 31 → Feb 28/29 → Mar 31), and its time of day; always computed
 * from the anchor so that periods never drift.
 */
export function addInterval(anchor: number, interval: RecurringInterval, count: number, n: number): number {
  const steps = count * n;
  if (interval === 'day') return anchor + steps * DAY_S;
  if (interval === 'week') return anchor + steps * 7 * DAY_S;
  const months = interval === 'year' ? steps * 12 : steps;
  const d = new Date(anchor * 1000);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const ty = y + Math.floor(m / 12);
  const tm = ((m % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(ty, tm + 1, 0)).getUTCDate();
  const day = Math.min(d.getUTCDate(), lastDay);
  const ms = Date.UTC(ty, tm, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds());
  return Math.floor(ms / 1000);
}

/** Months → seconds from `start` (coupon `duration_in_months`). */
export const addMonths = (start: number, months: number): number => addInterval(start, 'month', 1, months);
