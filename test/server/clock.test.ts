// isoTime (server/clock.ts) computes ISO timestamps itself: it must give exactly what Date#toISOString gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../dist/lib/server/clock.js';

describe('isoTime', () => {
  it('equals toISOString for any millisecond in its fast range and outside it', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => {
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 20_000 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253402300799999 }), (ms) => {
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 50_000 },
    );
  });

  it('on calendar edges: leap days, century years, year ends, the range limits, fractions', () => {
    const edges = [
      '1970-01-01T00:00:00.000Z',
      '1999-12-31T23:59:59.999Z',
      '2000-02-29T12:00:00.001Z',
      '2000-03-01T00:00:00.010Z',
      '2024-02-29T23:59:59.100Z',
      '2100-02-28T23:59:59.999Z',
      '2100-03-01T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
    ].map((t) => Date.parse(t));
    for (const ms of [...edges, ...edges.map((m) => m + 1), -1, 253402300800000, 1.5, 1795357818781.25]) {
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }
    expect(() => isoTime(Number.NaN)).toThrow(RangeError); // as toISOString
  });
});
