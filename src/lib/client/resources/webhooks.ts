// Webhook endpoints and their deliveries (docs/api.md "Events and webhooks").
import type { List } from '../../contract/common.js';
import type {
  CreateWebhookEndpointBody,
  DeliveryStatus,
  RollWebhookSecretBody,
  UpdateWebhookEndpointBody,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointSecret,
  WebhookEndpointWithSecret,
} from '../../contract/webhooks.js';
import { asQuery, enc, paginate, type CallOptions, type Requester } from './base.js';

export type { WebhookDelivery, WebhookEndpoint, WebhookEndpointSecret, WebhookEndpointWithSecret };

export interface Deleted {
  id: string;
  object: 'webhook_endpoint';
  deleted: true;
}

type ListParams = { limit?: number; starting_after?: string; ending_before?: string };

export class WebhookEndpointsResource {
  constructor(private readonly c: Requester) {}

  create(params: CreateWebhookEndpointBody, options?: CallOptions): Promise<WebhookEndpointWithSecret> {
    return this.c.request('POST', '/webhook-endpoints', { body: params, ...options });
  }

  list(params: ListParams = {}, options?: CallOptions): Promise<List<WebhookEndpoint>> {
    return this.c.request('GET', '/webhook-endpoints', { query: asQuery(params), ...options });
  }

  listAll(params: ListParams = {}): AsyncGenerator<WebhookEndpoint> {
    return paginate((p) => this.list(p), params);
  }

  retrieve(id: string, options?: CallOptions): Promise<WebhookEndpoint> {
    return this.c.request('GET', `/webhook-endpoints/${enc(id)}`, options);
  }

  update(id: string, params: UpdateWebhookEndpointBody, options?: CallOptions): Promise<WebhookEndpoint> {
    return this.c.request('PATCH', `/webhook-endpoints/${enc(id)}`, { body: params, ...options });
  }

  del(id: string, options?: CallOptions): Promise<Deleted> {
    return this.c.request('DELETE', `/webhook-endpoints/${enc(id)}`, options);
  }

  /** The endpoint's signing secret. */
  revealSecret(id: string, options?: CallOptions): Promise<WebhookEndpointSecret> {
    return this.c.request('GET', `/webhook-endpoints/${enc(id)}/secret`, options);
  }

  /** A new signing secret; the old one keeps signing too for `expires_in_seconds` (0–86400, default 0). */
  rollSecret(
    id: string,
    params: RollWebhookSecretBody = {},
    options?: CallOptions,
  ): Promise<WebhookEndpointWithSecret> {
    return this.c.request('POST', `/webhook-endpoints/${enc(id)}/roll-secret`, { body: params, ...options });
  }

  deliveries(
    id: string,
    params: ListParams & { status?: DeliveryStatus } = {},
    options?: CallOptions,
  ): Promise<List<WebhookDelivery>> {
    return this.c.request('GET', `/webhook-endpoints/${enc(id)}/deliveries`, { query: asQuery(params), ...options });
  }
}
