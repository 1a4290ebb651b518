// Everything a route handler can reach: the store, the clock, the sealer and one object per domain area.
import { randomBytes } from 'node:crypto';
import type { Store } from './store/db.js';
import { AccountClock, type Clock } from './clock.js';
import type { Sealer } from './crypto.js';
import { Accounts } from './domain/accounts.js';
import { Sessions } from './domain/sessions.js';
import { Scheduler } from './domain/due.js';
import { IdempotencyStore } from './http/idempotency.js';
import { RateLimiter, type RateLimitConfig } from './http/ratelimit.js';

export interface Services {
  store: Store;
  clock: Clock;
  sealer: Sealer;
  accounts: Accounts;
  sessions: Sessions;
  scheduler: Scheduler;
  idempotency: IdempotencyStore;
  limiter: RateLimiter;
}

export function createServices(store: Store, sealer: Sealer, limits: RateLimitConfig): Services {
  const clock = new AccountClock(store);
  const sessions = new Sessions(store, sealer);
  return {
    store,
    clock,
    sealer,
    accounts: new Accounts(store),
    sessions,
    scheduler: new Scheduler(store, clock, [sessions]),
    idempotency: new IdempotencyStore(store, randomBytes(8).toString('hex')),
    limiter: new RateLimiter(limits),
  };
}
