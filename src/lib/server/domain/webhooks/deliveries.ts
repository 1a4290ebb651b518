// Webhook deliveries (docs/api.md "Events and webhooks"): one row per (event, endpoint) to send, written before
// its POST and updated with each attempt's outcome. The dispatcher (dispatcher.ts) drives them; this module is
// the rules: which events an endpoint gets, what an attempt's outcome does, when the next one is due.
import type { List } from '../../../contract/common.js';
import {
  MAX_DELIVERY_ATTEMPTS,
  RETRY_BASE_MS,
  type ListEndpointDeliveriesQuery,
  type ListEventDeliveriesQuery,
  type ResendEventBody,
  type WebhookDelivery,
} from '../../../contract/webhooks.js';
import type { Clock } from '../../clock.js';
import { isoTime } from '../../clock.js';
import { errors } from '../../errors.js';
import { newId } from '../../ids.js';
import { Collection } from '../../store/collection.js';
import type { Store } from '../../store/db.js';
import { tables } from '../../store/tables.js';
import type { Events } from '../events.js';
import type { DueWork } from '../due.js';
import { EVENT_RETENTION_MS } from '../../../contract/events.js';
import { endpointWants, type StoredEndpoint, type WebhookEndpoints } from './endpoints.js';

/** Deliveries looked at (and deleted) per retention item (runDue's `limit` counts batches of this many). */
const PRUNE_BATCH = 64;

/** Events looked at per endpoint in one scan (one small write transaction). */
const SCAN_BATCH = 256;

/** One POST to make: the delivery, where to, the body and the secrets that sign it. */
export interface DeliveryJob {
  accountId: string;
  delivery: WebhookDelivery;
  url: string;
  /** The event's JSON as stored; undefined when the event is gone (past retention). */
  body: string | undefined;
  secrets: string[];
}

/** What one attempt came to: a response status, or an error before any (refused, timed out, reset…). */
export interface AttemptOutcome {
  status?: number;
  error?: string;
}

/** The wait after attempt `n` (1-based): 60 s × 2^n — 2, 4, 8, 16 minutes (the live service's schedule). */
export const retryDelayMs = (attempts: number): number => RETRY_BASE_MS * 2 ** attempts;

/**
 * The delivery log is kept as long as the events (30 days on the account's clock, from a delivery's creation),
 * then deleted by the scheduler in bounded steps, oldest first. A delivery still pending is kept until it is
 * sent or given up (its event past retention gives it up: deliveries.ts `jobOf`).
 */
export class Deliveries implements DueWork {
  readonly name = 'webhook_deliveries.retention';
  readonly deliveries: Collection<WebhookDelivery>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly events: Events,
    private readonly endpoints: WebhookEndpoints,
    /** Called when a write gives the dispatcher work (a resend). */
    private readonly changed: () => void,
  ) {
    this.deliveries = new Collection<WebhookDelivery>(store, tables.webhook_deliveries);
  }


  /** A pending delivery of the event to the endpoint, due at once (in the caller's transaction). */
  private create(accountId: string, event: { id: string; type: string }, endpoint: StoredEndpoint, now: number): WebhookDelivery {
    const at = isoTime(now);
    const d: WebhookDelivery = {
      id: newId('whd'),
      object: 'webhook_delivery',
      event: event.id,
      event_type: event.type,
      webhook_endpoint: endpoint.id,
      url: endpoint.url,
      status: 'pending',
      attempts: 0,
      next_attempt_at: at,
      last_response_code: null,
      last_error: null,
      created_at: at,
      delivered_at: null,
    };
    return this.deliveries.insert(accountId, d);
  }

  listForEvent(accountId: string, eventId: string, url: string, q: ListEventDeliveriesQuery): List<WebhookDelivery> {
    const list = this.deliveries.list(accountId, url, { ...q, where: { event: eventId } });
    // An event past retention keeps its deliveries; one that never was this account's is 404.
    if (list.total_count === 0) this.events.get(accountId, eventId);
    return list;
  }

  listForEndpoint(accountId: string, endpointId: string, url: string, q: ListEndpointDeliveriesQuery): List<WebhookDelivery> {
    this.endpoints.stored(accountId, endpointId);
    const { status, ...page } = q;
    return this.deliveries.list(accountId, url, { ...page, where: { webhook_endpoint: endpointId, status } });
  }

  /**
   * New deliveries of the event: to the endpoint named (whatever its enabled_events; it must be enabled), or to
   * every enabled endpoint whose enabled_events match.
   */
  resend(accountId: string, eventId: string, body: ResendEventBody, url: string, now: number): List<WebhookDelivery> {
    const event = this.events.get(accountId, eventId);
    let targets: StoredEndpoint[];
    if (body.webhook_endpoint !== undefined) {
      const e = this.endpoints.stored(accountId, body.webhook_endpoint, 'webhook_endpoint');
      if (!e.enabled) throw errors.unexpectedState('webhook_endpoint', `Webhook endpoint ${e.id} is disabled; enable it first.`);
      targets = [e];
    } else {
      targets = this.endpoints.endpoints
        .selectWhere('account_id = ?', accountId)
        .map((r) => r.doc)
        .filter((e) => e.enabled && endpointWants(e.enabled_events, event.type));
    }
    const data = targets.map((e) => this.create(accountId, event, e, now));
    if (data.length) this.changed();
    return { object: 'list', data, has_more: false, total_count: data.length, url };
  }

  /** Gives up the endpoint's pending deliveries (it is being deleted). */
  giveUpPending(accountId: string, endpointId: string, reason: string): void {
    for (const { doc } of this.deliveries.selectWhere("account_id = ? AND webhook_endpoint = ? AND status = 'pending'", accountId, endpointId)) {
      doc.status = 'failed';
      doc.next_attempt_at = null;
      doc.last_error = reason;
      this.deliveries.update(accountId, doc);
    }
  }

  // ------------------------------------------------------------------------------------------ retention

  /** The account's oldest deliveries that are no longer pending, in creation order (at most `n`). */
  private oldestDone(accountId: string, n: number): { id: string; created_ms: number }[] {
    const rows = this.store.statement(
      "SELECT data FROM webhook_deliveries INDEXED BY webhook_deliveries_done WHERE account_id = ? AND status != 'pending' ORDER BY seq LIMIT ?",
    ).all(accountId, n) as { data: string }[];
    return rows.map((r) => {
      const d = JSON.parse(r.data) as WebhookDelivery;
      return { id: d.id, created_ms: Date.parse(d.created_at) };
    });
  }

  nextDue(accountId: string): number | undefined {
    const oldest = this.oldestDone(accountId, 1)[0];
    return oldest ? oldest.created_ms + EVENT_RETENTION_MS : undefined;
  }

  runDue(now: number, accountId?: string, limit?: number): number {
    const accounts = accountId !== undefined ? [accountId] : (this.store.statement('SELECT DISTINCT account_id FROM webhook_deliveries').all() as { account_id: string }[]).map((r) => r.account_id);
    const max = limit === undefined ? Infinity : limit * PRUNE_BATCH;
    let deleted = 0;
    for (const acct of accounts) {
      // Creation order is time order on the account's clock: stop at the first one still young enough.
      while (deleted < max) {
        const rows = this.oldestDone(acct, Math.min(PRUNE_BATCH, max - deleted));
        const young = rows.findIndex((r) => r.created_ms + EVENT_RETENTION_MS > now);
        const old = young < 0 ? rows : rows.slice(0, young);
        for (const r of old) this.deliveries.delete(acct, r.id); // through the Collection: the list counts follow
        deleted += old.length;
        if (old.length < rows.length || rows.length === 0) break;
      }
    }
    return deleted;
  }

  // ------------------------------------------------------------------------------------- the dispatcher's side

  /**
   * Looks at the events recorded since each endpoint's cursor (at most SCAN_BATCH per endpoint) and records a
   * pending delivery for each one an enabled endpoint wants; moves the cursors. In the caller's write
   * transaction. Returns whether events are left to look at, and how many endpoints there are.
   */
  scan(): { more: boolean; endpoints: number } {
    const rows = this.store.statement('SELECT c.webhook_endpoint, c.event_seq, e.account_id, e.data FROM webhook_cursors c JOIN webhook_endpoints e ON e.id = c.webhook_endpoint').all() as {
      webhook_endpoint: string;
      event_seq: number;
      account_id: string;
      data: string;
    }[];
    if (rows.length === 0) return { more: false, endpoints: 0 };
    const newest = (this.store.statement('SELECT MAX(seq) AS seq FROM events').get() as { seq: number | null }).seq ?? 0;
    let more = false;
    for (const row of rows) {
      let cursor = row.event_seq;
      // The log's seq starts over when retention has emptied it (SQLite reuses rowids of an empty table): a
      // cursor past the newest event can only mean that, and every event there is now is new.
      if (cursor > newest) cursor = 0;
      const events = this.store.statement('SELECT seq, id, type FROM events WHERE account_id = ? AND seq > ? ORDER BY seq LIMIT ?').all(row.account_id, cursor, SCAN_BATCH) as {
        seq: number;
        id: string;
        type: string;
      }[];
      if (events.length === SCAN_BATCH) more = true;
      if (events.length > 0) {
        const endpoint = JSON.parse(row.data) as StoredEndpoint;
        if (endpoint.enabled) {
          const now = this.clock.now(row.account_id);
          for (const ev of events) if (endpointWants(endpoint.enabled_events, ev.type)) this.create(row.account_id, ev, endpoint, now);
        }
        cursor = events[events.length - 1]!.seq;
      }
      if (cursor !== row.event_seq) this.store.statement('UPDATE webhook_cursors SET event_seq = ? WHERE webhook_endpoint = ?').run(cursor, row.webhook_endpoint);
    }
    return { more, endpoints: rows.length };
  }

  /**
   * The next POST of each enabled endpoint not in `busy` (at most `max`): its earliest pending delivery (event
   * order) that is due on the account's clock — one waiting for a retry does not hold back later ones. Also
   * returns, per account, when the earliest retry not yet due comes due (ms on that account's clock).
   */
  due(busy: ReadonlySet<string>, max: number): { jobs: DeliveryJob[]; retries: Map<string, number> } {
    const jobs: DeliveryJob[] = [];
    const retries = new Map<string, number>();
    const endpoints = this.store.statement('SELECT account_id, data FROM webhook_endpoints ORDER BY seq').all() as { account_id: string; data: string }[];
    for (const row of endpoints) {
      const e = JSON.parse(row.data) as StoredEndpoint;
      if (!e.enabled || busy.has(e.id)) continue;
      const now = this.clock.now(row.account_id);
      if (jobs.length < max) {
        const job = this.jobOf(row.account_id, e, now);
        if (job) {
          jobs.push(job);
          continue;
        }
      }
      const next = (
        this.store.statement("SELECT MIN(next_attempt_ms) AS at FROM webhook_deliveries WHERE webhook_endpoint = ? AND status = 'pending' AND next_attempt_ms > ?").get(e.id, now) as {
          at: number | null;
        }
      ).at;
      if (next !== null) retries.set(row.account_id, Math.min(retries.get(row.account_id) ?? Infinity, next));
    }
    return { jobs, retries };
  }

  /** The endpoint's next POST if one is due now (the endpoint as stored now: enabled, its URL and secrets). */
  nextFor(accountId: string, endpointId: string): DeliveryJob | undefined {
    const e = this.endpoints.endpoints.get(accountId, endpointId);
    if (!e || !e.enabled) return undefined;
    return this.jobOf(accountId, e, this.clock.now(accountId));
  }

  private jobOf(accountId: string, e: StoredEndpoint, now: number): DeliveryJob | undefined {
    // In seq order through the (account, endpoint, status, seq) index, stopping at the first one due: measured,
    // SQLite's own choice (the pending index by time, then a sort by seq) read the whole backlog every time.
    const d = this.store.statement(
      "SELECT data FROM webhook_deliveries INDEXED BY webhook_deliveries_webhook_endpoint_status WHERE account_id = ? AND webhook_endpoint = ? AND status = 'pending' AND next_attempt_ms <= ? ORDER BY seq LIMIT 1",
    ).get(accountId, e.id, now) as { data: string } | undefined;
    if (!d) return undefined;
    const delivery = JSON.parse(d.data) as WebhookDelivery;
    const ev = this.store.statement('SELECT body FROM events WHERE id = ? AND account_id = ?').get(delivery.event, accountId) as { body: string } | undefined;
    return { accountId, delivery, url: e.url, body: ev?.body, secrets: this.endpoints.signingSecrets(e, now) };
  }

  /**
   * Records an attempt of `job` (in the caller's write transaction): a 2xx response → succeeded; anything else
   * counts an attempt and schedules the next one on the account's clock, or gives up after the last. Nothing
   * when the delivery is no longer pending (its endpoint was deleted meanwhile).
   */
  record(job: DeliveryJob, outcome: AttemptOutcome): WebhookDelivery | undefined {
    const d = this.deliveries.get(job.accountId, job.delivery.id);
    if (!d || d.status !== 'pending') return undefined;
    const now = this.clock.now(job.accountId);
    if (job.body === undefined) {
      d.status = 'failed';
      d.next_attempt_at = null;
      d.last_error = 'the event is past retention (30 days) and can no longer be sent';
      return this.deliveries.update(job.accountId, d);
    }
    d.attempts += 1;
    d.url = job.url;
    d.last_response_code = outcome.status ?? null;
    const ok = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
    if (ok) {
      d.status = 'succeeded';
      d.last_error = null;
      d.next_attempt_at = null;
      d.delivered_at = isoTime(now);
    } else {
      d.last_error = outcome.error ?? `the endpoint answered ${outcome.status}`;
      if (d.attempts >= MAX_DELIVERY_ATTEMPTS) {
        d.status = 'failed';
        d.next_attempt_at = null;
      } else {
        d.next_attempt_at = isoTime(now + retryDelayMs(d.attempts));
      }
    }
    return this.deliveries.update(job.accountId, d);
  }
}
