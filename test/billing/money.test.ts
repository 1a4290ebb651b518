// Billing arithmetic as properties (fast-check): exact integers, the documented rounding, periods without drift.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  addInterval,
  billableAmount,
  mulDivRound,
  percentOf,
  priceAmount,
  prorate,
} from '../../dist/lib/server/domain/billing/money.js';

const tiersArb = fc
  .uniqueArray(fc.integer({ min: 1, max: 500 }), { minLength: 0, maxLength: 4 })
  .chain((ups) =>
    fc.tuple(
      fc.constant([...ups].sort((a, b) => a - b)),
      fc.array(
        fc.record({
          unit_amount: fc.integer({ min: 0, max: 10_000 }),
          flat_amount: fc.integer({ min: 0, max: 10_000 }),
        }),
        { minLength: ups.length + 1, maxLength: ups.length + 1 },
      ),
    ),
  )
  .map(([ups, amounts]) => amounts.map((a, i) => ({ up_to: i < ups.length ? ups[i]! : null, ...a })));

describe('billing money', () => {
  it('graduated tiers charge every unit at its own tier, each touched tier flat once', () => {
    fc.assert(
      fc.property(tiersArb, fc.integer({ min: 0, max: 2000 }), (tiers, q) => {
        let expected = 0;
        const touched = new Set<number>();
        for (let unit = 1; unit <= q; unit++) {
          const idx = tiers.findIndex((t) => t.up_to === null || unit <= t.up_to);
          expected += tiers[idx]!.unit_amount;
          touched.add(idx);
        }
        for (const i of touched) expected += tiers[i]!.flat_amount;
        expect(priceAmount({ billing_scheme: 'tiered', tiers_mode: 'graduated', unit_amount: null, tiers }, q)).toBe(
          expected,
        );
      }),
    );
  });

  it('volume tiers charge all units at the tier of the total', () => {
    fc.assert(
      fc.property(tiersArb, fc.integer({ min: 1, max: 2000 }), (tiers, q) => {
        const t = tiers.find((x) => x.up_to === null || q <= x.up_to)!;
        expect(priceAmount({ billing_scheme: 'tiered', tiers_mode: 'volume', unit_amount: null, tiers }, q)).toBe(
          t.flat_amount + t.unit_amount * q,
        );
      }),
    );
  });

  it('mulDivRound is exact half-away-from-zero rounding, also when a × n is beyond 2^53', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -99_999_999_999, max: 99_999_999_999 }),
        fc.integer({ min: 1, max: 400_000_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (a, d, f) => {
          const n = Math.floor(d * f); // n ≤ d, as in prorations and percentages
          const r = mulDivRound(a, n, d);
          const exact2 = BigInt(a) * BigInt(n) * 2n; // compare 2·a·n with (2r ± 1)·d
          const lo = (BigInt(Math.abs(r)) * 2n - 1n) * BigInt(d);
          const hi = (BigInt(Math.abs(r)) * 2n + 1n) * BigInt(d);
          const abs = exact2 < 0n ? -exact2 : exact2;
          expect(abs >= lo || r === 0).toBe(true);
          expect(abs < hi).toBe(true);
          if (r !== 0) expect(Math.sign(r)).toBe(Math.sign(a * n));
        },
      ),
    );
  });

  it('a proration credit and charge of the same amount cancel exactly; halves round up', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 99_999_999_999 }),
        fc.integer({ min: 1, max: 31 * 86_400 }),
        fc.integer({ min: 0, max: 31 * 86_400 }),
        (amount, total, rem) => {
          const part = prorate(amount, rem, total);
          expect(prorate(-amount, rem, total) === -part).toBe(true);
          expect(part).toBeGreaterThanOrEqual(0);
          expect(part).toBeLessThanOrEqual(amount);
        },
      ),
    );
    expect(percentOf(4021, 25)).toBe(1005);
    expect(percentOf(2, 25)).toBe(1); // 0.5 → 1
    expect(prorate(3, 1, 2)).toBe(2); // 1.5 → 2
  });

  it('refuses amounts beyond the largest line', () => {
    expect(
      billableAmount({ billing_scheme: 'per_unit', unit_amount: 99_999_999_999, tiers: null, tiers_mode: null }, 2),
    ).toBeUndefined();
    expect(
      billableAmount({ billing_scheme: 'per_unit', unit_amount: 1, tiers: null, tiers_mode: null }, 1_000_000),
    ).toBe(1_000_000);
  });

  it('monthly periods keep the anchor day, clamped, without drift', () => {
    const jan31 = Date.UTC(2027, 0, 31, 10, 30) / 1000;
    const iso = (n: number) => new Date(addInterval(jan31, 'month', 1, n) * 1000).toISOString();
    expect([1, 2, 3, 13].map(iso)).toEqual([
      '2027-02-28T10:30:00.000Z',
      '2027-03-31T10:30:00.000Z',
      '2027-04-30T10:30:00.000Z',
      '2028-02-29T10:30:00.000Z',
    ]);
    expect(new Date(addInterval(jan31, 'year', 1, 1) * 1000).toISOString()).toBe('2028-01-31T10:30:00.000Z');
    expect(addInterval(jan31, 'week', 2, 3) - jan31).toBe(6 * 7 * 86_400);
    fc.assert(
      fc.property(
        fc.integer({ min: 1_700_000_000, max: 1_900_000_000 }),
        fc.integer({ min: 0, max: 120 }),
        (anchor, n) => {
          const a = addInterval(anchor, 'month', 1, n);
          const b = addInterval(anchor, 'month', 1, n + 1);
          expect(b).toBeGreaterThan(a);
          expect(b - a).toBeGreaterThanOrEqual(28 * 86_400 - 3600);
          expect(b - a).toBeLessThanOrEqual(31 * 86_400 + 3600);
          expect(new Date(a * 1000).getUTCHours()).toBe(new Date(anchor * 1000).getUTCHours());
        },
      ),
    );
  });
});
