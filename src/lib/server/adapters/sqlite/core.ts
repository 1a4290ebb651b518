// The core's persistence in SQLite: accounts and their API keys, the accounts' clocks, payment sessions, and what a
// test trigger reads back of the event log.
import type { AccountsPort, KeyFacts, KeyRow } from '../../domain/accounts.js';
import type { ClockPort } from '../../clock.js';
import type { SecretFacts, SessionsPort, StoredSession } from '../../domain/sessions.js';
import type { TriggerPort } from '../../domain/events.js';
import type { Event } from '../../../contract/events.js';
import type { SqliteDatabase } from './db.js';
import { asyncDocuments, Collection } from './collection.js';
import { tables } from '../../store/tables.js';

export function sqliteAccountsStore(store: SqliteDatabase): AccountsPort {
  const byHash = store.db.prepare('SELECT id, account_id, revoked_ms FROM api_keys WHERE hash = ?');
  // PRAGMA data_version moves when another connection has committed a write to the database file.
  const dataVersion = store.db.prepare('PRAGMA data_version').pluck();
  return {
    keyFacts: async (hash) => byHash.get(hash) as KeyFacts | undefined,
    changeMark: async () => dataVersion.get() as number,
    async addAccount(accountId, createdMs) {
      store.db.prepare('INSERT INTO accounts (id, created_ms) VALUES (?, ?)').run(accountId, createdMs);
    },
    async keepAccount(accountId, createdMs) {
      store.db.prepare('INSERT OR IGNORE INTO accounts (id, created_ms) VALUES (?, ?)').run(accountId, createdMs);
    },
    async addKey(key, hash) {
      store.db
        .prepare('INSERT INTO api_keys (id, account_id, hash, last4, created_ms) VALUES (?, ?, ?, ?, ?)')
        .run(key.id, key.account_id, hash, key.last4, key.created_ms);
    },
    async keyAccount(hash) {
      const row = store.db.prepare('SELECT account_id FROM api_keys WHERE hash = ?').get(hash) as
        | { account_id: string }
        | undefined;
      return row?.account_id;
    },
    async unrevokeKey(hash) {
      store.db.prepare('UPDATE api_keys SET revoked_ms = NULL WHERE hash = ?').run(hash);
    },
    keys: async () =>
      store.db
        .prepare('SELECT id, account_id, last4, created_ms, revoked_ms FROM api_keys ORDER BY created_ms, id')
        .all() as KeyRow[],
    keyByHash: async (hash) =>
      store.db
        .prepare('SELECT id, account_id, last4, created_ms, revoked_ms FROM api_keys WHERE hash = ?')
        .get(hash) as KeyRow | undefined,
    keyById: async (id) =>
      store.db.prepare('SELECT id, account_id, last4, created_ms, revoked_ms FROM api_keys WHERE id = ?').get(id) as
        | KeyRow
        | undefined,
    async revokeKey(id, revokedMs) {
      store.db.prepare('UPDATE api_keys SET revoked_ms = ? WHERE id = ?').run(revokedMs, id);
    },
  };
}

export function sqliteClockStore(store: SqliteDatabase): ClockPort {
  return {
    async offset(accountId) {
      const row = store.db.prepare('SELECT clock_offset_ms FROM accounts WHERE id = ?').get(accountId) as
        | { clock_offset_ms: number }
        | undefined;
      return row?.clock_offset_ms;
    },
    offsets: async () =>
      (
        store.db.prepare('SELECT id, clock_offset_ms FROM accounts WHERE clock_offset_ms != 0').all() as {
          id: string;
          clock_offset_ms: number;
        }[]
      ).map((r): [string, number] => [r.id, r.clock_offset_ms]),
    async setOffset(accountId, offsetMs) {
      store.db.prepare('UPDATE accounts SET clock_offset_ms = ? WHERE id = ?').run(offsetMs, accountId);
    },
    accounts: async () => (store.db.prepare('SELECT id FROM accounts').all() as { id: string }[]).map((r) => r.id),
  };
}

/** What client-secret authentication reads of a session: the row's columns and its form, not the whole document. */
const SECRET_FACTS =
  "SELECT account_id, expires_ms, secret_hash, json_extract(data, '$.secret_form') AS form FROM payment_sessions WHERE id = ?";

export function sqliteSessionsStore(store: SqliteDatabase): SessionsPort {
  const sessions = new Collection<StoredSession>(store, tables.payment_sessions);
  return {
    sessions: asyncDocuments(sessions),
    secretFacts: async (id) => store.statement(SECRET_FACTS).get(id) as SecretFacts | undefined,
    find: async (id) => sessions.selectWhere('id = ?', id)[0],
    async nextExpiry(accountId, statuses) {
      // One MIN per status: each is a single seek on (account_id, status, expires_ms); an IN list would scan.
      const row = store.db
        .prepare(
          `SELECT MIN(t) AS t FROM (${statuses.map(() => 'SELECT MIN(expires_ms) AS t FROM payment_sessions WHERE account_id = ? AND status = ?').join(' UNION ALL ')})`,
        )
        .get(...statuses.flatMap((s) => [accountId, s])) as { t: number | null };
      return row.t ?? undefined;
    },
    async expiring(statuses, now, accountId, limit) {
      const cond = `status IN (${statuses.map(() => '?').join(', ')}) AND expires_ms <= ?${accountId ? ' AND account_id = ?' : ''}`;
      return sessions.selectFirst(limit, cond, ...statuses, now, ...(accountId ? [accountId] : []));
    },
    async expiringInOrder(accountId, statuses, until, limit) {
      if (statuses.length === 0 || limit < 1) return [];
      // Each status's first `limit` in the order of its index (account_id, status, expires_ms, and seq: the rowid),
      // merged: an IN list would read every row due and sort them all.
      const part =
        'SELECT * FROM (SELECT data, expires_ms, seq FROM payment_sessions WHERE account_id = ? AND status = ? AND expires_ms <= ? ORDER BY expires_ms, seq LIMIT ?)';
      const n = Math.trunc(limit);
      return sessions.selectDocs(
        `SELECT data FROM (${statuses.map(() => part).join(' UNION ALL ')}) ORDER BY expires_ms, seq LIMIT ?`,
        ...statuses.flatMap((st) => [accountId, st, until, n]),
        n,
      );
    },
    async updateAll(accountId, docs) {
      for (const doc of docs) sessions.update(accountId, doc);
    },
  };
}

export function sqliteTriggerStore(store: SqliteDatabase): TriggerPort {
  return {
    // The mark is the event log's last seq (one writer at a time: nothing else records in between).
    lastEvent: async () =>
      (store.db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM events').get() as { seq: number }).seq,
    eventsAfter: async (accountId, after) =>
      (
        store.db
          .prepare('SELECT body FROM events WHERE account_id = ? AND seq > ? ORDER BY seq')
          .all(accountId, after) as { body: string }[]
      ).map((r) => JSON.parse(r.body) as Event),
  };
}
