// The webhooks area's port (listed in domain/ports.ts), apart from its services (area.ts): the services import the
// core services, which import the ports, so the port must not live with them.
import type { WebhookEndpointPort } from './endpoints.js';
import type { OutboxPort } from './deliveries.js';
import type { ListenerPort } from './listeners.js';

/** What the webhooks area keeps: endpoints with their dispatch cursors, the delivery outbox, the listeners. */
export interface WebhooksPort {
  endpoints: WebhookEndpointPort;
  outbox: OutboxPort;
  listeners: ListenerPort;
}
