// The webhooks area's services (docs/api.md "Events and webhooks"): endpoints and deliveries, reachable from
// handlers as ctx.services.webhooks. The dispatcher that sends deliveries runs only in a listening server
// (server.ts startServer), never in the CLI's embedded default.
import type { CoreServices } from '../../services.js';
import { isoTime } from '../../clock.js';
import { WebhookEndpoints } from './endpoints.js';
import { Deliveries } from './deliveries.js';

export class Webhooks {
  readonly endpoints: WebhookEndpoints;
  readonly deliveries: Deliveries;
  /** Whether a write since the last look may have given the dispatcher work (read and cleared by it). */
  private dirty = false;
  /** Endpoints changed (updated, deleted) since the last look: a batch being sent to one of them is cut short. */
  private changedEndpoints = new Set<string>();

  constructor(core: CoreServices) {
    const changed = (endpointId?: string) => {
      this.dirty = true;
      if (endpointId !== undefined) this.changedEndpoints.add(endpointId);
    };
    this.endpoints = new WebhookEndpoints(core.store, core.sealer, changed);
    this.deliveries = new Deliveries(core.store, core.clock, core.events, this.endpoints, changed);
  }

  /** Deletes an endpoint; its deliveries still pending are given up (`failed`), the others stay in the log. */
  deleteEndpoint(accountId: string, id: string, now: number) {
    this.endpoints.stored(accountId, id);
    this.deliveries.giveUpPending(accountId, id, `the webhook endpoint was deleted at ${isoTime(now)}`);
    return this.endpoints.delete(accountId, id);
  }

  /** Whether a write since the last call may have given the dispatcher work, and which endpoints changed. */
  takeChanged(): { any: boolean; endpoints: string[] } {
    const out = { any: this.dirty, endpoints: [...this.changedEndpoints] };
    this.dirty = false;
    this.changedEndpoints.clear();
    return out;
  }
}

export interface WebhooksArea {
  webhooks: Webhooks;
}

export function createWebhooksArea(core: CoreServices): { area: WebhooksArea } {
  return { area: { webhooks: new Webhooks(core) } };
}
