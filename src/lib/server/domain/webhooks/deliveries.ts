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
import type { Documents } from '../../store/seam.js';
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

/** A due delivery the dispatcher took: its event's body, or null when the event is gone with no body kept. */
export interface ClaimedDelivery {
  /** Its place among the deliveries (creation order): a later claim of the endpoint starts after it. */
  seq: number;
  id: string;
  event: string;
  type: string;
  body: string | null;
}

/** A dispatch cursor: the last event (place in the log) an endpoint has looked at, with the endpoint. */
export interface EndpointCursor {
  endpointId: string;
  eventSeq: number;
  accountId: string;
  endpoint: StoredEndpoint;
}

/**
 * What the delivery outbox keeps: the deliveries, the bodies of events that left the log while a delivery of them
 * was pending, and the endpoints' dispatch cursors in the event log.
 */
export interface OutboxPort {
  readonly deliveries: Documents<WebhookDelivery>;
  /** Keeps the body of an event leaving the log if a delivery of it is pending (until none is). */
  keepBodyIfPending(accountId: string, eventId: string, body: string): Promise<void>;
  /**
   * Writes the delivery as an attempt (or giving up) left it, in the caller's transaction; once it is no longer
   * pending, the body kept for its event is forgotten unless another delivery of it is still pending. The caller
   * read it pending in this transaction: an engine that runs transactions at once must keep it so until this
   * write (lock the row when read, or write only while it is pending), so that an outcome is recorded once.
   */
  recordAttempt(accountId: string, delivery: WebhookDelivery): Promise<WebhookDelivery>;
  /** The endpoint's pending deliveries, oldest first. */
  pendingOf(accountId: string, endpointId: string): Promise<WebhookDelivery[]>;
  /** The accounts that have deliveries. */
  accounts(): Promise<string[]>;
  /** The account's oldest deliveries that are no longer pending, in creation order (at most `n`). */
  oldestDone(accountId: string, n: number): Promise<WebhookDelivery[]>;
  /**
   * Claims the dispatch cursors to advance (of one account's endpoints, or of every account's), each with its
   * endpoint, for the caller's write transaction: no other scan advances them before it ends (one SQLite write
   * transaction at a time; an engine shared by several servers locks them, and another server's scan skips them).
   */
  claimCursors(accountId?: string): Promise<EndpointCursor[]>;
  /**
   * The account's events after place `afterSeq` in the log (and up to `uptoSeq` when given), in order, at most
   * `n`: what a cursor there has not looked at yet.
   */
  eventsAfter(
    accountId: string,
    afterSeq: number,
    uptoSeq: number | undefined,
    n: number,
  ): Promise<{ seq: number; id: string; type: string; created_ms: number }[]>;
  /** Moves the endpoint's cursor to place `eventSeq` (only ever forward). */
  moveCursor(endpointId: string, eventSeq: number): Promise<void>;
  /** Every account's endpoints, oldest first. */
  allEndpoints(): Promise<{ accountId: string; endpoint: StoredEndpoint }[]>;
  /**
   * Claims the due deliveries of an endpoint: its earliest pending deliveries (creation order, which is event
   * order) whose next attempt is due at `now` (ms on the account's clock), after delivery place `afterSeq`, at
   * most `max`, each with its event's body (from the log or, past retention, as kept). They are the caller's until
   * their outcomes are recorded: in SQLite one server dispatches a database, and remembers (`afterSeq`) what it
   * has handed on; an engine shared by several servers takes them in this same operation (a lease), so that no
   * two send one delivery at once.
   */
  claimDue(
    accountId: string,
    endpointId: string,
    now: number,
    max: number,
    afterSeq: number,
  ): Promise<ClaimedDelivery[]>;
  /** When the endpoint's earliest pending delivery not due at `now` comes due (ms on the account's clock). */
  nextRetry(endpointId: string, now: number): Promise<number | undefined>;
  /**
   * This process stops dispatching: the endpoints it claimed are free for another process at once (rather than
   * once its lease has run out). Nothing to do where one process serves the store.
   */
  releaseClaims(): Promise<void>;
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
  readonly deliveries: Documents<WebhookDelivery>;

  constructor(
    private readonly kept: OutboxPort,
    private readonly clock: Clock,
    private readonly events: Events,
    private readonly endpoints: WebhookEndpoints,
    /** Called when a write gives the dispatcher work (a resend). */
    private readonly changed: () => void,
  ) {
    this.deliveries = kept.deliveries;
    // Retention never takes an event from an endpoint that has not looked at it yet, nor from a pending delivery.
    events.onPrune({
      before: async (accountId, lastSeq) => {
        if ((await this.scan(accountId, lastSeq)).created > 0) this.changed();
      },
      gone: (accountId, eventId, body) => this.kept.keepBodyIfPending(accountId, eventId, body),
    });
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
  ): Promise<WebhookDelivery> {
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

  async listForEvent(
    accountId: string,
    eventId: string,
    url: string,
    q: ListEventDeliveriesQuery,
  ): Promise<List<WebhookDelivery>> {
    const list = await this.deliveries.list(accountId, url, { ...q, where: { event: eventId } });
    // An event past retention keeps its deliveries; one that never was this account's is 404.
    if (list.total_count === 0) await this.events.get(accountId, eventId);
    return list;
  }

  async listForEndpoint(
    accountId: string,
    endpointId: string,
    url: string,
    q: ListEndpointDeliveriesQuery,
  ): Promise<List<WebhookDelivery>> {
    await this.endpoints.stored(accountId, endpointId);
    const { status, ...page } = q;
    return this.deliveries.list(accountId, url, { ...page, where: { webhook_endpoint: endpointId, status } });
  }

  /**
   * New deliveries of the event: to the endpoint named (whatever its enabled_events; it must be enabled), or to
   * every enabled endpoint whose enabled_events match.
   */
  async resend(
    accountId: string,
    eventId: string,
    body: ResendEventBody,
    url: string,
    now: number,
  ): Promise<List<WebhookDelivery>> {
    const event = await this.events.get(accountId, eventId);
    let targets: StoredEndpoint[];
    if (body.webhook_endpoint !== undefined) {
      const e = await this.endpoints.stored(accountId, body.webhook_endpoint, 'webhook_endpoint');
      if (!e.enabled)
        throw errors.unexpectedState('webhook_endpoint', `Webhook endpoint ${e.id} is disabled; enable it first.`);
      targets = [e];
    } else {
      targets = (await this.endpoints.ofAccount(accountId)).filter(
        (e) => e.enabled && endpointWants(e.enabled_events, event.type),
      );
    }
    const data: WebhookDelivery[] = [];
    for (const e of targets) data.push(await this.create(accountId, event, e, now));
    if (data.length) this.changed();
    return { object: 'list', data, has_more: false, total_count: data.length, url };
  }

  /** Gives up the endpoint's pending deliveries (it is being deleted). */
  async giveUpPending(accountId: string, endpointId: string, reason: string): Promise<void> {
    for (const doc of await this.kept.pendingOf(accountId, endpointId)) {
      doc.status = 'failed';
      doc.next_attempt_at = null;
      doc.last_error = reason;
      await this.kept.recordAttempt(accountId, doc);
    }
  }

  // ------------------------------------------------------------------------------------------ retention

  /** The account's oldest deliveries that are no longer pending, in creation order (at most `n`). */
  private async oldestDone(accountId: string, n: number): Promise<{ id: string; created_ms: number }[]> {
    return (await this.kept.oldestDone(accountId, n)).map((d) => ({ id: d.id, created_ms: Date.parse(d.created_at) }));
  }

  async nextDue(accountId: string): Promise<number | undefined> {
    const oldest = (await this.oldestDone(accountId, 1))[0];
    return oldest ? oldest.created_ms + EVENT_RETENTION_MS : undefined;
  }

  async runDue(now: number, accountId?: string, limit?: number): Promise<number> {
    const accounts = accountId !== undefined ? [accountId] : await this.kept.accounts();
    const max = limit === undefined ? Infinity : limit * PRUNE_BATCH;
    let deleted = 0;
    for (const acct of accounts) {
      // Creation order is time order on the account's clock: stop at the first one still young enough.
      while (deleted < max) {
        const rows = await this.oldestDone(acct, Math.min(PRUNE_BATCH, max - deleted));
        const young = rows.findIndex((r) => r.created_ms + EVENT_RETENTION_MS > now);
        const old = young < 0 ? rows : rows.slice(0, young);
        for (const r of old) await this.deliveries.delete(acct, r.id); // as documents: the list counts follow
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
  async scan(accountId?: string, uptoSeq?: number): Promise<{ more: boolean; endpoints: number; created: number }> {
    const rows = await this.kept.claimCursors(accountId);
    let more = false;
    let created = 0;
    for (const row of rows) {
      let cursor = row.eventSeq;
      const endpoint = row.endpoint;
      for (;;) {
        const events = await this.kept.eventsAfter(row.accountId, cursor, uptoSeq, SCAN_BATCH);
        if (events.length === 0) break;
        if (endpoint.enabled) {
          // Dated by its event, not by when the scan ran: the scan runs after a commit, whenever the loop gets to
          // it (during a clock advance's steps, say), and a seeded server's deliveries must not depend on that.
          for (const ev of events) {
            if (!endpointWants(endpoint.enabled_events, ev.type)) continue;
            await this.create(row.accountId, ev, endpoint, ev.created_ms, true);
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
      if (cursor !== row.eventSeq) await this.kept.moveCursor(row.endpointId, cursor);
    }
    return { more, endpoints: rows.length, created };
  }

  /** The enabled endpoints of every account, oldest first: those the dispatcher may serve. */
  async enabledEndpoints(): Promise<{ accountId: string; endpoint: StoredEndpoint }[]> {
    return (await this.kept.allEndpoints()).filter((e) => e.endpoint.enabled);
  }

  /**
   * The endpoint's next POSTs, claimed (OutboxPort.claimDue): its earliest pending deliveries (event order) that
   * are due on the account's clock, at most `max`, after delivery number `afterSeq` (those before it are with the
   * sender) — one waiting for a retry does not hold back later ones. Each with its event's body, from the log or,
   * past retention, as kept for it; `lost`: deliveries of events gone without a kept body (written before bodies
   * were kept), which can no longer be sent.
   */
  async claimBatch(
    accountId: string,
    e: StoredEndpoint,
    now: number,
    max: number,
    afterSeq = 0,
  ): Promise<{ jobs: SendJob[]; lost: string[]; lastSeq: number }> {
    const rows = await this.kept.claimDue(accountId, e.id, now, max, afterSeq);
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
  nextRetry(endpointId: string, now: number): Promise<number | undefined> {
    return this.kept.nextRetry(endpointId, now);
  }

  /** This process stops dispatching: its claims are given up (OutboxPort.releaseClaims). */
  releaseClaims(): Promise<void> {
    return this.kept.releaseClaims();
  }

  /**
   * Records an attempt of the delivery (in the caller's write transaction): a complete 2xx answer → succeeded;
   * anything else counts an attempt and schedules the next one on the account's clock, or gives up after the
   * last. `lost`: the event is gone and cannot be sent — given up without an attempt. Nothing when the delivery
   * is no longer pending (its endpoint was deleted meanwhile).
   */
  async record(
    accountId: string,
    deliveryId: string,
    url: string,
    outcome: AttemptOutcome | 'lost',
  ): Promise<WebhookDelivery | undefined> {
    const d = await this.deliveries.get(accountId, deliveryId);
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
    return this.kept.recordAttempt(accountId, d);
  }
}
