// A clock a test sets and moves by hand, for what a server reads time from (startServer's `rateLimitClock`):
// no test waits for the machine's clock to reach a minute boundary, or hopes it does not cross one.

export interface TestClock {
  /** Milliseconds since the epoch, as the server reads them. */
  now: () => number;
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void;
}

/** A clock standing at `startMs` (default 10 s into a UTC minute) until a test advances it. */
export function testClock(startMs = Date.UTC(2030, 0, 15, 12, 0, 10)): TestClock {
  let t = startMs;
  return {
    now: () => t,
    advance(ms) {
      t += ms;
    },
  };
}
