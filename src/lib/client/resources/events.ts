// Events (docs/api.md "Events and webhooks"): the account's event log, its deliveries and resends, and the
// test helper that triggers an event for real.
import type { List } from '../../contract/common.js';
import type { Event, EventType, ListEventsQuery } from '../../contract/events.js';
import { asQuery, enc, paginate, type CallOptions, type Requester } from './base.js';
import type { WebhookDelivery } from '../../contract/webhooks.js';
import type {
  CreateEventListenerBody,
  EventListener,
  EventResend,
  ListEventResendsQuery,
} from '../../contract/listeners.js';

/**
 * `POST /events/{id}/resend`'s answer: the new deliveries, and how many running listeners the event was queued
 * for — absent from servers that do not queue resends for listeners.
 */
export type ResendResult = List<WebhookDelivery> & { listeners?: number };

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
  deliveries(
    id: string,
    params: { limit?: number; starting_after?: string; ending_before?: string } = {},
    options?: CallOptions,
  ): Promise<List<WebhookDelivery>> {
    return this.c.request('GET', `/events/${enc(id)}/deliveries`, { query: asQuery(params), ...options });
  }

  /**
   * Sends the event again: to every matching enabled endpoint and every running listener, or to the endpoint
   * named. Returns the new deliveries and how many listeners it was queued for.
   */
  resend(id: string, params: { webhook_endpoint?: string } = {}, options?: CallOptions): Promise<ResendResult> {
    return this.c.request('POST', `/events/${enc(id)}/resend`, { body: params, ...options });
  }
}

/** A running listener's registration, lease and queue of resends (docs/api.md "Resends to listeners"). */
export class EventListenersResource {
  constructor(private readonly c: Requester) {}

  /**
   * Registers a listener: resends (of the types in `enabled_events`, default all) are queued for it from now on,
   * while its lease is renewed.
   */
  create(params: CreateEventListenerBody = {}, options?: CallOptions): Promise<EventListener> {
    return this.c.request('POST', '/event-listeners', { body: params, ...options });
  }

  /** Renews the listener's lease (idempotent by itself: sent without an Idempotency-Key unless one is given). */
  renew(id: string, options?: CallOptions): Promise<EventListener> {
    return this.c.request('POST', `/event-listeners/${enc(id)}`, { body: {}, idempotencyKey: false, ...options });
  }

  /** Deletes the listener and its queue. */
  del(id: string, options?: CallOptions): Promise<{ id: string; object: 'event_listener'; deleted: true }> {
    return this.c.request('DELETE', `/event-listeners/${enc(id)}`, options);
  }

  /** The resends queued for the listener, newest first (oldest first after `ending_before`), each with its event. */
  resends(id: string, params: ListEventResendsQuery = {}, options?: CallOptions): Promise<List<EventResend>> {
    return this.c.request('GET', `/event-listeners/${enc(id)}/resends`, { query: asQuery(params), ...options });
  }
}

/** What `POST /test-helpers/trigger` answers: the events the scenario recorded, in order, and the objects it made. */
export interface TriggerResult {
  object: 'trigger';
  event_type: EventType;
  events: Event[];
  objects: Record<string, unknown>;
  /** The named steps the scenario ran, in order (what `override`, `add`, `remove` and `skip` name). */
  steps: string[];
}

export class TriggersResource {
  constructor(private readonly c: Requester) {}

  /**
   * Creates the objects that really produce `event_type`; `overrides` are the body's other fields (`amount`,
   * `currency`, `override`, `add`, `remove`, `skip`: docs/api.md "Test triggers").
   */
  trigger(
    eventType: EventType | string,
    overrides: Record<string, unknown> = {},
    options?: CallOptions,
  ): Promise<TriggerResult> {
    return this.c.request('POST', '/test-helpers/trigger', {
      body: { ...overrides, event_type: eventType },
      ...options,
    });
  }
}
