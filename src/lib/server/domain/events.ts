// The event log (docs/api.md "Events and webhooks"). An area records an event in the transaction of the change
// it describes, so an event exists exactly when its change committed: a rolled-back change (a failing request,
// a group commit's re-run, a crash before COMMIT) leaves none, and a re-run records it once more with the rest.
// Readers of the log (GET /events, the webhook dispatcher, `payorch listen`) learn of new events after COMMIT.
import type { ReadAway } from '../store/seam.js';
import type { ScopedStore, TxFrame } from '../store/scoped.js';
import type { Clock } from '../clock.js';
import { isoTime } from '../clock.js';
import { PRUNE_BATCH, type DueWork } from './due.js';
import { newId } from '../ids.js';
import { errors } from '../errors.js';
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

/** One event of Events.recordAll: what `record` is given. */
export interface EventRecord {
  type: EventType;
  object: { id: string; object: string } | { id?: undefined; object: string };
  opts?: RecordOptions;
}

/** What retention tells those who still need events it deletes (Events.onPrune). */
export interface PruneListener {
  before(accountId: string, lastSeq: number): Promise<void>;
  gone(accountId: string, eventId: string, body: string): Promise<void>;
}

/** An event as the log keeps it: its text, and what it is found and counted by. */
export interface LoggedEvent {
  id: string;
  type: EventType;
  /** The id `GET /events?object_id=` finds it by ('' when none). */
  objectId: string;
  /** When the change happened (ms on the account clock). */
  createdMs: number;
  /** The event's JSON text, as the API shows it. */
  body: string;
}

/** What the event log keeps: the events of every account, in the order they were recorded, and their counts. */
export interface EventLogPort {
  /** Appends the event to the account's log, in the caller's transaction, and counts it (in all and by type). */
  append(accountId: string, event: LoggedEvent): Promise<void>;
  /** Appends the events to the account's log in their order, as `append` one after another (in one operation where the engine can). */
  appendAll(accountId: string, events: readonly LoggedEvent[]): Promise<void>;
  /** The event, if the log still has it. */
  find(accountId: string, id: string): Promise<Event | undefined>;
  /**
   * The page `q` asks for of the account's events, newest first (cursors like every list), filtered by type (a
   * pattern with `*`), object id and created range (whole seconds), with its total; a filter on type or time
   * without an object id may be a page read away (its page and total from one snapshot of committed data).
   */
  page(accountId: string, url: string, q: ListEventsQuery): Promise<List<Event> | ReadAway<List<Event>>>;
  /** When the account's oldest event in the log was recorded (ms on its clock). */
  oldestMs(accountId: string): Promise<number | undefined>;
  /** The accounts that have events in the log. */
  accounts(): Promise<string[]>;
  /**
   * The place in the log of the last of the account's first `n` events (all when -1), oldest first, among those
   * recorded at or before `before`; undefined when it has none.
   */
  lastRecordedBy(accountId: string, before: number, n: number): Promise<number | undefined>;
  /**
   * Deletes the account's events up to place `lastSeq` recorded at or before `before`, uncounts them, and returns
   * them (in the caller's transaction).
   */
  prune(accountId: string, lastSeq: number, before: number): Promise<{ id: string; body: string }[]>;
}

/**
 * What a test trigger's scenario (triggers.ts) reads back of the event log: the events it recorded, after the last
 * event recorded before it.
 */
export interface TriggerPort {
  /** Where the event log ends now (of every account): a mark to read the events recorded after. */
  lastEvent(): Promise<number>;
  /** The account's events recorded after the mark `after` (TriggerPort.lastEvent), oldest first. */
  eventsAfter(accountId: string, after: number): Promise<Event[]>;
}

/** Events of the open transaction kept for recordedAs (a request records a few; only its own are looked at). */
const RECENT = 8;
const DATA_OBJECT = '"data":{"object":';

type Recent = { id: string; objectId: string; body: string };
/** Keys of a transaction's frame (store/scoped.ts). */
const RECORDED = 'events recorded';
const RECENT_KEY = 'events recent';

export class Events implements DueWork {
  readonly name = HOUSEKEEPING_WORK.events;
  private readonly committedListeners: (() => void)[] = [];
  private waiters: (() => void)[] = [];
  private readonly pruneListeners: PruneListener[] = [];

  /**
   * What a transaction recorded is kept in its frame: another transaction's COMMIT must neither take this one's news
   * (its own COMMIT would then wake no one) nor its events (recordedAs would point an answer at an event of another
   * transaction, which may still roll back).
   */
  constructor(
    private readonly store: ScopedStore,
    private readonly stored: EventLogPort,
    private readonly clock: Clock,
  ) {}

  /** A COMMIT recorded events: the long-polling readers and the listeners (the dispatcher) hear of it. */
  private committed(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
    for (const l of this.committedListeners) l();
  }

  /** The last few events the caller's transaction recorded (its part's own list, started from the enclosing one's). */
  private recentOf(frame: TxFrame): Recent[] {
    let own = frame.own<Recent[]>(RECENT_KEY);
    if (!own) frame.set(RECENT_KEY, (own = [...(frame.get<Recent[]>(RECENT_KEY) ?? [])]));
    return own;
  }

  /**
   * Records that `object` (as the API shows it, after the change) went through `type`, in the caller's
   * transaction. Returns the event.
   */
  async record(
    accountId: string,
    type: EventType,
    object: { id: string; object: string } | { id?: undefined; object: string },
    opts: RecordOptions = {},
  ): Promise<Event> {
    const { event, logged } = this.made(accountId, type, object, opts);
    await this.stored.append(accountId, logged);
    this.recorded([logged]);
    return event;
  }

  /**
   * Records many events of one account at once, in their order (each as `record` would, one after another), in the
   * caller's transaction: the log takes them in one operation where its engine can.
   */
  async recordAll(accountId: string, records: readonly EventRecord[]): Promise<void> {
    if (records.length === 0) return;
    const logged = records.map((r) => this.made(accountId, r.type, r.object, r.opts ?? {}).logged);
    await this.stored.appendAll(accountId, logged);
    this.recorded(logged);
  }

  /** The event `record` records, and the log's row of it (its id drawn here). */
  private made(
    accountId: string,
    type: EventType,
    object: { id: string; object: string } | { id?: undefined; object: string },
    opts: RecordOptions,
  ): { event: Event; logged: LoggedEvent } {
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
    const body = eventJson(event, opts.json);
    return { event, logged: { id: event.id, type, objectId, createdMs: at, body } };
  }

  /** Events the caller's transaction has appended: news once it commits, and the last few for recordedAs. */
  private recorded(logged: readonly LoggedEvent[]): void {
    const frame = this.store.frame();
    if (!frame) {
      this.committed(); // outside a transaction: committed on its own
      return;
    }
    if (!frame.get(RECORDED)) {
      frame.set(RECORDED, true);
      frame.afterCommit(() => this.committed());
    }
    const recent = this.recentOf(frame);
    for (let i = Math.max(0, logged.length - RECENT); i < logged.length; i++) {
      const e = logged[i]!;
      if (recent.length === RECENT) recent.shift();
      recent.push({ id: e.id, objectId: e.objectId, body: e.body });
    }
  }

  /**
   * The id of an event the open transaction just recorded for `objectId` whose `data.object` is exactly the JSON
   * text `json`, if any: an answer that is that object can be saved as a reference to it (http/route.ts
   * savedAsEvent). The first `"data":{"object":` of an event's text is its own (the members before it are
   * scalars), and a complete JSON object that starts there is the whole of data.object.
   */
  recordedAs(objectId: string, json: string): string | undefined {
    const recent = this.store.frame()?.get<Recent[]>(RECENT_KEY) ?? [];
    for (let i = recent.length - 1; i >= 0; i--) {
      const e = recent[i]!;
      if (e.objectId !== objectId) continue;
      const at = e.body.indexOf(DATA_OBJECT);
      return at >= 0 && e.body.startsWith(json, at + DATA_OBJECT.length) ? e.id : undefined;
    }
    return undefined;
  }

  /** The event, if the log still has it. */
  find(accountId: string, id: string): Promise<Event | undefined> {
    return this.stored.find(accountId, id);
  }

  async get(accountId: string, id: string): Promise<Event> {
    const event = await this.find(accountId, id);
    if (!event) throw errors.notFound('event', id, 'event_id');
    return event;
  }

  /**
   * The account's events, newest first, filtered (type patterns with `*`, object id, created range). A filter on
   * type or time without an object id may have to look through the whole log (no index serves it): that page is
   * read away from the request's own work when the engine can (EventLogPort.page).
   */
  list(accountId: string, url: string, q: ListEventsQuery): Promise<List<Event> | ReadAway<List<Event>>> {
    return this.stored.page(accountId, url, q);
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

  async nextDue(accountId: string): Promise<number | undefined> {
    const oldest = await this.stored.oldestMs(accountId);
    return oldest === undefined ? undefined : oldest + EVENT_RETENTION_MS;
  }

  async runDue(now: number, accountId?: string, limit?: number): Promise<number> {
    const accounts = accountId !== undefined ? [accountId] : await this.stored.accounts();
    const n = limit === undefined ? -1 : limit * PRUNE_BATCH;
    let count = 0;
    for (const acct of accounts) {
      const last = await this.stored.lastRecordedBy(acct, now - EVENT_RETENTION_MS, n);
      if (last === undefined) continue;
      // Whoever still needs these events looks at them first (the webhook endpoints' scan), in this transaction.
      for (const l of this.pruneListeners) await l.before(acct, last);
      const gone = await this.stored.prune(acct, last, now - EVENT_RETENTION_MS);
      for (const e of gone) for (const l of this.pruneListeners) await l.gone(acct, e.id, e.body);
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
