// Webhook endpoints (docs/api.md "Events and webhooks"): where an account's events are POSTed, which ones, and
// the secret that signs them. The secret is stored sealed (AES-GCM, like every secret at rest) and comes back
// only from create, roll-secret and the explicit reveal — never in a get, a list, an event or a log line.
import type { List } from '../../../contract/common.js';
import { eventTypeMatches, eventTypes } from '../../../contract/events.js';
import {
  MAX_WEBHOOK_ENDPOINTS,
  type CreateWebhookEndpointBody,
  type ListWebhookEndpointsQuery,
  type UpdateWebhookEndpointBody,
  type WebhookEndpoint,
  type WebhookEndpointSecret,
  type WebhookEndpointWithSecret,
} from '../../../contract/webhooks.js';
import { unixSeconds } from '../../clock.js';
import type { Sealer } from '../../crypto.js';
import { errors } from '../../errors.js';
import { newId, newWebhookSecret } from '../../ids.js';
import type { Documents } from '../../store/seam.js';
import { checkHttpUrl, mergeMetadata } from '../values.js';

/** An endpoint as stored: the API object, its sealed secret, and rolled secrets that still sign until they expire. */
export interface StoredEndpoint extends WebhookEndpoint {
  secret_sealed: string;
  /** Older secrets that still sign deliveries until `expires_ms` (the account's clock). */
  rolled: { sealed: string; expires_ms: number }[];
}

/** What the endpoints keep: the endpoints themselves, and each one's dispatch cursor (deliveries.ts). */
export interface WebhookEndpointPort {
  readonly endpoints: Documents<StoredEndpoint>;
  /** How many endpoints the account has. */
  count(accountId: string): Promise<number>;
  /** Every endpoint of the account, oldest first. */
  ofAccount(accountId: string): Promise<StoredEndpoint[]>;
  /**
   * Opens the dispatch cursor of a new endpoint after the last event recorded so far (of any account): it gets
   * the events recorded from now on.
   */
  openCursor(endpointId: string): Promise<void>;
  /** Deletes the endpoint's dispatch cursor. */
  dropCursor(endpointId: string): Promise<void>;
}

export function endpointView(e: StoredEndpoint): WebhookEndpoint {
  const { secret_sealed: _s, rolled: _r, ...api } = e;
  return api;
}

/** Whether an endpoint subscribed with `patterns` gets events of `type`. */
export const endpointWants = (patterns: readonly string[], type: string): boolean =>
  patterns.some((p) => eventTypeMatches(p, type));

/** The patterns, each checked to match some event type (a typo would silently match nothing), without repeats. */
export function enabledEvents(patterns: string[]): string[] {
  for (const p of patterns) {
    if (!eventTypes.some((t) => eventTypeMatches(p, t))) {
      throw errors.parameterInvalid(
        'enabled_events',
        `${JSON.stringify(p)} matches no event type (docs/api.md "Event types" lists them)`,
      );
    }
  }
  return [...new Set(patterns)];
}

/** The URL deliveries will go to (checkHttpUrl: the port they connect to is 1–65535), stored as given. */
function checkUrl(url: string): string {
  const u = checkHttpUrl(url, 'url');
  if (u.username || u.password)
    throw errors.parameterInvalid('url', 'must not carry a user name or password (deliveries are signed instead)');
  return url;
}

export class WebhookEndpoints {
  readonly endpoints: Documents<StoredEndpoint>;

  constructor(
    private readonly kept: WebhookEndpointPort,
    private readonly sealer: Sealer,
    /** Called when a change may give the dispatcher work (an endpoint enabled again, a deletion). */
    private readonly changed: (endpointId?: string) => void,
  ) {
    this.endpoints = kept.endpoints;
  }

  async create(accountId: string, body: CreateWebhookEndpointBody, now: number): Promise<WebhookEndpointWithSecret> {
    const count = await this.kept.count(accountId);
    if (count >= MAX_WEBHOOK_ENDPOINTS) {
      throw errors.invalidRequest(
        'webhook_endpoint_limit',
        `An account has at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one first.`,
      );
    }
    const secret = newWebhookSecret();
    const e: StoredEndpoint = {
      id: newId('we'),
      object: 'webhook_endpoint',
      url: checkUrl(body.url),
      enabled_events: enabledEvents(body.enabled_events ?? ['*']),
      description: body.description ?? null,
      enabled: body.enabled ?? true,
      metadata: body.metadata ?? {},
      created: unixSeconds(now),
      livemode: false,
      secret_sealed: this.sealer.seal(secret),
      rolled: [],
    };
    await this.endpoints.insert(accountId, e);
    // Events from now on: the dispatcher's cursor starts after the last event recorded so far.
    await this.kept.openCursor(e.id);
    this.changed(e.id); // the dispatcher looks at events again at once (it stops looking while no endpoint exists)
    return { ...endpointView(e), secret };
  }

  stored(accountId: string, id: string, param = 'webhook_endpoint_id'): Promise<StoredEndpoint> {
    return this.endpoints.require(accountId, id, 'webhook_endpoint', param);
  }

  async get(accountId: string, id: string): Promise<WebhookEndpoint> {
    return endpointView(await this.stored(accountId, id));
  }

  async list(accountId: string, url: string, q: ListWebhookEndpointsQuery): Promise<List<WebhookEndpoint>> {
    const page = await this.endpoints.list(accountId, url, q);
    return { ...page, data: page.data.map(endpointView) };
  }

  /** Every endpoint of the account, oldest first, as stored. */
  ofAccount(accountId: string): Promise<StoredEndpoint[]> {
    return this.kept.ofAccount(accountId);
  }

  async update(accountId: string, id: string, body: UpdateWebhookEndpointBody): Promise<WebhookEndpoint> {
    const e = await this.stored(accountId, id);
    if (body.url !== undefined) e.url = checkUrl(body.url);
    if (body.enabled_events !== undefined) e.enabled_events = enabledEvents(body.enabled_events);
    if (body.description !== undefined) e.description = body.description;
    if (body.enabled !== undefined) e.enabled = body.enabled;
    if (body.metadata !== undefined) e.metadata = mergeMetadata(e.metadata, body.metadata);
    await this.endpoints.update(accountId, e);
    this.changed(e.id);
    return endpointView(e);
  }

  /** Deletes the endpoint and its dispatch cursor (its pending deliveries are given up by the caller: Webhooks). */
  async delete(accountId: string, id: string): Promise<{ id: string; object: 'webhook_endpoint'; deleted: true }> {
    await this.stored(accountId, id);
    await this.endpoints.delete(accountId, id);
    await this.kept.dropCursor(id);
    this.changed(id);
    return { id, object: 'webhook_endpoint', deleted: true };
  }

  async revealSecret(accountId: string, id: string): Promise<WebhookEndpointSecret> {
    const e = await this.stored(accountId, id);
    return { object: 'webhook_endpoint_secret', webhook_endpoint: e.id, secret: this.sealer.open(e.secret_sealed) };
  }

  /**
   * A new secret; the old one keeps signing too for `expiresInSeconds` on the account's clock (0: it stops at once),
   * so that a receiver can switch without rejecting deliveries in between.
   */
  async rollSecret(
    accountId: string,
    id: string,
    expiresInSeconds: number,
    now: number,
  ): Promise<WebhookEndpointWithSecret> {
    const e = await this.stored(accountId, id);
    const rolled = e.rolled.filter((r) => r.expires_ms > now);
    if (expiresInSeconds > 0) rolled.push({ sealed: e.secret_sealed, expires_ms: now + expiresInSeconds * 1000 });
    const secret = newWebhookSecret();
    e.secret_sealed = this.sealer.seal(secret);
    e.rolled = rolled;
    await this.endpoints.update(accountId, e);
    this.changed(e.id); // a batch signed with the old secret alone is cut short
    return { ...endpointView(e), secret };
  }

  /** The secrets that sign a delivery at `now` (the account's clock): the current one first, then rolled ones not yet expired. */
  signingSecrets(e: StoredEndpoint, now: number): string[] {
    return [this.open(e.secret_sealed), ...e.rolled.filter((r) => r.expires_ms > now).map((r) => this.open(r.sealed))];
  }

  /** Opened secrets by their sealed form (a roll seals a new one): not opened again for every delivery. */
  private readonly opened = new Map<string, string>();

  private open(sealed: string): string {
    let plain = this.opened.get(sealed);
    if (plain === undefined) {
      if (this.opened.size >= 256) this.opened.clear();
      plain = this.sealer.open(sealed);
      this.opened.set(sealed, plain);
    }
    return plain;
  }
}
