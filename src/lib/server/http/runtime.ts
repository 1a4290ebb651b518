// What serves HTTP besides the routes, composed once per server next to the domain's services (domain/services.ts):
// the idempotency records, the rate limiter, the live request log and the fault rules. The request log and the fault
// rules are this process's memory on SQLite (one server per data directory); on a database shared by several server
// processes (`Store.shared`) the composition root gives the ones kept in it (adapters/postgres/).
import { randomBytes } from 'node:crypto';
import type { Store } from '../store/seam.js';
import type { Sealer } from '../crypto.js';
import { IdempotencyKeys, type IdempotencyRecords } from './idempotency.js';
import { RateLimiter, type RateLimitConfig } from './ratelimit.js';
import { RequestLog, type RequestLogPort } from './requestlog.js';
import { FaultRules, type FaultRulePort } from './faultrules.js';

export interface HttpRuntime {
  idempotency: IdempotencyKeys;
  limiter: RateLimiter;
  requestLog: RequestLogPort;
  /** Fault injection's rules (docs/api.md "Fault injection"). */
  faults: FaultRulePort;
}

/** Where the request log and the fault rules are kept, when not in this process's memory. */
export interface SharedHttpState {
  requestLog: RequestLogPort;
  faults: FaultRulePort;
}

/**
 * `limiterNow`: the time the rate limiter's UTC minute and day windows are read from (default the machine's).
 * `shared`: the request log and fault rules of a database several processes share (default: in memory).
 */
export function createHttpRuntime(
  store: Store,
  records: IdempotencyRecords,
  sealer: Sealer,
  limits: RateLimitConfig,
  limiterNow: () => number = Date.now,
  shared?: SharedHttpState,
): HttpRuntime {
  return {
    idempotency: idempotencyStore(store, records, sealer),
    limiter: new RateLimiter(limits, limiterNow),
    requestLog: shared?.requestLog ?? new RequestLog(),
    faults: shared?.faults ?? new FaultRules(),
  };
}

/** The idempotency records of `store` (made again when a restored snapshot replaces the store). */
export const idempotencyStore = (store: Store, records: IdempotencyRecords, sealer: Sealer): IdempotencyKeys =>
  new IdempotencyKeys(store, records, randomBytes(8).toString('hex'), Date.now, sealer);
