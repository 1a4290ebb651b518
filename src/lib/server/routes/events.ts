// Events and webhooks routes (docs/api.md "Events and webhooks"). Handlers only call domain/events and
// domain/webhooks.
import { Event, EventIdParams, EventList, ListEventsQuery } from '../../contract/events.js';
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
];
