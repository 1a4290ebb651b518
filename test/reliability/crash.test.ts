// Crash safety, short variant (issue 6): the real server in a child process, 50 concurrent writers with
// Idempotency-Keys (sessions, journal entries, holds), kill -9 mid-load, restart on the same data directory, then
// acknowledged = present and replayable, in-flight retries = exactly one effect, nothing half-written (see
// crash-driver.ts). The repeated variant: test/soak/crash.soak.test.ts.
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';
import { crashCycles } from './crash-driver.js';

describe('crash safety', () => {
  it(
    'kill -9 during 50-way writes loses no acknowledged write, half-writes nothing, and retries take effect once',
    { timeout: 90_000 },
    async () => {
      const r = await crashCycles(tempDir(), 1, { workers: 50, ackTarget: () => 300 });
      if (process.env.CRASH_STATS) console.log({ acked: r.acked, inflight: r.inflight });
      expect(r.failures).toEqual([]);
      expect(r.acked).toBeGreaterThanOrEqual(300);
      expect(r.inflight).toBeGreaterThan(0); // the kill really landed mid-load
    },
  );
});
