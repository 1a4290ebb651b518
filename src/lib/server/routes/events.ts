// Events and listeners routes (docs/api.md "Events and webhooks"). Handlers only call domain/events and
// domain/webhooks.
import { DeletedObject, EmptyBody } from '../../contract/common.js';
import { Event, EventIdParams, EventList, ListEventsQuery } from '../../contract/events.js';
import {
  CreateEventListenerBody,
  EventListener,
  EventListenerIdParams,
  EventResendList,
  ListEventResendsQuery,
} from '../../contract/listeners.js';
import { defineRoute, type RouteSpec } from '../http/route.js';

const tag = 'Events';

export const eventsRoutes: RouteSpec[] = [
  defineRoute({
    method: 'GET',
    url: '/events',
    operationId: 'listEvents',
    summary: 'List events, newest first (filters: type with `*` wildcards, object_id, created range)',
    tag,
    auth: 'api_key',
    query: ListEventsQuery,
    response: EventList,
    handler: ({ accountId, query, path, services }) => services.events.list(accountId, path, query),
  }),
  defineRoute({
    method: 'GET',
    url: '/events/:event_id',
    operationId: 'getEvent',
    summary: 'Retrieve an event',
    tag,
    auth: 'api_key',
    params: EventIdParams,
    response: Event,
    errors: [404],
    handler: ({ accountId, params, services }) => services.events.get(accountId, params.event_id),
  }),
  // Listeners (docs/api.md "Resends to listeners"): what `payorch listen` uses so that a resend reaches it.
  defineRoute({
    method: 'POST',
    url: '/event-listeners',
    operationId: 'createEventListener',
    summary: 'Register a running listener: resends are queued for it while its lease is renewed',
    tag,
    auth: 'api_key',
    body: CreateEventListenerBody,
    response: EventListener,
    status: 201,
    handler: ({ accountId, body, now, services }) => services.webhooks.listeners.register(accountId, body, now),
  }),
  defineRoute({
    method: 'POST',
    url: '/event-listeners/:listener_id',
    operationId: 'renewEventListener',
    summary: "Renew a listener's lease",
    tag,
    auth: 'api_key',
    params: EventListenerIdParams,
    body: EmptyBody,
    response: EventListener,
    errors: [404],
    handler: ({ accountId, params, services }) => services.webhooks.listeners.renew(accountId, params.listener_id),
  }),
  defineRoute({
    method: 'DELETE',
    url: '/event-listeners/:listener_id',
    operationId: 'deleteEventListener',
    summary: 'Delete a listener (it stopped) and its queue',
    tag,
    auth: 'api_key',
    params: EventListenerIdParams,
    response: DeletedObject('event_listener'),
    errors: [404],
    handler: ({ accountId, params, services }) => services.webhooks.listeners.remove(accountId, params.listener_id),
  }),
  defineRoute({
    method: 'GET',
    url: '/event-listeners/:listener_id/resends',
    operationId: 'listEventListenerResends',
    summary: 'List the resends queued for a listener, newest first (each with its event)',
    tag,
    auth: 'api_key',
    params: EventListenerIdParams,
    query: ListEventResendsQuery,
    response: EventResendList,
    errors: [404],
    handler: ({ accountId, params, query, path, services }) =>
      services.webhooks.listeners.resends(accountId, params.listener_id, path, query),
  }),
];
