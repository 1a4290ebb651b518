// Billing arithmetic: exact integer minor units only (no floating point anywhere an amount is made).
// The rounding rules here are the ones written down in docs/api.md ("Billing: money").
import type { Price, RecurringInterval, Tier } from '../../../contract/billing.js';

/** a × num / den rounded half away from zero, exactly (BigInt: a × num can exceed 2^53). */
export function mulDivRound(a: number, num: number, den: number): number {
  if (den <= 0) throw new RangeError('den must be positive');
  const neg = a < 0 !== num < 0 && a !== 0 && num !== 0;
  const p = BigInt(Math.abs(a)) * BigInt(Math.abs(num));
  const d = BigInt(den);
  const q = (p * 2n + d) / (2n * d); // floor((2p + d) / 2d) = round half up of p/d for p ≥ 0
  const r = Number(q);
  return neg ? -r : r;
}

/** The part of `amount` for `remaining` of `total` seconds (prorations), rounded half away from zero. */
export const prorate = (amount: number, remaining: number, total: number): number =>
  remaining >= total ? amount : remaining <= 0 ? 0 : mulDivRound(amount, remaining, total);

/** `percent` % of `amount`, rounded half away from zero. */
export const percentOf = (amount: number, percent: number): number => mulDivRound(amount, percent, 100);

/** What `quantity` units of `price` cost for one period (per_unit, or tiered graduated/volume). */
export function priceAmount(price: Pick<Price, 'billing_scheme' | 'unit_amount' | 'tiers' | 'tiers_mode'>, quantity: number): number {
  if (price.billing_scheme === 'per_unit') return (price.unit_amount ?? 0) * quantity;
  const tiers = price.tiers ?? [];
  if (quantity <= 0) return 0;
  if (price.tiers_mode === 'volume') {
    const tier = tierFor(tiers, quantity);
    return tier.flat_amount + tier.unit_amount * quantity;
  }
  // graduated: each unit at the price of the tier it falls in; a tier's flat amount once any unit falls in it
  let total = 0;
  let lower = 0;
  for (const t of tiers) {
    const upper = t.up_to ?? Infinity;
    if (quantity <= lower) break;
    const units = Math.min(quantity, upper) - lower;
    total += t.flat_amount + t.unit_amount * units;
    lower = upper;
  }
  return total;
}

function tierFor(tiers: Tier[], quantity: number): Tier {
  for (const t of tiers) if (t.up_to === null || quantity <= t.up_to) return t;
  return tiers[tiers.length - 1]!;
}

const DAY = 86_400;

/**
 * `anchor` (Unix seconds) moved `n` intervals forward, in UTC. Months and years keep the anchor's day of the
 * month, clamped to the month's last day (Jan 31 → Feb 28/29 → Mar 31), and its time of day; always computed
 * from the anchor so that periods never drift.
 */
export function addInterval(anchor: number, interval: RecurringInterval, count: number, n: number): number {
  const steps = count * n;
  if (interval === 'day') return anchor + steps * DAY;
  if (interval === 'week') return anchor + steps * 7 * DAY;
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
