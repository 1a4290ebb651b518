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
import { pageOf, seqCursor } from '../../store/sqlite/collection.js';
import type { Store } from '../../store/sqlite/db.js';
import { PRUNE_BATCH, type DueWork } from '../due.js';
import { enabledEvents, endpointWants } from './endpoints.js';
import { HOUSEKEEPING_WORK } from '../../../contract/limits.js';

interface ListenerRow {
  id: string;
  /** JSON array of event types and patterns */
  enabled_events: string;
  created_ms: number;
  seen_ms: number;
}

export class Listeners implements DueWork {
  readonly name = HOUSEKEEPING_WORK.resends;

  constructor(
    private readonly store: Store,
    /**
     * The server's wall clock, for leases: whether a listener runs is a matter of real time, not of the account's
     * test clock (advancing it a month must not end every lease).
     */
    private readonly wall: () => number = Date.now,
  ) {}

  private view(r: ListenerRow): EventListener {
    return {
      id: r.id,
      object: 'event_listener',
      enabled_events: JSON.parse(r.enabled_events) as string[],
      created: Math.floor(r.created_ms / 1000),
      expires_at: isoTime(r.seen_ms + LISTENER_LEASE_MS),
    };
  }

  private row(accountId: string, id: string): ListenerRow {
    const r = this.store
      .statement('SELECT id, enabled_events, created_ms, seen_ms FROM event_listeners WHERE id = ? AND account_id = ?')
      .get(id, accountId) as ListenerRow | undefined;
    if (!r) throw errors.notFound('event_listener', id, 'listener_id');
    return r;
  }

  /**
   * A new listener of the account, its lease live from now (in the caller's transaction). `enabled_events`: the
   * types it shows (checked as an endpoint's are), so that a resend counts only the listeners that show it.
   */
  register(accountId: string, body: CreateEventListenerBody, now: number): EventListener {
    const patterns = enabledEvents(body.enabled_events ?? ['*']);
    this.forgetStale(accountId);
    const r: ListenerRow = {
      id: newId('evl'),
      enabled_events: JSON.stringify(patterns),
      created_ms: now,
      seen_ms: this.wall(),
    };
    this.store
      .statement(
        'INSERT INTO event_listeners (id, account_id, enabled_events, created_ms, seen_ms) VALUES (?, ?, ?, ?, ?)',
      )
      .run(r.id, accountId, r.enabled_events, r.created_ms, r.seen_ms);
    return this.view(r);
  }

  /**
   * Renews the lease. A listener whose lease ran out meanwhile (its process was suspended, or could not reach the
   * server) runs again from now on; what was resent in between was not queued for it (nor counted).
   */
  renew(accountId: string, id: string): EventListener {
    const r = this.row(accountId, id);
    r.seen_ms = Math.max(r.seen_ms, this.wall());
    this.store.statement('UPDATE event_listeners SET seen_ms = ? WHERE id = ?').run(r.seen_ms, id);
    return this.view(r);
  }

  /** Deletes the listener (it stopped) with its queue. */
  remove(accountId: string, id: string): { id: string; object: 'event_listener'; deleted: true } {
    this.row(accountId, id);
    this.store.statement('DELETE FROM event_resends WHERE listener = ?').run(id);
    this.store.statement('DELETE FROM event_listeners WHERE id = ?').run(id);
    return { id, object: 'event_listener', deleted: true };
  }

  /**
   * Queues the event for every listener of the account whose lease is live and whose enabled_events match it (in
   * the resend's transaction). Returns how many.
   */
  queue(accountId: string, event: { id: string; type: string }, now: number): number {
    this.forgetStale(accountId);
    const live = (
      this.store
        .statement('SELECT id, enabled_events FROM event_listeners WHERE account_id = ? AND seen_ms > ? ORDER BY seq')
        .all(accountId, this.wall() - LISTENER_LEASE_MS) as {
        id: string;
        enabled_events: string;
      }[]
    ).filter((l) => endpointWants(JSON.parse(l.enabled_events) as string[], event.type));
    const insert = this.store.statement(
      'INSERT INTO event_resends (id, account_id, listener, event, created_ms) VALUES (?, ?, ?, ?, ?)',
    );
    for (const l of live) insert.run(newId('evr'), accountId, l.id, event.id, now);
    return live.length;
  }

  /**
   * The listener's queue, newest first, cursors like every list. A resend whose event the log no longer has
   * (past retention) is left out, as a delivery of it would be given up.
   */
  resends(accountId: string, listenerId: string, url: string, q: ListEventResendsQuery): List<EventResend> {
    this.row(accountId, listenerId);
    const limit = q.limit ?? 10;
    const cursor = seqCursor(
      q,
      (id) =>
        (
          this.store.statement('SELECT seq FROM event_resends WHERE id = ? AND listener = ?').get(id, listenerId) as
            | { seq: number }
            | undefined
        )?.seq,
    );
    const after = cursor.params.length === 0 ? '' : cursor.order === 'DESC' ? ' AND r.seq < ?' : ' AND r.seq > ?';
    const from =
      'FROM event_resends r JOIN events e ON e.id = r.event AND e.account_id = r.account_id WHERE r.listener = ?';
    const rows = this.store
      .statement(`SELECT r.id, r.created_ms, e.body ${from}${after} ORDER BY r.seq ${cursor.order} LIMIT ?`)
      .all(listenerId, ...cursor.params, limit + 1) as { id: string; created_ms: number; body: string }[];
    const total = (this.store.statement(`SELECT COUNT(*) AS n ${from}`).get(listenerId) as { n: number }).n;
    const { page, has_more } = pageOf(rows, limit, cursor.order);
    const data = page.map((r): EventResend => ({
      id: r.id,
      object: 'event_resend',
      listener: listenerId,
      created: Math.floor(r.created_ms / 1000),
      event: JSON.parse(r.body) as Event,
    }));
    return { object: 'list', data, has_more, total_count: total, url };
  }

  /** Listeners of the account not renewed for LISTENER_FORGET_MS (killed, crashed): deleted with their queues. */
  private forgetStale(accountId: string): void {
    const before = this.wall() - LISTENER_FORGET_MS;
    this.store
      .statement(
        'DELETE FROM event_resends WHERE listener IN (SELECT id FROM event_listeners WHERE account_id = ? AND seen_ms < ?)',
      )
      .run(accountId, before);
    this.store.statement('DELETE FROM event_listeners WHERE account_id = ? AND seen_ms < ?').run(accountId, before);
  }

  // ---------------------------------------------------------------------------------------- retention

  nextDue(accountId: string): number | undefined {
    const row = this.store
      .statement('SELECT created_ms FROM event_resends WHERE account_id = ? ORDER BY seq LIMIT 1')
      .get(accountId) as { created_ms: number } | undefined;
    return row ? row.created_ms + EVENT_RETENTION_MS : undefined;
  }

  runDue(now: number, accountId?: string, limit?: number): number {
    const n = limit === undefined ? -1 : limit * PRUNE_BATCH;
    const r =
      accountId === undefined
        ? this.store
            .statement(
              'DELETE FROM event_resends WHERE seq IN (SELECT seq FROM event_resends WHERE created_ms <= ? ORDER BY seq LIMIT ?)',
            )
            .run(now - EVENT_RETENTION_MS, n)
        : this.store
            .statement(
              'DELETE FROM event_resends WHERE seq IN (SELECT seq FROM event_resends WHERE account_id = ? AND created_ms <= ? ORDER BY seq LIMIT ?)',
            )
            .run(accountId, now - EVENT_RETENTION_MS, n);
    return r.changes;
  }
}
