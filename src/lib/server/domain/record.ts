// Recording an update: an event only when the change altered something (a PATCH that sets what is already
// there changes nothing and records nothing), with the altered fields' values before it.
import type { EventType } from '../../contract/events.js';
import { previousAttributes, type Events } from './events.js';

/** Records `type` for `object` (after the change) when it differs from `previous` (before); returns whether it did. */
export async function recordUpdate(
  events: Events,
  accountId: string,
  type: EventType,
  object: { id: string; object: string },
  previous: object,
  at?: number,
): Promise<boolean> {
  if (!previousAttributes(previous, object)) return false;
  await events.record(accountId, type, object, { previous, at });
  return true;
}
