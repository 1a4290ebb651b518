// What serves HTTP besides the routes, composed once per server next to the domain's services (domain/services.ts):
// the idempotency records, the rate limiter, the live request log and the fault rules.
import { randomBytes } from 'node:crypto';
import type { Store } from '../store/seam.js';
import type { Sealer } from '../crypto.js';
import { IdempotencyStore, type IdempotencyRecords } from './idempotency.js';
import { RateLimiter, type RateLimitConfig } from './ratelimit.js';
import { RequestLog } from './requestlog.js';
import { FaultRules } from './faultrules.js';

export interface HttpRuntime {
  idempotency: IdempotencyStore;
  limiter: RateLimiter;
  requestLog: RequestLog;
  /** Fault injection's server-wide rules (docs/api.md "Fault injection"). */
  faults: FaultRules;
}

/** `limiterNow`: the time the rate limiter's UTC minute and day windows are read from (default the machine's). */
export function createHttpRuntime(
  store: Store,
  records: IdempotencyRecords,
  sealer: Sealer,
  limits: RateLimitConfig,
  limiterNow: () => number = Date.now,
): HttpRuntime {
  return {
    idempotency: idempotencyStore(store, records, sealer),
    limiter: new RateLimiter(limits, limiterNow),
    requestLog: new RequestLog(),
    faults: new FaultRules(),
  };
}

/** The idempotency records of `store` (made again when a restored snapshot replaces the store). */
export const idempotencyStore = (store: Store, records: IdempotencyRecords, sealer: Sealer): IdempotencyStore =>
  new IdempotencyStore(store, records, randomBytes(8).toString('hex'), Date.now, sealer);
