// The webhooks area's persistence in SQLite: endpoints and their dispatch cursors (webhook_cursors), the delivery
// outbox (webhook_deliveries, and webhook_event_bodies for events that left the log while a delivery of them was
// pending), and the listeners with their queues of resends (event_listeners, event_resends).
import type { WebhookDelivery } from '../../../contract/webhooks.js';
import type { Event } from '../../../contract/events.js';
import type { StoredEndpoint, WebhookEndpointPort } from '../../domain/webhooks/endpoints.js';
import type { ClaimedDelivery, OutboxPort } from '../../domain/webhooks/deliveries.js';
import type { ListenerPort } from '../../domain/webhooks/listeners.js';
import type { WebhooksPort } from '../../domain/webhooks/persistence.js';
import type { SqliteDatabase } from './db.js';
import { asyncDocuments, Collection, seqKeyset } from './collection.js';
import { tables } from '../../store/tables.js';

export function sqliteWebhooksStore(store: SqliteDatabase): WebhooksPort {
  return {
    endpoints: sqliteEndpointStore(store),
    outbox: sqliteOutboxStore(store),
    listeners: sqliteListenerStore(store),
  };
}

function sqliteEndpointStore(store: SqliteDatabase): WebhookEndpointPort {
  const endpoints = new Collection<StoredEndpoint>(store, tables.webhook_endpoints);
  return {
    endpoints: asyncDocuments(endpoints),
    async count(accountId) {
      return (
        store.db.prepare('SELECT COUNT(*) AS n FROM webhook_endpoints WHERE account_id = ?').get(accountId) as {
          n: number;
        }
      ).n;
    },
    async ofAccount(accountId) {
      return endpoints.selectWhere('account_id = ?', accountId).map((r) => r.doc);
    },
    async openCursor(endpointId) {
      const last = (store.db.prepare('SELECT MAX(seq) AS seq FROM events').get() as { seq: number | null }).seq ?? 0;
      store.db.prepare('INSERT INTO webhook_cursors (webhook_endpoint, event_seq) VALUES (?, ?)').run(endpointId, last);
    },
    async dropCursor(endpointId) {
      store.db.prepare('DELETE FROM webhook_cursors WHERE webhook_endpoint = ?').run(endpointId);
    },
  };
}

function sqliteOutboxStore(store: SqliteDatabase): OutboxPort {
  const deliveries = new Collection<WebhookDelivery>(store, tables.webhook_deliveries);

  /** Forgets a kept body once no delivery of its event is pending any more. */
  const releaseBody = (accountId: string, eventId: string): void => {
    store
      .statement(
        "DELETE FROM webhook_event_bodies WHERE event = ? AND account_id = ? AND NOT EXISTS (SELECT 1 FROM webhook_deliveries WHERE account_id = ? AND event = ? AND status = 'pending')",
      )
      .run(eventId, accountId, accountId, eventId);
  };

  return {
    deliveries: asyncDocuments(deliveries),

    async keepBodyIfPending(accountId, eventId, body) {
      const pending = store
        .statement("SELECT 1 FROM webhook_deliveries WHERE account_id = ? AND event = ? AND status = 'pending' LIMIT 1")
        .get(accountId, eventId);
      if (pending)
        store
          .statement('INSERT OR REPLACE INTO webhook_event_bodies (event, account_id, body) VALUES (?, ?, ?)')
          .run(eventId, accountId, body);
    },

    /** One write transaction at a time: the delivery read pending in it is still pending here. */
    async recordAttempt(accountId, d) {
      const updated = deliveries.update(accountId, d);
      if (d.status !== 'pending') releaseBody(accountId, d.event);
      return updated;
    },

    async pendingOf(accountId, endpointId) {
      return deliveries
        .selectWhere("account_id = ? AND webhook_endpoint = ? AND status = 'pending'", accountId, endpointId)
        .map((r) => r.doc);
    },

    async accounts() {
      return (
        store.statement('SELECT DISTINCT account_id FROM webhook_deliveries').all() as { account_id: string }[]
      ).map((r) => r.account_id);
    },

    async oldestDone(accountId, n) {
      const rows = store
        .statement(
          "SELECT data FROM webhook_deliveries INDEXED BY webhook_deliveries_done WHERE account_id = ? AND status != 'pending' ORDER BY seq LIMIT ?",
        )
        .all(accountId, n) as { data: string }[];
      return rows.map((r) => JSON.parse(r.data) as WebhookDelivery);
    },

    /** SQLite runs one write transaction at a time: the caller's holds every cursor until it ends. */
    async claimCursors(accountId) {
      const rows = (
        accountId === undefined
          ? store
              .statement(
                'SELECT c.webhook_endpoint, c.event_seq, e.account_id, e.data FROM webhook_cursors c JOIN webhook_endpoints e ON e.id = c.webhook_endpoint',
              )
              .all()
          : store
              .statement(
                'SELECT c.webhook_endpoint, c.event_seq, e.account_id, e.data FROM webhook_endpoints e JOIN webhook_cursors c ON c.webhook_endpoint = e.id WHERE e.account_id = ?',
              )
              .all(accountId)
      ) as { webhook_endpoint: string; event_seq: number; account_id: string; data: string }[];
      return rows.map((r) => ({
        endpointId: r.webhook_endpoint,
        eventSeq: r.event_seq,
        accountId: r.account_id,
        endpoint: JSON.parse(r.data) as StoredEndpoint,
      }));
    },

    async eventsAfter(accountId, afterSeq, uptoSeq, n) {
      return (
        uptoSeq === undefined
          ? store
              .statement(
                'SELECT seq, id, type, created_ms FROM events WHERE account_id = ? AND seq > ? ORDER BY seq LIMIT ?',
              )
              .all(accountId, afterSeq, n)
          : store
              .statement(
                'SELECT seq, id, type, created_ms FROM events WHERE account_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?',
              )
              .all(accountId, afterSeq, uptoSeq, n)
      ) as { seq: number; id: string; type: string; created_ms: number }[];
    },

    async moveCursor(endpointId, eventSeq) {
      store.statement('UPDATE webhook_cursors SET event_seq = ? WHERE webhook_endpoint = ?').run(eventSeq, endpointId);
    },

    async allEndpoints() {
      const rows = store.statement('SELECT account_id, data FROM webhook_endpoints ORDER BY seq').all() as {
        account_id: string;
        data: string;
      }[];
      return rows.map((r) => ({ accountId: r.account_id, endpoint: JSON.parse(r.data) as StoredEndpoint }));
    },

    /**
     * One server dispatches an SQLite database: the claim is this read, and the dispatcher remembers (`afterSeq`)
     * what it handed on until the outcomes are recorded.
     */
    async claimDue(accountId, endpointId, now, max, afterSeq) {
      // In seq order through the (account, endpoint, status, seq) index, stopping after `max` due ones: SQLite's own
      // choice (the pending index by time, then a sort by seq) reads the whole backlog every time.
      return store
        .statement(
          `SELECT d.seq, d.id, d.event, json_extract(d.data, '$.event_type') AS type, COALESCE(ev.body, kept.body) AS body
         FROM webhook_deliveries d INDEXED BY webhook_deliveries_webhook_endpoint_status
         LEFT JOIN events ev ON ev.id = d.event
         LEFT JOIN webhook_event_bodies kept ON kept.event = d.event
         WHERE d.account_id = ? AND d.webhook_endpoint = ? AND d.status = 'pending' AND d.seq > ? AND d.next_attempt_ms <= ? ORDER BY d.seq LIMIT ?`,
        )
        .all(accountId, endpointId, afterSeq, now, max) as ClaimedDelivery[];
    },

    // One server dispatches an SQLite database: it holds no claim in it.
    async releaseClaims() {},

    async nextRetry(endpointId, now) {
      const row = store
        .statement(
          "SELECT MIN(next_attempt_ms) AS at FROM webhook_deliveries WHERE webhook_endpoint = ? AND status = 'pending' AND next_attempt_ms > ?",
        )
        .get(endpointId, now) as { at: number | null };
      return row.at ?? undefined;
    },
  };
}

function sqliteListenerStore(store: SqliteDatabase): ListenerPort {
  return {
    async insert(accountId, l) {
      store
        .statement(
          'INSERT INTO event_listeners (id, account_id, enabled_events, created_ms, seen_ms) VALUES (?, ?, ?, ?, ?)',
        )
        .run(l.id, accountId, JSON.stringify(l.enabled_events), l.created_ms, l.seen_ms);
    },

    async get(accountId, id) {
      const r = store
        .statement(
          'SELECT id, enabled_events, created_ms, seen_ms FROM event_listeners WHERE id = ? AND account_id = ?',
        )
        .get(id, accountId) as { id: string; enabled_events: string; created_ms: number; seen_ms: number } | undefined;
      return r && { ...r, enabled_events: JSON.parse(r.enabled_events) as string[] };
    },

    async renew(id, seenMs) {
      store.statement('UPDATE event_listeners SET seen_ms = ? WHERE id = ?').run(seenMs, id);
    },

    async remove(id) {
      store.statement('DELETE FROM event_resends WHERE listener = ?').run(id);
      store.statement('DELETE FROM event_listeners WHERE id = ?').run(id);
    },

    async forgetSeenBefore(accountId, before) {
      store
        .statement(
          'DELETE FROM event_resends WHERE listener IN (SELECT id FROM event_listeners WHERE account_id = ? AND seen_ms < ?)',
        )
        .run(accountId, before);
      store.statement('DELETE FROM event_listeners WHERE account_id = ? AND seen_ms < ?').run(accountId, before);
    },

    async seenSince(accountId, since) {
      const rows = store
        .statement('SELECT id, enabled_events FROM event_listeners WHERE account_id = ? AND seen_ms > ? ORDER BY seq')
        .all(accountId, since) as { id: string; enabled_events: string }[];
      return rows.map((r) => ({ id: r.id, enabled_events: JSON.parse(r.enabled_events) as string[] }));
    },

    async queue(accountId, eventId, resends, now) {
      const insert = store.statement(
        'INSERT INTO event_resends (id, account_id, listener, event, created_ms) VALUES (?, ?, ?, ?, ?)',
      );
      for (const r of resends) insert.run(r.id, accountId, r.listener, eventId, now);
    },

    async resends(listenerId, q) {
      const {
        keyset: k,
        cond,
        params,
      } = seqKeyset(store, 'event_resends', 'listener', listenerId, q, { column: 'r.seq' });
      const from =
        'FROM event_resends r JOIN events e ON e.id = r.event AND e.account_id = r.account_id WHERE r.listener = ?';
      const rows = store
        .statement(`SELECT r.id, r.created_ms, e.body ${from}${cond} ORDER BY r.seq ${k.order} LIMIT ?`)
        .all(listenerId, ...params, k.fetch) as { id: string; created_ms: number; body: string }[];
      const total = (store.statement(`SELECT COUNT(*) AS n ${from}`).get(listenerId) as { n: number }).n;
      const { page, has_more } = k.page(rows);
      const data = page.map((r) => ({ id: r.id, created_ms: r.created_ms, event: JSON.parse(r.body) as Event }));
      return { data, has_more, total_count: total };
    },

    async oldestResendMs(accountId) {
      const row = store
        .statement('SELECT created_ms FROM event_resends WHERE account_id = ? ORDER BY seq LIMIT 1')
        .get(accountId) as { created_ms: number } | undefined;
      return row?.created_ms;
    },

    async pruneResends(before, n, accountId) {
      const r =
        accountId === undefined
          ? store
              .statement(
                'DELETE FROM event_resends WHERE seq IN (SELECT seq FROM event_resends WHERE created_ms <= ? ORDER BY seq LIMIT ?)',
              )
              .run(before, n)
          : store
              .statement(
                'DELETE FROM event_resends WHERE seq IN (SELECT seq FROM event_resends WHERE account_id = ? AND created_ms <= ? ORDER BY seq LIMIT ?)',
              )
              .run(accountId, before, n);
      return r.changes;
    },
  };
}
