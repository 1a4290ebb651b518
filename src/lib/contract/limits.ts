import { DAY_MS, DAY_S } from './time.js';
// Limits and value lists shared by the server's schemas and the CLI, kept free of runtime imports (the CLI
// loads this without TypeBox, which costs ~100 ms to import).

/** How long events are kept: 30 days on the account's clock (docs/api.md "Events and webhooks"). */
export const EVENT_RETENTION_MS = 30 * DAY_MS;

/**
 * How far one advance-clock call may move an account's test clock: each call runs everything that comes due
 * on the way (a renewal per period per subscription), so an unbounded jump could hold the server for as long
 * as it liked. `payorch clock advance` steps through longer spans in calls of this size.
 */
export const MAX_CLOCK_ADVANCE_SECONDS = 366 * DAY_S;

/** An `Idempotency-Key`'s length in characters (docs/api.md "Idempotency"): what the server accepts and /openapi.json says. */
export const IDEMPOTENCY_KEY_LENGTH = { min: 1, max: 255 } as const;

/** Identity vault token types (docs/api.md "Identity vault"). */
export const IDENTITY_TOKEN_TYPES = [
  'ssn',
  'ssn_last4',
  'ein',
  'itin',
  'passport',
  'drivers_license',
  'national_id',
  'tax_id',
  'custom',
] as const;

/**
 * What an advance runs for the server itself, not for the account's objects: events, webhook deliveries and
 * listener resends past their 30 days of retention. Listed in `ran` like the rest; `payorch clock advance` leaves
 * them out of what it tells a person.
 */
export const HOUSEKEEPING_WORK = {
  events: 'events.retention',
  deliveries: 'webhook_deliveries.retention',
  resends: 'event_resends.retention',
} as const;
const housekeeping: ReadonlySet<string> = new Set(Object.values(HOUSEKEEPING_WORK));
/** Is this entry of `ran` the server's own clean-up (HOUSEKEEPING_WORK)? */
export const isHousekeeping = (run: { name: string }): boolean => housekeeping.has(run.name);

/** A listener's lease: it counts as running this long after its last renewal (the server's wall clock). */
export const LISTENER_LEASE_MS = 20_000;
/** How often `payorch listen` renews its lease (four renewals per lease: a late one or two do not end it). */
export const LISTENER_RENEW_MS = 5_000;
/** A listener not renewed for this long is deleted with its queue (the next register or resend of its account). */
export const LISTENER_FORGET_MS = 3_600_000;
