// The event log (docs/api.md "Events and webhooks"). An area records an event in the transaction of the change
// it describes, so an event exists exactly when its change committed: a rolled-back change (a failing request,
// a group commit's re-run, a crash before COMMIT) leaves none, and a re-run records it once more with the rest.
// Readers of the log (GET /events, the webhook dispatcher, `payorch listen`) learn of new events after COMMIT.
import type { Statement } from 'better-sqlite3';
import type { Store } from '../store/sqlite/db.js';
import type { Clock } from '../clock.js';
import { isoTime } from '../clock.js';
import { PRUNE_BATCH, type DueWork } from './due.js';
import { newId } from '../ids.js';
import { errors } from '../errors.js';
import { pageOf, seqCursor } from '../store/sqlite/collection.js';
import { LongRead } from '../store/sqlite/longread.js';
import type { List } from '../../contract/common.js';
import { EVENT_RETENTION_MS, type Event, type EventType, type ListEventsQuery } from '../../contract/events.js';
import { HOUSEKEEPING_WORK } from '../../contract/limits.js';

/** The live service's top-level fields of payment and refund events. */
export interface PaymentEventFields {
  session_id: string | null;
  amount: number;
  currency: string;
  psp: string | null;
  /** refund events: the refund */
  refund?: object;
}

export interface RecordOptions {
  /** The object before the change: the top-level fields the change altered become `data.previous_attributes`. */
  previous?: object;
  /** Payment and refund events. */
  payment?: PaymentEventFields;
  /** When the change happened (ms on the account clock); now when absent. */
  at?: number;
  /** `JSON.stringify(object)`, when the caller has it already. */
  json?: string;
  /**
   * The id `GET /events?object_id=` finds the event by, for an object without one of its own (invoice.upcoming:
   * its subscription's).
   */
  objectId?: string;
}

/**
 * The fields of `prev` (a snapshot of the object before the change, whole or only the fields the change may
 * alter) whose values differ in `next`, with their values before; undefined when none changed.
 */
export function previousAttributes(prev: object, next: object): Record<string, unknown> | undefined {
  const p = prev as Record<string, unknown>;
  const n = next as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(p)) {
    const before = p[key];
    const after = n[key];
    if (before === after) continue;
    if (typeof before === 'object' && typeof after === 'object' && JSON.stringify(before) === JSON.stringify(after))
      continue;
    (out ??= {})[key] = before === undefined ? null : before;
  }
  return out;
}

/**
 * `JSON.stringify(event)`, with `objectJson` (the text of `event.data.object`) used as it is when given for an
 * event with nothing but the object (the case of a created object): the members in the order `record` sets
 * them. The id and type need no escaping (base62; `[a-z_.]`).
 */
function eventJson(event: Event, objectJson: string | undefined): string {
  if (objectJson === undefined || event.data.previous_attributes !== undefined || event.transaction_id !== undefined)
    return JSON.stringify(event);
  return `{"id":"${event.id}","object":"event","type":"${event.type}","created":${event.created},"livemode":false,"data":{"object":${objectJson}}}`;
}

/** What retention tells those who still need events it deletes (Events.onPrune). */
export interface PruneListener {
  before(accountId: string, lastSeq: number): void;
  gone(accountId: string, eventId: string, body: string): void;
}

/** Events of the open transaction kept for recordedAs (a request records a few; only its own are looked at). */
const RECENT = 8;
const DATA_OBJECT = '"data":{"object":';

export class Events implements DueWork {
  readonly name = HOUSEKEEPING_WORK.events;
  private insertStmt?: Statement;
  /** Whether the open transaction recorded an event (cleared at COMMIT and at rollback). */
  private recorded = false;
  private readonly committedListeners: (() => void)[] = [];
  private waiters: (() => void)[] = [];
  /** The last few events the open transaction recorded (see recordedAs); emptied at COMMIT and rollback. */
  private recent: { id: string; objectId: string; body: string }[] = [];
  private readonly pruneListeners: PruneListener[] = [];

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    store.onRollback(() => {
      this.recent = [];
    });
    store.onCommit(() => {
      this.recent = [];
      if (!this.recorded) return;
      this.recorded = false;
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
      for (const l of this.committedListeners) l();
    });
  }

  /**
   * Records that `object` (as the API shows it, after the change) went through `type`, in the caller's
   * transaction. Returns the event.
   */
  record(
    accountId: string,
    type: EventType,
    object: { id: string; object: string } | { id?: undefined; object: string },
    opts: RecordOptions = {},
  ): Event {
    const objectId = object.id ?? opts.objectId ?? '';
    const at = opts.at ?? this.clock.now(accountId);
    const event: Event = {
      id: newId('evt'),
      object: 'event',
      type,
      created: Math.floor(at / 1000),
      livemode: false,
      data: { object: object as Event['data']['object'] },
    };
    if (opts.previous) {
      const previous = previousAttributes(opts.previous, object);
      if (previous) event.data.previous_attributes = previous;
    }
    const p = opts.payment;
    if (p) {
      event.session_id = p.session_id;
      event.transaction_id = objectId;
      event.amount = p.amount;
      event.currency = p.currency;
      event.psp = p.psp;
      event.timestamp = isoTime(at);
      if (p.refund) event.refund = p.refund;
    }
    this.insertStmt ??= this.store.db.prepare(
      'INSERT INTO events (id, account_id, type, object_id, created_ms, body) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const body = eventJson(event, opts.json);
    this.insertStmt.run(event.id, accountId, type, objectId, at, body);
    this.store.count('events', accountId, '', '', 1);
    this.store.count('events', accountId, 'type', type, 1);
    this.recorded = true;
    if (this.recent.length === RECENT) this.recent.shift();
    this.recent.push({ id: event.id, objectId, body });
    return event;
  }

  /**
   * The id of an event the open transaction just recorded for `objectId` whose `data.object` is exactly the JSON
   * text `json`, if any: an answer that is that object can be saved as a reference to it (http/route.ts
   * savedAsEvent). The first `"data":{"object":` of an event's text is its own (the members before it are
   * scalars), and a complete JSON object that starts there is the whole of data.object.
   */
  recordedAs(objectId: string, json: string): string | undefined {
    for (let i = this.recent.length - 1; i >= 0; i--) {
      const e = this.recent[i]!;
      if (e.objectId !== objectId) continue;
      const at = e.body.indexOf(DATA_OBJECT);
      return at >= 0 && e.body.startsWith(json, at + DATA_OBJECT.length) ? e.id : undefined;
    }
    return undefined;
  }

  /** The event, if the log still has it. */
  find(accountId: string, id: string): Event | undefined {
    const row = this.store.statement('SELECT body FROM events WHERE id = ? AND account_id = ?').get(id, accountId) as
      | { body: string }
      | undefined;
    return row ? (JSON.parse(row.body) as Event) : undefined;
  }

  get(accountId: string, id: string): Event {
    const event = this.find(accountId, id);
    if (!event) throw errors.notFound('event', id, 'event_id');
    return event;
  }

  /**
   * The account's events, newest first, filtered (type patterns with `*`, object id, created range). A filter on
   * type or time without an object id may have to look through the whole log (no index serves it): that list is
   * a long read, run off the HTTP thread when the server has a background reader.
   */
  list(accountId: string, url: string, q: ListEventsQuery): List<Event> | LongRead<List<Event>> {
    const limit = q.limit ?? 10;
    const cond = ['account_id = ?'];
    const params: (string | number)[] = [accountId];
    if (q.object_id !== undefined) {
      cond.push('object_id = ?');
      params.push(q.object_id);
    }
    if (q.type !== undefined) {
      // The pattern's characters are [a-z_.*] (ListEventsQuery): GLOB's only special one among them is `*`.
      cond.push(q.type.includes('*') ? 'type GLOB ?' : 'type = ?');
      params.push(q.type);
    }
    const range: [keyof ListEventsQuery, string, number][] = [
      // `created=s` is that second (Stripe's form): created ≥ s and created ≤ s.
      ['created', '>=', 0],
      ['created', '<=', 1000],
      ['created[gt]', '>', 1000],
      ['created[gte]', '>=', 0],
      ['created[lt]', '<', 0],
      ['created[lte]', '<=', 1000],
    ];
    let timed = false;
    for (const [key, op, plus] of range) {
      const v = q[key] as number | undefined;
      if (v === undefined) continue;
      timed = true;
      // `created` is whole seconds: created > s  ⇔  created_ms ≥ (s+1)·1000;  created ≤ s  ⇔  created_ms < (s+1)·1000.
      if (op === '>') cond.push('created_ms >= ?');
      else if (op === '<=') cond.push('created_ms < ?');
      else cond.push(`created_ms ${op} ?`);
      params.push(v * 1000 + plus);
    }
    const where = cond.join(' AND ');
    // Without an object or time filter the count is kept (migration 503): a filter on a type nobody recorded
    // reads nothing, and no list counts the account's whole log.
    const kept = q.object_id === undefined && !timed ? this.keptCount(accountId, q.type) : undefined;
    const cursor = seqCursor(
      q,
      (id) =>
        (
          this.store.statement('SELECT seq FROM events WHERE id = ? AND account_id = ?').get(id, accountId) as
            | { seq: number }
            | undefined
        )?.seq,
    );
    if (kept === 0) return { object: 'list', data: [], has_more: false, total_count: 0, url };
    const rowsQuery = {
      sql: `SELECT body FROM events WHERE ${where}${cursor.cond} ORDER BY seq ${cursor.order} LIMIT ?`,
      params: [...params, ...cursor.params, limit + 1],
    };
    const countAll = { sql: `SELECT COUNT(*) AS n FROM events WHERE ${where}`, params };
    const finish = (rows: { body: string }[], total: number): List<Event> => {
      const { page, has_more } = pageOf(rows, limit, cursor.order);
      return { object: 'list', data: page.map((r) => JSON.parse(r.body) as Event), has_more, total_count: total, url };
    };
    if (q.object_id !== undefined || (q.type === undefined && !timed)) {
      // An index lookup (the object's events), or the newest of the whole log with its kept count: here.
      const rows = this.store.statement(rowsQuery.sql).all(...rowsQuery.params) as { body: string }[];
      return finish(rows, kept ?? (this.store.statement(countAll.sql).get(...countAll.params) as { n: number }).n);
    }
    // The page and its total from one snapshot (a type's kept count too: events may commit meanwhile).
    const countQuery = timed ? countAll : this.typeCount(accountId, q.type!);
    return new LongRead([rowsQuery, countQuery], (rows) =>
      finish(rows[0] as { body: string }[], (rows[1]![0] as { n: number }).n),
    );
  }

  /** The account's events, or those of a type or type pattern (`*`), from the kept counts. */
  private keptCount(accountId: string, type: string | undefined): number {
    if (type === undefined) return this.store.counted('events', accountId, '', '');
    this.store.flushCounts(); // the open transaction's own, if any
    const { sql, params } = this.typeCount(accountId, type);
    return (this.store.statement(sql).get(...params) as { n: number }).n;
  }

  /** The statement that reads the kept count of a type or type pattern (`*`). */
  private typeCount(accountId: string, type: string): { sql: string; params: string[] } {
    const match = type.includes('*') ? 'GLOB' : '=';
    return {
      sql: `SELECT COALESCE(SUM(n), 0) AS n FROM list_counts WHERE tbl = 'events' AND account_id = ? AND cols = 'type' AND vals ${match} ?`,
      params: [accountId, type],
    };
  }

  /** Calls `listener` after every COMMIT that recorded events (of any account): the webhook dispatcher. */
  onCommitted(listener: () => void): void {
    this.committedListeners.push(listener);
  }

  /** Resolves after the next COMMIT that recorded events, or after `ms` (long-polling readers). */
  nextCommit(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve();
      }, ms);
      timer.unref?.();
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push(done);
    });
  }

  // ---------------------------------------------------------------------------------------- retention

  nextDue(accountId: string): number | undefined {
    const row = this.store
      .statement('SELECT created_ms FROM events WHERE account_id = ? ORDER BY seq LIMIT 1')
      .get(accountId) as { created_ms: number } | undefined;
    return row ? row.created_ms + EVENT_RETENTION_MS : undefined;
  }

  runDue(now: number, accountId?: string, limit?: number): number {
    const accounts =
      accountId !== undefined
        ? [accountId]
        : (this.store.statement('SELECT DISTINCT account_id FROM events').all() as { account_id: string }[]).map(
            (r) => r.account_id,
          );
    const n = limit === undefined ? -1 : limit * PRUNE_BATCH;
    let count = 0;
    for (const acct of accounts) {
      const last = this.store
        .statement(
          'SELECT MAX(seq) AS seq FROM (SELECT seq FROM events WHERE account_id = ? AND created_ms <= ? ORDER BY seq LIMIT ?)',
        )
        .get(acct, now - EVENT_RETENTION_MS, n) as { seq: number | null };
      if (last.seq === null) continue;
      // Whoever still needs these events looks at them first (the webhook endpoints' scan), in this transaction.
      for (const l of this.pruneListeners) l.before(acct, last.seq);
      const gone = this.store
        .statement('DELETE FROM events WHERE account_id = ? AND seq <= ? AND created_ms <= ? RETURNING id, type, body')
        .all(acct, last.seq, now - EVENT_RETENTION_MS) as { id: string; type: string; body: string }[];
      for (const e of gone) {
        this.store.count('events', acct, '', '', -1);
        this.store.count('events', acct, 'type', e.type, -1);
        for (const l of this.pruneListeners) l.gone(acct, e.id, e.body);
      }
      count += gone.length;
    }
    return count;
  }

  /**
   * Tells `listener` of retention's deletions, in their transaction: `before` with the highest number about to go
   * (all of the account's events up to it that are past retention go), `gone` with each deleted event.
   */
  onPrune(listener: PruneListener): void {
    this.pruneListeners.push(listener);
  }
}
