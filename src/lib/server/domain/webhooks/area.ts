// The webhooks area's services (docs/api.md "Events and webhooks"): endpoints and deliveries, reachable from
// handlers as ctx.services.webhooks. The dispatcher that sends deliveries runs only in a listening server
// (listening.ts startServer), never in the CLI's embedded default.
import type { CoreServices } from '../core.js';
import { isoTime } from '../../clock.js';
import type { ResendEventBody } from '../../../contract/webhooks.js';
import type { ResendEventResult } from '../../../contract/listeners.js';
import { WebhookEndpoints } from './endpoints.js';
import { Deliveries } from './deliveries.js';
import { Listeners } from './listeners.js';

export class Webhooks {
  readonly endpoints: WebhookEndpoints;
  readonly deliveries: Deliveries;
  /** Running `payorch listen`s and the resends queued for them (listeners.ts). */
  readonly listeners: Listeners;
  private readonly events: CoreServices['events'];
  private readonly changeListeners: ((endpointId?: string) => void)[] = [];

  constructor(core: CoreServices) {
    const note = (endpointId?: string) => {
      for (const l of this.changeListeners) l(endpointId);
    };
    // Told once the change has committed (its transaction's frame, store/scoped.ts): the dispatcher must not be handed
    // a change that may still roll back, nor look for it before it is committed.
    const changed = (endpointId?: string) => {
      const frame = core.store.frame();
      if (frame) frame.afterCommit(() => note(endpointId));
      else note(endpointId);
    };
    const stored = core.ports.webhooks;
    this.endpoints = new WebhookEndpoints(stored.endpoints, core.sealer, changed);
    this.deliveries = new Deliveries(stored.outbox, core.clock, core.events, this.endpoints, changed);
    this.listeners = new Listeners(stored.listeners);
    this.events = core.events;
  }

  /**
   * `POST /events/{id}/resend`: new deliveries (deliveries.ts), and — unless one endpoint is named — the event
   * queued for every running listener of the account, in the same transaction.
   */
  async resend(
    accountId: string,
    eventId: string,
    body: ResendEventBody,
    url: string,
    now: number,
  ): Promise<ResendEventResult> {
    const list = await this.deliveries.resend(accountId, eventId, body, url, now);
    const listeners =
      body.webhook_endpoint === undefined
        ? await this.listeners.queue(accountId, await this.events.get(accountId, eventId), now)
        : 0;
    return { ...list, listeners };
  }

  /** Deletes an endpoint; its deliveries still pending are given up (`failed`), the others stay in the log. */
  async deleteEndpoint(accountId: string, id: string, now: number) {
    await this.endpoints.stored(accountId, id);
    await this.deliveries.giveUpPending(accountId, id, `the webhook endpoint was deleted at ${isoTime(now)}`);
    return this.endpoints.delete(accountId, id);
  }

  /**
   * Calls `listener` after each committed write that may have given the dispatcher work: with the endpoint's id when
   * an endpoint was changed (created, updated, deleted, its secret rolled).
   */
  onChanged(listener: (endpointId?: string) => void): void {
    this.changeListeners.push(listener);
  }
}

export interface WebhooksArea {
  webhooks: Webhooks;
}

export function createWebhooksArea(core: CoreServices): { area: WebhooksArea } {
  return { area: { webhooks: new Webhooks(core) } };
}
