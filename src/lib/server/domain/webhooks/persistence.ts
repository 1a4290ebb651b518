// The webhooks area's port (listed in domain/ports.ts), apart from its services (area.ts): the services import the
// core services, which import the ports, so the port must not live with them.
import type { WebhookEndpointStore } from './endpoints.js';
import type { OutboxStore } from './deliveries.js';
import type { ListenerStore } from './listeners.js';

/** What the webhooks area keeps: endpoints with their dispatch cursors, the delivery outbox, the listeners. */
export interface WebhooksStore {
  endpoints: WebhookEndpointStore;
  outbox: OutboxStore;
  listeners: ListenerStore;
}
