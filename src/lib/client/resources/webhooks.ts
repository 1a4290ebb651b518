// Webhook endpoints and their deliveries (docs/api.md "Events and webhooks").
import type { List } from '../../contract/common.js';
import { asQuery, enc, paginate, type CallOptions, type Requester } from './base.js';

export interface WebhookEndpoint {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  enabled_events: string[];
  description: string | null;
  enabled: boolean;
  metadata: Record<string, string>;
  created: number;
  livemode: false;
  /** Only in the answers of create, roll-secret (and the reveal's own object). */
  secret?: string;
}

export interface CreateWebhookEndpointParams {
  url: string;
  enabled_events?: string[];
  description?: string | null;
  enabled?: boolean;
  metadata?: Record<string, string>;
}

export type UpdateWebhookEndpointParams = Partial<CreateWebhookEndpointParams>;

export interface WebhookEndpointSecret {
  object: 'webhook_endpoint_secret';
  webhook_endpoint: string;
  secret: string;
}

export interface WebhookDelivery {
  id: string;
  object: 'webhook_delivery';
  event: string;
  event_type: string;
  webhook_endpoint: string;
  url: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
  last_response_code: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface Deleted {
  id: string;
  object: 'webhook_endpoint';
  deleted: true;
}

type ListParams = { limit?: number; starting_after?: string; ending_before?: string };

export class WebhookEndpointsResource {
  constructor(private readonly c: Requester) {}

  create(params: CreateWebhookEndpointParams, options?: CallOptions): Promise<WebhookEndpoint> {
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

  update(id: string, params: UpdateWebhookEndpointParams, options?: CallOptions): Promise<WebhookEndpoint> {
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
  rollSecret(id: string, params: { expires_in_seconds?: number } = {}, options?: CallOptions): Promise<WebhookEndpoint> {
    return this.c.request('POST', `/webhook-endpoints/${enc(id)}/roll-secret`, { body: params, ...options });
  }

  deliveries(id: string, params: ListParams & { status?: WebhookDelivery['status'] } = {}, options?: CallOptions): Promise<List<WebhookDelivery>> {
    return this.c.request('GET', `/webhook-endpoints/${enc(id)}/deliveries`, { query: asQuery(params), ...options });
  }
}
