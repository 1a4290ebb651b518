// Webhook endpoints and deliveries routes (docs/api.md "Events and webhooks"). Handlers only call domain/webhooks.
import { DeletedObject } from '../../contract/common.js';
import { EventIdParams } from '../../contract/events.js';
import { ResendEventResult } from '../../contract/listeners.js';
import {
  CreateWebhookEndpointBody,
  ListEndpointDeliveriesQuery,
  ListEventDeliveriesQuery,
  ListWebhookEndpointsQuery,
  ResendEventBody,
  RollWebhookSecretBody,
  UpdateWebhookEndpointBody,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointIdParams,
  WebhookEndpointList,
  WebhookEndpointSecret,
  WebhookEndpointWithSecret,
} from '../../contract/webhooks.js';
import { defineRoute, type RouteSpec } from '../http/route.js';

const tag = 'Webhooks';

export const webhooksRoutes: RouteSpec[] = [
  defineRoute({
    method: 'POST', url: '/webhook-endpoints', operationId: 'createWebhookEndpoint', summary: 'Create a webhook endpoint (the answer holds its signing secret)', tag, auth: 'api_key',
    body: CreateWebhookEndpointBody, response: WebhookEndpointWithSecret, status: 201,
    handler: ({ accountId, body, now, services }) => services.webhooks.endpoints.create(accountId, body, now),
  }),
  defineRoute({
    method: 'GET', url: '/webhook-endpoints', operationId: 'listWebhookEndpoints', summary: 'List webhook endpoints, newest first', tag, auth: 'api_key',
    query: ListWebhookEndpointsQuery, response: WebhookEndpointList,
    handler: ({ accountId, query, path, services }) => services.webhooks.endpoints.list(accountId, path, query),
  }),
  defineRoute({
    method: 'GET', url: '/webhook-endpoints/:webhook_endpoint_id', operationId: 'getWebhookEndpoint', summary: 'Retrieve a webhook endpoint', tag, auth: 'api_key',
    params: WebhookEndpointIdParams, response: WebhookEndpoint, errors: [404],
    handler: ({ accountId, params, services }) => services.webhooks.endpoints.get(accountId, params.webhook_endpoint_id),
  }),
  defineRoute({
    method: 'PATCH', url: '/webhook-endpoints/:webhook_endpoint_id', operationId: 'updateWebhookEndpoint', summary: 'Update a webhook endpoint', tag, auth: 'api_key',
    params: WebhookEndpointIdParams, body: UpdateWebhookEndpointBody, response: WebhookEndpoint, errors: [404],
    handler: ({ accountId, params, body, services }) => services.webhooks.endpoints.update(accountId, params.webhook_endpoint_id, body),
  }),
  defineRoute({
    method: 'DELETE', url: '/webhook-endpoints/:webhook_endpoint_id', operationId: 'deleteWebhookEndpoint', summary: 'Delete a webhook endpoint (its pending deliveries are given up)', tag, auth: 'api_key',
    params: WebhookEndpointIdParams, response: DeletedObject('webhook_endpoint'), errors: [404],
    handler: ({ accountId, params, now, services }) => services.webhooks.deleteEndpoint(accountId, params.webhook_endpoint_id, now),
  }),
  defineRoute({
    method: 'GET', url: '/webhook-endpoints/:webhook_endpoint_id/secret', operationId: 'revealWebhookEndpointSecret', summary: "Reveal a webhook endpoint's signing secret", tag, auth: 'api_key',
    params: WebhookEndpointIdParams, response: WebhookEndpointSecret, errors: [404],
    handler: ({ accountId, params, services }) => services.webhooks.endpoints.revealSecret(accountId, params.webhook_endpoint_id),
  }),
  defineRoute({
    method: 'POST', url: '/webhook-endpoints/:webhook_endpoint_id/roll-secret', operationId: 'rollWebhookEndpointSecret', summary: 'Replace the signing secret (the old one may keep signing for expires_in_seconds)', tag, auth: 'api_key',
    params: WebhookEndpointIdParams, body: RollWebhookSecretBody, response: WebhookEndpointWithSecret, errors: [404],
    handler: ({ accountId, params, body, now, services }) => services.webhooks.endpoints.rollSecret(accountId, params.webhook_endpoint_id, body.expires_in_seconds ?? 0, now),
  }),
  defineRoute({
    method: 'GET', url: '/webhook-endpoints/:webhook_endpoint_id/deliveries', operationId: 'listWebhookEndpointDeliveries', summary: "List an endpoint's deliveries, newest first (filter: status)", tag, auth: 'api_key',
    params: WebhookEndpointIdParams, query: ListEndpointDeliveriesQuery, response: WebhookDeliveryList, errors: [404],
    handler: ({ accountId, params, query, path, services }) => services.webhooks.deliveries.listForEndpoint(accountId, params.webhook_endpoint_id, path, query),
  }),
  defineRoute({
    method: 'GET', url: '/events/:event_id/deliveries', operationId: 'listEventDeliveries', summary: "List an event's deliveries, newest first", tag, auth: 'api_key',
    params: EventIdParams, query: ListEventDeliveriesQuery, response: WebhookDeliveryList, errors: [404],
    handler: ({ accountId, params, query, path, services }) => services.webhooks.deliveries.listForEvent(accountId, params.event_id, path, query),
  }),
  defineRoute({
    method: 'POST', url: '/events/:event_id/resend', operationId: 'resendEvent', summary: 'Send an event again: to one endpoint, or to every enabled endpoint it matches and every running listener', tag, auth: 'api_key',
    params: EventIdParams, body: ResendEventBody, response: ResendEventResult, errors: [404, 409],
    handler: ({ accountId, params, body, path, now, services }) => services.webhooks.resend(accountId, params.event_id, body, path, now),
  }),
];
