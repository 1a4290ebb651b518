// Customer portal sessions: a short-lived link (1 h) to the customer's self-service page.
import type { CreatePortalSessionBody, PortalSession } from '../../../contract/billing.js';
import { isoTime, unixSeconds } from '../../clock.js';
import { newId } from '../../ids.js';
import type { BillingContext } from './store.js';
import { checkHttpUrl } from '../values.js';
import { hostedLinks } from '../links.js';
import { HOUR_MS } from '../../../contract/time.js';

export const PORTAL_TTL_MS = HOUR_MS;

export class Portals {
  constructor(private readonly billing: BillingContext) {}

  async create(accountId: string, body: CreatePortalSessionBody, now: number, baseUrl: string): Promise<PortalSession> {
    if (body.return_url !== undefined) checkHttpUrl(body.return_url, 'return_url');
    const customer = await this.billing.stored.customers.require(accountId, body.customer, 'customer', 'customer');
    const id = newId('pts');
    const p: PortalSession = {
      id,
      object: 'portal_session',
      customer: customer.id,
      return_url: body.return_url ?? null,
      url: hostedLinks.portal(baseUrl, id),
      created: unixSeconds(now),
      expires_at: isoTime(now + PORTAL_TTL_MS),
      livemode: false,
    };
    return this.toApi(await this.billing.stored.portals.insert(accountId, p));
  }

  async get(accountId: string, id: string): Promise<PortalSession> {
    return this.toApi(await this.billing.stored.portals.require(accountId, id, 'portal_session', 'portal_session_id'));
  }

  /** Its `url` at the server's address now (links.ts). */
  private toApi(p: PortalSession): PortalSession {
    return { ...p, url: hostedLinks.portal(this.billing.publicUrl(), p.id) };
  }
}
