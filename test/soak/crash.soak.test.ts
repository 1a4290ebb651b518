// Crash safety, repeated (npm run test:soak): many load → kill -9 → restart → verify cycles on ONE data directory,
// killing after a varying number of answers, so recovery also runs over a WAL left by earlier crashes.
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';
import { crashCycles } from '../reliability/crash-driver.js';

const CYCLES = Number(process.env.CRASH_CYCLES ?? 15);

describe('soak: crash safety', () => {
  it(`${CYCLES} kill -9 cycles during 50-way writes on one data directory`, { timeout: 30 * 60_000 }, async () => {
    let n = 0;
    const r = await crashCycles(tempDir(), CYCLES, { workers: 50, ackTarget: () => [20, 150, 400, 900, 60][n++ % 5]! });
    expect(r.failures).toEqual([]);
    expect(r.inflight).toBeGreaterThan(0);
  });
});
