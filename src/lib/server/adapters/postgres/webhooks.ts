// The webhooks area's persistence on PostgreSQL (the same answers as adapters/sqlite/webhooks.ts) for any number of
// server processes on one database; docs/api.md ("What the server needs of PostgreSQL: transactions") has the rules.
// What keeps the outbox's promises across processes:
// - Cursors never skip: an endpoint's cursor reads its own account's events, which commit in number order (the
//   account's log lock, events.ts; listeners' resends take it too). A new endpoint's cursor starts after its own
//   account's last event (not every account's, as on SQLite: one of its account still in flight is not passed over).
// - The dispatcher's scan locks the cursors it advances (FOR UPDATE SKIP LOCKED); retention's scan of an account
//   waits for them instead (it must see every cursor before events are deleted).
// - One process serves an endpoint at a time: a claim takes the endpoint's webhook_endpoint_claims row in the same
//   statement (SKIP LOCKED: never waits for another process) if it is free, this process's, or held by a process
//   that has not beaten for CLAIM_LEASE_MS and claimed it over a lease ago (a beat undone with its transaction must
//   not leave a fresh claim unguarded). It is freed when a fresh turn (afterSeq 0) finds nothing due.
// - Beats (webhook_dispatchers.seen_ms, the database's clock) at most once a second while the dispatcher scans or
//   claims; no claim is renewed row by row, so nothing the dispatcher records conflicts with a beat.
// The claim writes: claim in a write transaction that commits before the batch goes to the sender (25006 otherwise).
import { randomUUID } from 'node:crypto';
import type { Event } from '../../../contract/events.js';
import type { StoredEndpoint, WebhookEndpointPort } from '../../domain/webhooks/endpoints.js';
import type { ClaimedDelivery, OutboxPort } from '../../domain/webhooks/deliveries.js';
import type { ListenerPort } from '../../domain/webhooks/listeners.js';
import type { WebhooksPort } from '../../domain/webhooks/persistence.js';
import type { PostgresDatabase } from './db.js';
import { pgDocuments, pgKeyset } from './documents.js';
import { accountLogLock } from './events.js';
import { tables, type TableDef } from '../../store/tables.js';
import type { WebhookDelivery } from '../../../contract/webhooks.js';
import { bind, pgQuery, type Value } from './query.js';

/** How long a process may go without beating before its endpoints are taken over (ms, the database's clock). */
export const CLAIM_LEASE_MS = 10_000;
/** A process beats at most this often (ms). */
const BEAT_EVERY_MS = 1000;
/** The database's clock, in ms. */
const DB_NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

export interface PgWebhooksOptions {
  /** This process's name among the dispatchers (default: a random UUID per store). */
  dispatcherId?: string;
}

export function pgWebhooksStore(store: PostgresDatabase, opts: PgWebhooksOptions = {}): WebhooksPort {
  return {
    endpoints: pgEndpointStore(store),
    outbox: pgOutboxStore(store, opts.dispatcherId ?? randomUUID()),
    listeners: pgListenerStore(store),
  };
}

function pgEndpointStore(store: PostgresDatabase): WebhookEndpointPort {
  const endpoints = pgDocuments<StoredEndpoint>(store, tables.webhook_endpoints as unknown as TableDef<StoredEndpoint>);
  return {
    endpoints,
    async count(accountId) {
      const rows = await pgQuery<{ n: number }>(
        store.current(),
        'SELECT COUNT(*) AS n FROM webhook_endpoints WHERE account_id = $1',
        [accountId],
      );
      return rows[0]!.n;
    },
    async ofAccount(accountId) {
      const rows = await pgQuery<{ data: string }>(
        store.current(),
        'SELECT data FROM webhook_endpoints WHERE account_id = $1 ORDER BY seq',
        [accountId],
      );
      return rows.map((r) => JSON.parse(r.data) as StoredEndpoint);
    },
    async openCursor(endpointId) {
      // After the endpoint's own account's last event (the cursor reads only that account's events); an endpoint
      // not stored (never, from the domain) after every account's, as on SQLite.
      await pgQuery(
        store.current(),
        `INSERT INTO webhook_cursors (webhook_endpoint, event_seq) SELECT $1::text, COALESCE(CASE WHEN EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = $1) THEN (SELECT MAX(ev.seq) FROM events ev WHERE ev.account_id = (SELECT account_id FROM webhook_endpoints WHERE id = $1)) ELSE (SELECT MAX(seq) FROM events) END, 0)`,
        [endpointId],
      );
      await pgQuery(store.current(), 'INSERT INTO webhook_endpoint_claims (webhook_endpoint) VALUES ($1)', [
        endpointId,
      ]);
    },
    async dropCursor(endpointId) {
      await pgQuery(store.current(), 'DELETE FROM webhook_cursors WHERE webhook_endpoint = $1', [endpointId]);
      await pgQuery(store.current(), 'DELETE FROM webhook_endpoint_claims WHERE webhook_endpoint = $1', [endpointId]);
    },
  };
}

function pgOutboxStore(store: PostgresDatabase, me: string): OutboxPort {
  const deliveries = pgDocuments<WebhookDelivery>(
    store,
    tables.webhook_deliveries as unknown as TableDef<WebhookDelivery>,
  );
  let lastBeat = -Infinity;
  // A beat undone (its transaction rolled back) is made again by the next claim or scan.
  store.onRollback(() => {
    lastBeat = -Infinity;
  });

  /** Tells the other processes this one is alive (at most once a second), in the caller's write transaction. */
  const beat = async (): Promise<void> => {
    const now = Date.now();
    if (now - lastBeat < BEAT_EVERY_MS) return;
    lastBeat = now;
    await pgQuery(
      store.current(),
      `INSERT INTO webhook_dispatchers (id, seen_ms) VALUES ($1, ${DB_NOW_MS}) ON CONFLICT (id) DO UPDATE SET seen_ms = EXCLUDED.seen_ms`,
      [me],
    );
  };

  /**
   * Forgets a kept body once no delivery of its event is pending any more. The body's row is written first: of two
   * transactions each finishing one of an event's last two pending deliveries (each sees the other's still pending),
   * the second is aborted and runs again, and then sees none pending.
   */
  const releaseBody = async (accountId: string, eventId: string): Promise<void> => {
    const kept = await pgQuery(
      store.current(),
      'UPDATE webhook_event_bodies SET account_id = account_id WHERE event = $1 AND account_id = $2 RETURNING event',
      [eventId, accountId],
    );
    if (kept.length === 0) return;
    await pgQuery(
      store.current(),
      "DELETE FROM webhook_event_bodies WHERE event = $1 AND account_id = $2 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries WHERE account_id = $2 AND event = $1 AND status = 'pending')",
      [eventId, accountId],
    );
  };

  const due =
    "d.account_id = $1 AND d.webhook_endpoint = $2 AND d.status = 'pending' AND d.seq > $3 AND d.next_attempt_ms <= $4";
  // The endpoint, taken in the same statement as its deliveries: its claim row locked (another process's claim
  // in flight is passed over) and taken when free, this process's already, or held by a process gone quiet.
  const claimSql = `WITH claim AS (
  UPDATE webhook_endpoint_claims c SET dispatcher = $6, claimed_ms = ${DB_NOW_MS}
  WHERE c.webhook_endpoint = (
    SELECT f.webhook_endpoint FROM webhook_endpoint_claims f
    WHERE f.webhook_endpoint = $2
      AND (f.dispatcher IS NULL OR f.dispatcher = $6 OR (f.claimed_ms <= ${DB_NOW_MS} - ${CLAIM_LEASE_MS} AND NOT EXISTS (
        SELECT 1 FROM webhook_dispatchers p WHERE p.id = f.dispatcher AND p.seen_ms > ${DB_NOW_MS} - ${CLAIM_LEASE_MS})))
      AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE ${due})
    FOR UPDATE SKIP LOCKED)
  RETURNING c.webhook_endpoint
)
SELECT d.seq, d.id, d.event, (d.data::jsonb)->>'event_type' AS type, COALESCE(ev.body, kept.body) AS body
FROM webhook_deliveries d
LEFT JOIN events ev ON ev.id = d.event
LEFT JOIN webhook_event_bodies kept ON kept.event = d.event
WHERE EXISTS (SELECT 1 FROM claim) AND ${due}
ORDER BY d.seq LIMIT $5`;

  return {
    deliveries,

    async keepBodyIfPending(accountId, eventId, body) {
      await pgQuery(
        store.current(),
        "INSERT INTO webhook_event_bodies (event, account_id, body) SELECT $1::text, $2::text, $3::text WHERE EXISTS (SELECT 1 FROM webhook_deliveries WHERE account_id = $2 AND event = $1 AND status = 'pending') ON CONFLICT (event) DO UPDATE SET account_id = EXCLUDED.account_id, body = EXCLUDED.body",
        [eventId, accountId, body],
      );
    },

    /**
     * The delivery was read pending in this transaction: under REPEATABLE READ, if another transaction wrote it
     * since, this write is aborted (40001) and the caller runs again — an outcome is recorded once.
     */
    async recordAttempt(accountId, d) {
      const updated = await deliveries.update(accountId, d);
      if (d.status !== 'pending') await releaseBody(accountId, d.event);
      return updated;
    },

    async pendingOf(accountId, endpointId) {
      const rows = await pgQuery<{ data: string }>(
        store.current(),
        "SELECT data FROM webhook_deliveries WHERE account_id = $1 AND webhook_endpoint = $2 AND status = 'pending' ORDER BY seq",
        [accountId, endpointId],
      );
      return rows.map((r) => JSON.parse(r.data));
    },

    async accounts() {
      const rows = await pgQuery<{ account_id: string }>(
        store.current(),
        'SELECT DISTINCT account_id FROM webhook_deliveries',
      );
      return rows.map((r) => r.account_id);
    },

    async oldestDone(accountId, n) {
      const rows = await pgQuery<{ data: string }>(
        store.current(),
        "SELECT data FROM webhook_deliveries WHERE account_id = $1 AND status != 'pending' ORDER BY seq LIMIT $2",
        [accountId, n],
      );
      return rows.map((r) => JSON.parse(r.data));
    },

    /**
     * The dispatcher's scan (every account) passes over cursors another scan holds; retention's (one account)
     * waits for them, since it must look at every cursor before it deletes events.
     */
    async claimCursors(accountId) {
      const rows =
        accountId === undefined
          ? await pgQuery<{ webhook_endpoint: string; event_seq: number; account_id: string; data: string }>(
              store.current(),
              'SELECT c.webhook_endpoint, c.event_seq, e.account_id, e.data FROM webhook_cursors c JOIN webhook_endpoints e ON e.id = c.webhook_endpoint ORDER BY c.webhook_endpoint COLLATE "C" FOR UPDATE OF c SKIP LOCKED',
            )
          : await pgQuery<{ webhook_endpoint: string; event_seq: number; account_id: string; data: string }>(
              store.current(),
              'SELECT c.webhook_endpoint, c.event_seq, e.account_id, e.data FROM webhook_endpoints e JOIN webhook_cursors c ON c.webhook_endpoint = e.id WHERE e.account_id = $1 ORDER BY e.seq FOR UPDATE OF c',
              [accountId],
            );
      if (accountId === undefined) await beat();
      return rows.map((r) => ({
        endpointId: r.webhook_endpoint,
        eventSeq: r.event_seq,
        accountId: r.account_id,
        endpoint: JSON.parse(r.data) as StoredEndpoint,
      }));
    },

    async eventsAfter(accountId, afterSeq, uptoSeq, n) {
      return uptoSeq === undefined
        ? pgQuery<{ seq: number; id: string; type: string; created_ms: number }>(
            store.current(),
            'SELECT seq, id, type, created_ms FROM events WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
            [accountId, afterSeq, n],
          )
        : pgQuery<{ seq: number; id: string; type: string; created_ms: number }>(
            store.current(),
            'SELECT seq, id, type, created_ms FROM events WHERE account_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4',
            [accountId, afterSeq, uptoSeq, n],
          );
    },

    async moveCursor(endpointId, eventSeq) {
      await pgQuery(store.current(), 'UPDATE webhook_cursors SET event_seq = $1 WHERE webhook_endpoint = $2', [
        eventSeq,
        endpointId,
      ]);
    },

    async allEndpoints() {
      const rows = await pgQuery<{ account_id: string; data: string }>(
        store.current(),
        'SELECT account_id, data FROM webhook_endpoints ORDER BY seq',
      );
      return rows.map((r) => ({ accountId: r.account_id, endpoint: JSON.parse(r.data) as StoredEndpoint }));
    },

    async claimDue(accountId, endpointId, now, max, afterSeq) {
      await beat();
      const rows = await pgQuery<ClaimedDelivery>(store.current(), claimSql, [
        accountId,
        endpointId,
        afterSeq,
        now,
        max,
        me,
      ]);
      // A fresh turn (nothing of the endpoint with this process's sender) found nothing due: the endpoint is free.
      if (rows.length === 0 && afterSeq === 0)
        await pgQuery(
          store.current(),
          'UPDATE webhook_endpoint_claims SET dispatcher = NULL, claimed_ms = NULL WHERE webhook_endpoint = $1 AND dispatcher = $2',
          [endpointId, me],
        );
      return rows.map((r) => ({ seq: r.seq, id: r.id, event: r.event, type: r.type, body: r.body }));
    },

    async releaseClaims() {
      await pgQuery(
        store.current(),
        'UPDATE webhook_endpoint_claims SET dispatcher = NULL, claimed_ms = NULL WHERE dispatcher = $1',
        [me],
      );
      await pgQuery(store.current(), 'DELETE FROM webhook_dispatchers WHERE id = $1', [me]);
    },

    async nextRetry(endpointId, now) {
      const rows = await pgQuery<{ at: number | null }>(
        store.current(),
        "SELECT MIN(next_attempt_ms) AS at FROM webhook_deliveries WHERE webhook_endpoint = $1 AND status = 'pending' AND next_attempt_ms > $2",
        [endpointId, now],
      );
      return rows[0]?.at ?? undefined;
    },
  };
}

function pgListenerStore(store: PostgresDatabase): ListenerPort {
  return {
    async insert(accountId, l) {
      await pgQuery(
        store.current(),
        'INSERT INTO event_listeners (id, account_id, enabled_events, created_ms, seen_ms) VALUES ($1, $2, $3, $4, $5)',
        [l.id, accountId, JSON.stringify(l.enabled_events), l.created_ms, l.seen_ms],
      );
    },

    async get(accountId, id) {
      const rows = await pgQuery<{ id: string; enabled_events: string; created_ms: number; seen_ms: number }>(
        store.current(),
        'SELECT id, enabled_events, created_ms, seen_ms FROM event_listeners WHERE id = $1 AND account_id = $2',
        [id, accountId],
      );
      const r = rows[0];
      return r && { ...r, enabled_events: JSON.parse(r.enabled_events) as string[] };
    },

    async renew(id, seenMs) {
      await pgQuery(store.current(), 'UPDATE event_listeners SET seen_ms = $1 WHERE id = $2', [seenMs, id]);
    },

    async remove(id) {
      await pgQuery(store.current(), 'DELETE FROM event_resends WHERE listener = $1', [id]);
      await pgQuery(store.current(), 'DELETE FROM event_listeners WHERE id = $1', [id]);
    },

    async forgetSeenBefore(accountId, before) {
      await pgQuery(
        store.current(),
        'DELETE FROM event_resends WHERE listener IN (SELECT id FROM event_listeners WHERE account_id = $1 AND seen_ms < $2)',
        [accountId, before],
      );
      await pgQuery(store.current(), 'DELETE FROM event_listeners WHERE account_id = $1 AND seen_ms < $2', [
        accountId,
        before,
      ]);
    },

    async seenSince(accountId, since) {
      const rows = await pgQuery<{ id: string; enabled_events: string }>(
        store.current(),
        'SELECT id, enabled_events FROM event_listeners WHERE account_id = $1 AND seen_ms > $2 ORDER BY seq',
        [accountId, since],
      );
      return rows.map((r) => ({ id: r.id, enabled_events: JSON.parse(r.enabled_events) as string[] }));
    },

    /**
     * One statement for all the listeners, under the account's log lock (events.ts): a listener's queue commits in
     * the order of its numbers, so a `listen` paging forward never passes over a resend.
     */
    async queue(accountId, eventId, resends, now) {
      if (resends.length === 0) return;
      await pgQuery(
        store.current(),
        `INSERT INTO event_resends (id, account_id, listener, event, created_ms) SELECT r.id, $1::text, r.listener, $2::text, $3::bigint FROM ${accountLogLock(1)}, unnest($4::text[], $5::text[]) WITH ORDINALITY AS r(id, listener, n) ORDER BY r.n`,
        [accountId, eventId, now, resends.map((r) => r.id) as never, resends.map((r) => r.listener) as never],
      );
    },

    async resends(listenerId, q) {
      const h = store.current();
      const from =
        'FROM event_resends r JOIN events e ON e.id = r.event AND e.account_id = r.account_id WHERE r.listener = $1';
      const args: Value[] = [listenerId];
      const { keyset: k, cond } = await pgKeyset(h, 'event_resends', 'listener', listenerId, q, args, {
        column: 'r.seq',
      });
      const [rows, total] = await Promise.all([
        pgQuery<{ id: string; created_ms: number; body: string }>(
          h,
          `SELECT r.id, r.created_ms, e.body ${from}${cond} ORDER BY r.seq ${k.order} LIMIT ${bind(args, k.fetch)}`,
          args,
        ),
        pgQuery<{ n: number }>(h, `SELECT COUNT(*) AS n ${from}`, [listenerId]),
      ]);
      const { page, has_more } = k.page(rows);
      const data = page.map((r) => ({ id: r.id, created_ms: r.created_ms, event: JSON.parse(r.body) as Event }));
      return { data, has_more, total_count: total[0]!.n };
    },

    async oldestResendMs(accountId) {
      const rows = await pgQuery<{ created_ms: number }>(
        store.current(),
        'SELECT created_ms FROM event_resends WHERE account_id = $1 ORDER BY seq LIMIT 1',
        [accountId],
      );
      return rows[0]?.created_ms;
    },

    async pruneResends(before, n, accountId) {
      // LIMIT NULL is no limit (n = -1: all).
      const limit = (n < 0 ? null : n) as number;
      const r =
        accountId === undefined
          ? await pgQuery(
              store.current(),
              'DELETE FROM event_resends WHERE seq IN (SELECT seq FROM event_resends WHERE created_ms <= $1 ORDER BY seq LIMIT $2)',
              [before, limit],
            )
          : await pgQuery(
              store.current(),
              'DELETE FROM event_resends WHERE seq IN (SELECT seq FROM event_resends WHERE account_id = $1 AND created_ms <= $2 ORDER BY seq LIMIT $3)',
              [accountId, before, limit],
            );
      return r.count;
    },
  };
}
