// Resends to listeners (docs/api.md "Resends to listeners"). A running `payorch listen` registers and renews a
// lease; `POST /events/{id}/resend` (without a webhook endpoint) queues the event, in its own transaction, for each
// listener of the account whose lease is live at that moment — so the count it answers is exactly the listeners
// that will find it — and each listener lists its own queue after its cursor. All of it is in the database: a
// server and the CLI's in-process default, each command its own process, share it.
import { EVENT_RETENTION_MS, type Event } from '../../../contract/events.js';
import type { List } from '../../../contract/common.js';
import {
  LISTENER_FORGET_MS,
  LISTENER_LEASE_MS,
  type CreateEventListenerBody,
  type EventListener,
  type EventResend,
  type ListEventResendsQuery,
} from '../../../contract/listeners.js';
import { isoTime } from '../../clock.js';
import { errors } from '../../errors.js';
import { newId } from '../../ids.js';
import { PRUNE_BATCH, type DueWork } from '../due.js';
import { enabledEvents, endpointWants } from './endpoints.js';
import { HOUSEKEEPING_WORK } from '../../../contract/limits.js';

/** A listener as stored: its lease runs LISTENER_LEASE_MS from `seen_ms` (the server's wall clock). */
export interface StoredListener {
  id: string;
  /** Event types and patterns */
  enabled_events: string[];
  created_ms: number;
  seen_ms: number;
}

/** A resend in a listener's queue, with its event. */
export interface QueuedResend {
  id: string;
  created_ms: number;
  event: Event;
}

/** What the listeners keep: the listeners of every account and their queues of resends. */
export interface ListenerPort {
  /** Stores a new listener of the account. */
  insert(accountId: string, listener: StoredListener): Promise<void>;
  /** The account's listener, if it has one by that id. */
  get(accountId: string, id: string): Promise<StoredListener | undefined>;
  /** Moves the listener's lease: last seen at `seenMs`. */
  renew(id: string, seenMs: number): Promise<void>;
  /** Deletes the listener with its queue. */
  remove(id: string): Promise<void>;
  /** Deletes the account's listeners last seen before `before`, with their queues. */
  forgetSeenBefore(accountId: string, before: number): Promise<void>;
  /** The account's listeners seen after `since`, oldest first. */
  seenSince(accountId: string, since: number): Promise<{ id: string; enabled_events: string[] }[]>;
  /** Queues the event in each listener's queue (a resend per listener, its id given), at `now`. */
  queue(accountId: string, eventId: string, resends: { id: string; listener: string }[], now: number): Promise<void>;
  /**
   * The page `q` asks for of the listener's queue, newest first (cursors like every list; an unknown cursor is
   * the contract's 400), with the total: only resends whose event the log still has.
   */
  resends(
    listenerId: string,
    q: ListEventResendsQuery,
  ): Promise<{ data: QueuedResend[]; has_more: boolean; total_count: number }>;
  /** When the account's oldest queued resend was queued (ms on its clock). */
  oldestResendMs(accountId: string): Promise<number | undefined>;
  /**
   * Deletes the first `n` resends (all when -1), oldest first, queued at or before `before` (of one account, or
   * of all); returns how many.
   */
  pruneResends(before: number, n: number, accountId?: string): Promise<number>;
}

export class Listeners implements DueWork {
  readonly name = HOUSEKEEPING_WORK.resends;

  constructor(
    private readonly kept: ListenerPort,
    /**
     * The server's wall clock, for leases: whether a listener runs is a matter of real time, not of the account's
     * test clock (advancing it a month must not end every lease).
     */
    private readonly wall: () => number = Date.now,
  ) {}

  private view(r: StoredListener): EventListener {
    return {
      id: r.id,
      object: 'event_listener',
      enabled_events: r.enabled_events,
      created: Math.floor(r.created_ms / 1000),
      expires_at: isoTime(r.seen_ms + LISTENER_LEASE_MS),
    };
  }

  private async row(accountId: string, id: string): Promise<StoredListener> {
    const r = await this.kept.get(accountId, id);
    if (!r) throw errors.notFound('event_listener', id, 'listener_id');
    return r;
  }

  /**
   * A new listener of the account, its lease live from now (in the caller's transaction). `enabled_events`: the
   * types it shows (checked as an endpoint's are), so that a resend counts only the listeners that show it.
   */
  async register(accountId: string, body: CreateEventListenerBody, now: number): Promise<EventListener> {
    const patterns = enabledEvents(body.enabled_events ?? ['*']);
    await this.forgetStale(accountId);
    const r: StoredListener = {
      id: newId('evl'),
      enabled_events: patterns,
      created_ms: now,
      seen_ms: this.wall(),
    };
    await this.kept.insert(accountId, r);
    return this.view(r);
  }

  /**
   * Renews the lease. A listener whose lease ran out meanwhile (its process was suspended, or could not reach the
   * server) runs again from now on; what was resent in between was not queued for it (nor counted).
   */
  async renew(accountId: string, id: string): Promise<EventListener> {
    const r = await this.row(accountId, id);
    r.seen_ms = Math.max(r.seen_ms, this.wall());
    await this.kept.renew(id, r.seen_ms);
    return this.view(r);
  }

  /** Deletes the listener (it stopped) with its queue. */
  async remove(accountId: string, id: string): Promise<{ id: string; object: 'event_listener'; deleted: true }> {
    await this.row(accountId, id);
    await this.kept.remove(id);
    return { id, object: 'event_listener', deleted: true };
  }

  /**
   * Queues the event for every listener of the account whose lease is live and whose enabled_events match it (in
   * the resend's transaction). Returns how many.
   */
  async queue(accountId: string, event: { id: string; type: string }, now: number): Promise<number> {
    await this.forgetStale(accountId);
    const live = (await this.kept.seenSince(accountId, this.wall() - LISTENER_LEASE_MS)).filter((l) =>
      endpointWants(l.enabled_events, event.type),
    );
    await this.kept.queue(
      accountId,
      event.id,
      live.map((l) => ({ id: newId('evr'), listener: l.id })),
      now,
    );
    return live.length;
  }

  /**
   * The listener's queue, newest first, cursors like every list. A resend whose event the log no longer has
   * (past retention) is left out, as a delivery of it would be given up.
   */
  async resends(
    accountId: string,
    listenerId: string,
    url: string,
    q: ListEventResendsQuery,
  ): Promise<List<EventResend>> {
    await this.row(accountId, listenerId);
    const { data, has_more, total_count } = await this.kept.resends(listenerId, q);
    const resends = data.map((r): EventResend => ({
      id: r.id,
      object: 'event_resend',
      listener: listenerId,
      created: Math.floor(r.created_ms / 1000),
      event: r.event,
    }));
    return { object: 'list', data: resends, has_more, total_count, url };
  }

  /** Listeners of the account not renewed for LISTENER_FORGET_MS (killed, crashed): deleted with their queues. */
  private forgetStale(accountId: string): Promise<void> {
    return this.kept.forgetSeenBefore(accountId, this.wall() - LISTENER_FORGET_MS);
  }

  // ---------------------------------------------------------------------------------------- retention

  async nextDue(accountId: string): Promise<number | undefined> {
    const oldest = await this.kept.oldestResendMs(accountId);
    return oldest === undefined ? undefined : oldest + EVENT_RETENTION_MS;
  }

  runDue(now: number, accountId?: string, limit?: number): Promise<number> {
    const n = limit === undefined ? -1 : limit * PRUNE_BATCH;
    return this.kept.pruneResends(now - EVENT_RETENTION_MS, n, accountId);
  }
}
