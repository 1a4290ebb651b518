import { DAY_MS } from '../../contract/time.js';
// Per-key limits (docs/api.md "Rate limits"): fixed UTC minute and day windows and requests in flight.
// Counters live in memory: they belong to one server process, like the connections they count.

export interface RateLimitConfig {
  perMinute: number;
  perDay: number;
  concurrency: number;
}

export const DEFAULT_RATE_LIMITS: RateLimitConfig = { perMinute: 1000, perDay: 100_000, concurrency: 50 };

interface Bucket {
  minute: number;
  minuteCount: number;
  day: number;
  dayCount: number;
  inflight: number;
}

export interface RateState {
  limit: number;
  remaining: number;
  reset: number;
}

export type Admission =
  | { ok: true; state: RateState }
  | {
      ok: false;
      code: 'rate_limit_exceeded' | 'daily_limit_exceeded' | 'concurrency_limit_exceeded';
      retryAfter: number;
      state: RateState;
      message: string;
    };

const MINUTE = 60_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly config: RateLimitConfig,
    private readonly now: () => number = Date.now,
  ) {}

  private bucket(key: string, now: number): Bucket {
    const minute = Math.floor(now / MINUTE);
    const day = Math.floor(now / DAY_MS);
    let b = this.buckets.get(key);
    if (!b) {
      b = { minute, minuteCount: 0, day, dayCount: 0, inflight: 0 };
      this.buckets.set(key, b);
    }
    if (b.minute !== minute) {
      b.minute = minute;
      b.minuteCount = 0;
    }
    if (b.day !== day) {
      b.day = day;
      b.dayCount = 0;
    }
    return b;
  }

  /** The headers' view: the minute window, or the day window once it is the tighter one. */
  state(key: string): RateState {
    const now = this.now();
    const b = this.bucket(key, now);
    const minuteLeft = Math.max(0, this.config.perMinute - b.minuteCount);
    const dayLeft = Math.max(0, this.config.perDay - b.dayCount);
    if (dayLeft < minuteLeft)
      return { limit: this.config.perDay, remaining: dayLeft, reset: ((b.day + 1) * DAY_MS) / 1000 };
    return { limit: this.config.perMinute, remaining: minuteLeft, reset: ((b.minute + 1) * MINUTE) / 1000 };
  }

  /** Counts a request in, or says why not. A caller that got `ok` must call `release` when it ends. */
  admit(key: string): Admission {
    const now = this.now();
    const b = this.bucket(key, now);
    const secondsTo = (ms: number) => Math.max(1, Math.ceil((ms - now) / 1000));
    if (b.dayCount >= this.config.perDay) {
      return {
        ok: false,
        code: 'daily_limit_exceeded',
        retryAfter: secondsTo((b.day + 1) * DAY_MS),
        state: this.state(key),
        message: `Daily request limit of ${this.config.perDay} exceeded.`,
      };
    }
    if (b.minuteCount >= this.config.perMinute) {
      return {
        ok: false,
        code: 'rate_limit_exceeded',
        retryAfter: secondsTo((b.minute + 1) * MINUTE),
        state: this.state(key),
        message: `Rate limit of ${this.config.perMinute} requests per minute exceeded.`,
      };
    }
    if (b.inflight >= this.config.concurrency) {
      return {
        ok: false,
        code: 'concurrency_limit_exceeded',
        retryAfter: 1,
        state: this.state(key),
        message: `More than ${this.config.concurrency} requests in flight for this key.`,
      };
    }
    b.minuteCount++;
    b.dayCount++;
    b.inflight++;
    return { ok: true, state: this.state(key) };
  }

  release(key: string): void {
    const b = this.buckets.get(key);
    if (b && b.inflight > 0) b.inflight--;
  }
}
