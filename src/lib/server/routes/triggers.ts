// POST /test-helpers/trigger (docs/api.md "Test triggers"). The scenarios live in domain/triggers.ts.
import { TriggerBody, TriggerResult } from '../../contract/triggers.js';
import { defineRoute, type RouteSpec } from '../http/route.js';
import { trigger } from '../domain/triggers.js';

export const triggerRoutes: RouteSpec[] = [
  defineRoute({
    method: 'POST',
    url: '/test-helpers/trigger',
    operationId: 'triggerEvent',
    summary: 'Run the scenario that really produces an event type; answers every event it recorded',
    tag: 'Test helpers',
    auth: 'api_key',
    body: TriggerBody,
    response: TriggerResult,
    errors: [409],
    handler: ({ accountId, body, now, baseUrl, services }) => trigger(services, accountId, body, now, baseUrl),
  }),
];
