// Webhook deliveries (docs/api.md "Events and webhooks"): one row per (event, endpoint) to send, written before
// its POST and updated with each attempt's outcome. The dispatcher (dispatch/dispatcher.ts) drives them; this module is
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
import { newId, newIdFor } from '../../ids.js';
import { Collection } from '../../store/sqlite/collection.js';
import type { Store } from '../../store/sqlite/db.js';
import { tables } from '../../store/sqlite/tables.js';
import type { Events } from '../events.js';
import { PRUNE_BATCH, type DueWork } from '../due.js';
import { EVENT_RETENTION_MS } from '../../../contract/events.js';
import { endpointWants, type StoredEndpoint, type WebhookEndpoints } from './endpoints.js';
import { HOUSEKEEPING_WORK } from '../../../contract/limits.js';

/** Events looked at per endpoint in one scan (one small write transaction). */
const SCAN_BATCH = 256;

/** What one attempt came to: a response status, or an error before any (refused, timed out, reset, cut short…). */
export interface AttemptOutcome {
  status?: number;
  error?: string;
  /** No answer at all within the timeout (the endpoint holds a slot that long: the dispatcher backs it off). */
  timedOut?: boolean;
}

/** One POST of a batch: the delivery, where to, the body and the secrets that sign it. */
export interface SendJob {
  delivery: string;
  eventId: string;
  eventType: string;
  url: string;
  body: string;
  secrets: string[];
}

/** Whether an outcome is a success: a complete 2xx answer. */
export const succeeded = (o: AttemptOutcome): boolean =>
  o.error === undefined && o.status !== undefined && o.status >= 200 && o.status < 300;

/** The wait after attempt `n` (1-based): 60 s × 2^n — 2, 4, 8, 16 minutes (the live service's schedule). */
export const retryDelayMs = (attempts: number): number => RETRY_BASE_MS * 2 ** attempts;

/**
 * The delivery log is kept as long as the events (30 days on the account's clock, from a delivery's creation),
 * then deleted by the scheduler in bounded steps, oldest first. A delivery still pending is kept until it is
 * sent or given up; the body of its event, if the event leaves the log meanwhile, is kept for it.
 */
export class Deliveries implements DueWork {
  readonly name = HOUSEKEEPING_WORK.deliveries;
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
    // Retention never takes an event from an endpoint that has not looked at it yet, nor from a pending delivery.
    events.onPrune({
      before: (accountId, lastSeq) => {
        if (this.scan(accountId, lastSeq).created > 0) this.changed();
      },
      gone: (accountId, eventId, body) => this.keepBody(accountId, eventId, body),
    });
  }

  /** Keeps the body of an event leaving the log while a delivery of it is pending (until none is). */
  private keepBody(accountId: string, eventId: string, body: string): void {
    const pending = this.store
      .statement("SELECT 1 FROM webhook_deliveries WHERE account_id = ? AND event = ? AND status = 'pending' LIMIT 1")
      .get(accountId, eventId);
    if (pending)
      this.store
        .statement('INSERT OR REPLACE INTO webhook_event_bodies (event, account_id, body) VALUES (?, ?, ?)')
        .run(eventId, accountId, body);
  }

  /** Forgets a kept body once no delivery of its event is pending any more. */
  private releaseBody(accountId: string, eventId: string): void {
    this.store
      .statement(
        "DELETE FROM webhook_event_bodies WHERE event = ? AND account_id = ? AND NOT EXISTS (SELECT 1 FROM webhook_deliveries WHERE account_id = ? AND event = ? AND status = 'pending')",
      )
      .run(eventId, accountId, accountId, eventId);
  }

  /**
   * A pending delivery of the event to the endpoint, due at once (in the caller's transaction). The dispatcher's
   * (`first`: the event's one delivery to the endpoint from the scan) gets an id of the pair, not of the moment.
   */
  private create(
    accountId: string,
    event: { id: string; type: string },
    endpoint: StoredEndpoint,
    now: number,
    first = false,
  ): WebhookDelivery {
    const at = isoTime(now);
    const d: WebhookDelivery = {
      id: first ? newIdFor('whd', `${event.id} ${endpoint.id}`) : newId('whd'),
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

  listForEndpoint(
    accountId: string,
    endpointId: string,
    url: string,
    q: ListEndpointDeliveriesQuery,
  ): List<WebhookDelivery> {
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
      if (!e.enabled)
        throw errors.unexpectedState('webhook_endpoint', `Webhook endpoint ${e.id} is disabled; enable it first.`);
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
    for (const { doc } of this.deliveries.selectWhere(
      "account_id = ? AND webhook_endpoint = ? AND status = 'pending'",
      accountId,
      endpointId,
    )) {
      doc.status = 'failed';
      doc.next_attempt_at = null;
      doc.last_error = reason;
      this.deliveries.update(accountId, doc);
      this.releaseBody(accountId, doc.event);
    }
  }

  // ------------------------------------------------------------------------------------------ retention

  /** The account's oldest deliveries that are no longer pending, in creation order (at most `n`). */
  private oldestDone(accountId: string, n: number): { id: string; created_ms: number }[] {
    const rows = this.store
      .statement(
        "SELECT data FROM webhook_deliveries INDEXED BY webhook_deliveries_done WHERE account_id = ? AND status != 'pending' ORDER BY seq LIMIT ?",
      )
      .all(accountId, n) as { data: string }[];
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
    const accounts =
      accountId !== undefined
        ? [accountId]
        : (
            this.store.statement('SELECT DISTINCT account_id FROM webhook_deliveries').all() as { account_id: string }[]
          ).map((r) => r.account_id);
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
   * Looks at the events recorded since each endpoint's cursor and records a pending delivery for each one an
   * enabled endpoint wants; moves the cursors. In the caller's write transaction. For every account (the
   * dispatcher: at most SCAN_BATCH events per endpoint, `more` when some are left), or for one account up to
   * event `uptoSeq` (retention, before it deletes them). Event numbers are never used twice (migration 504),
   * so a cursor only moves forward.
   */
  scan(accountId?: string, uptoSeq?: number): { more: boolean; endpoints: number; created: number } {
    const rows = (
      accountId === undefined
        ? this.store
            .statement(
              'SELECT c.webhook_endpoint, c.event_seq, e.account_id, e.data FROM webhook_cursors c JOIN webhook_endpoints e ON e.id = c.webhook_endpoint',
            )
            .all()
        : this.store
            .statement(
              'SELECT c.webhook_endpoint, c.event_seq, e.account_id, e.data FROM webhook_endpoints e JOIN webhook_cursors c ON c.webhook_endpoint = e.id WHERE e.account_id = ?',
            )
            .all(accountId)
    ) as { webhook_endpoint: string; event_seq: number; account_id: string; data: string }[];
    let more = false;
    let created = 0;
    for (const row of rows) {
      let cursor = row.event_seq;
      let endpoint: StoredEndpoint | undefined;
      for (;;) {
        const events = (
          uptoSeq === undefined
            ? this.store
                .statement(
                  'SELECT seq, id, type, created_ms FROM events WHERE account_id = ? AND seq > ? ORDER BY seq LIMIT ?',
                )
                .all(row.account_id, cursor, SCAN_BATCH)
            : this.store
                .statement(
                  'SELECT seq, id, type, created_ms FROM events WHERE account_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?',
                )
                .all(row.account_id, cursor, uptoSeq, SCAN_BATCH)
        ) as { seq: number; id: string; type: string; created_ms: number }[];
        if (events.length === 0) break;
        endpoint ??= JSON.parse(row.data) as StoredEndpoint;
        if (endpoint.enabled) {
          // Dated by its event, not by when the scan ran: the scan runs after a commit, whenever the loop gets to
          // it (during a clock advance's steps, say), and a seeded server's deliveries must not depend on that.
          for (const ev of events) {
            if (!endpointWants(endpoint.enabled_events, ev.type)) continue;
            this.create(row.account_id, ev, endpoint, ev.created_ms, true);
            created++;
          }
        }
        cursor = events[events.length - 1]!.seq;
        if (events.length < SCAN_BATCH) break;
        if (uptoSeq === undefined) {
          more = true;
          break;
        }
      }
      if (cursor !== row.event_seq)
        this.store
          .statement('UPDATE webhook_cursors SET event_seq = ? WHERE webhook_endpoint = ?')
          .run(cursor, row.webhook_endpoint);
    }
    return { more, endpoints: rows.length, created };
  }

  /** The enabled endpoints of every account, oldest first: those the dispatcher may serve. */
  enabledEndpoints(): { accountId: string; endpoint: StoredEndpoint }[] {
    const rows = this.store.statement('SELECT account_id, data FROM webhook_endpoints ORDER BY seq').all() as {
      account_id: string;
      data: string;
    }[];
    const out: { accountId: string; endpoint: StoredEndpoint }[] = [];
    for (const row of rows) {
      const endpoint = JSON.parse(row.data) as StoredEndpoint;
      if (endpoint.enabled) out.push({ accountId: row.account_id, endpoint });
    }
    return out;
  }

  /**
   * The endpoint's next POSTs: its earliest pending deliveries (event order) that are due on the account's clock,
   * at most `max`, after delivery number `afterSeq` (those before it are with the sender) — one waiting for a
   * retry does not hold back later ones. Each with its event's body, from the
   * log or, past retention, as kept for it; `lost`: deliveries of events gone without a kept body (written before
   * bodies were kept), which can no longer be sent.
   */
  batchFor(
    accountId: string,
    e: StoredEndpoint,
    now: number,
    max: number,
    afterSeq = 0,
  ): { jobs: SendJob[]; lost: string[]; lastSeq: number } {
    // In seq order through the (account, endpoint, status, seq) index, stopping after `max` due ones: measured,
    // SQLite's own choice (the pending index by time, then a sort by seq) read the whole backlog every time.
    const rows = this.store
      .statement(
        `SELECT d.seq, d.id, d.event, json_extract(d.data, '$.event_type') AS type, COALESCE(ev.body, kept.body) AS body
         FROM webhook_deliveries d INDEXED BY webhook_deliveries_webhook_endpoint_status
         LEFT JOIN events ev ON ev.id = d.event
         LEFT JOIN webhook_event_bodies kept ON kept.event = d.event
         WHERE d.account_id = ? AND d.webhook_endpoint = ? AND d.status = 'pending' AND d.seq > ? AND d.next_attempt_ms <= ? ORDER BY d.seq LIMIT ?`,
      )
      .all(accountId, e.id, afterSeq, now, max) as {
      seq: number;
      id: string;
      event: string;
      type: string;
      body: string | null;
    }[];
    const jobs: SendJob[] = [];
    const lost: string[] = [];
    if (rows.length === 0) return { jobs, lost, lastSeq: afterSeq };
    const secrets = this.endpoints.signingSecrets(e, now);
    for (const r of rows) {
      if (r.body === null) lost.push(r.id);
      else jobs.push({ delivery: r.id, eventId: r.event, eventType: r.type, url: e.url, body: r.body, secrets });
    }
    return { jobs, lost, lastSeq: rows[rows.length - 1]!.seq };
  }

  /** When the endpoint's earliest pending delivery not due at `now` comes due (ms on the account's clock). */
  nextRetry(endpointId: string, now: number): number | undefined {
    const row = this.store
      .statement(
        "SELECT MIN(next_attempt_ms) AS at FROM webhook_deliveries WHERE webhook_endpoint = ? AND status = 'pending' AND next_attempt_ms > ?",
      )
      .get(endpointId, now) as { at: number | null };
    return row.at ?? undefined;
  }

  /**
   * Records an attempt of the delivery (in the caller's write transaction): a complete 2xx answer → succeeded;
   * anything else counts an attempt and schedules the next one on the account's clock, or gives up after the
   * last. `lost`: the event is gone and cannot be sent — given up without an attempt. Nothing when the delivery
   * is no longer pending (its endpoint was deleted meanwhile).
   */
  record(
    accountId: string,
    deliveryId: string,
    url: string,
    outcome: AttemptOutcome | 'lost',
  ): WebhookDelivery | undefined {
    const d = this.deliveries.get(accountId, deliveryId);
    if (!d || d.status !== 'pending') return undefined;
    const now = this.clock.now(accountId);
    if (outcome === 'lost') {
      d.status = 'failed';
      d.next_attempt_at = null;
      d.last_error =
        'the event left the log before this version kept bodies for pending deliveries, and can no longer be sent';
      return this.deliveries.update(accountId, d);
    }
    d.attempts += 1;
    d.url = url;
    d.last_response_code = outcome.status ?? null;
    if (succeeded(outcome)) {
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
    const updated = this.deliveries.update(accountId, d);
    if (d.status !== 'pending') this.releaseBody(accountId, d.event);
    return updated;
  }
}
