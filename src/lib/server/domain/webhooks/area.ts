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

  constructor(core: CoreServices) {
    const changed = () => {
      this.dirty = true;
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

  /** Whether a write since the last call may have given the dispatcher work. */
  takeChanged(): boolean {
    const d = this.dirty;
    this.dirty = false;
    return d;
  }
}

export interface WebhooksArea {
  webhooks: Webhooks;
}

export function createWebhooksArea(core: CoreServices): { area: WebhooksArea } {
  return { area: { webhooks: new Webhooks(core) } };
}
