// Events (docs/api.md "Events and webhooks"): the account's event log, its deliveries and resends, and the
// test helper that triggers an event for real.
import type { List } from '../../contract/common.js';
import type { Event, EventType, ListEventsQuery } from '../../contract/events.js';
import { asQuery, enc, paginate, type CallOptions, type Requester } from './base.js';
import type { WebhookDelivery } from '../../contract/webhooks.js';

export class EventsResource {
  constructor(private readonly c: Requester) {}

  /** Newest first; filters: `type` (a type or a `*` pattern), `object_id`, `created` (that second) and `created[gt|gte|lt|lte]` (Unix seconds). */
  list(params: ListEventsQuery = {}, options?: CallOptions): Promise<List<Event>> {
    return this.c.request('GET', '/events', { query: asQuery(params), ...options });
  }

  listAll(params: ListEventsQuery = {}): AsyncGenerator<Event> {
    return paginate((p) => this.list(p), params);
  }

  retrieve(id: string, options?: CallOptions): Promise<Event> {
    return this.c.request('GET', `/events/${enc(id)}`, options);
  }

  /** The event's deliveries to webhook endpoints. */
  deliveries(id: string, params: { limit?: number; starting_after?: string; ending_before?: string } = {}, options?: CallOptions): Promise<List<WebhookDelivery>> {
    return this.c.request('GET', `/events/${enc(id)}/deliveries`, { query: asQuery(params), ...options });
  }

  /** Sends the event again: to every matching enabled endpoint, or to the one named. Returns the new deliveries. */
  resend(id: string, params: { webhook_endpoint?: string } = {}, options?: CallOptions): Promise<List<WebhookDelivery>> {
    return this.c.request('POST', `/events/${enc(id)}/resend`, { body: params, ...options });
  }
}

/** What `POST /test-helpers/trigger` answers: the events the scenario recorded, in order, and the objects it made. */
export interface TriggerResult {
  object: 'trigger';
  event_type: EventType;
  events: Event[];
  objects: Record<string, unknown>;
}

export class TriggersResource {
  constructor(private readonly c: Requester) {}

  /** Creates the objects that really produce `event_type` (overrides such as `amount`, `currency` optional). */
  trigger(eventType: EventType | string, overrides: Record<string, unknown> = {}, options?: CallOptions): Promise<TriggerResult> {
    return this.c.request('POST', '/test-helpers/trigger', { body: { ...overrides, event_type: eventType }, ...options });
  }
}
