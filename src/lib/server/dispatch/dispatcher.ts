// The webhook dispatcher: sends deliveries off the request path (docs/api.md "Events and webhooks").
//
// New events are learned of after each COMMIT (Events.onCommitted) and by a poll (another process may write the
// database). Each endpoint's cursor is in the database, so a restart loses nothing; a pending delivery row is
// committed (store.alone) before its POST and its outcome after it: at-least-once. The sender (sender.ts, its own
// thread) POSTs an endpoint's batch in event order, one at a time, stopping at the first failure.
// Fairness and back-off: docs/api.md "Retries, ordering and duplicates". A seeded server writes an account's outcomes
// once its clock advance has ended, with the time it reached (docs/api.md "Deterministic mode").
import type { Clock } from '../clock.js';
import type { Store } from '../store/seam.js';
import type { Events } from '../domain/events.js';
import type { StoredEndpoint } from '../domain/webhooks/endpoints.js';
import type { Webhooks } from '../domain/webhooks/area.js';
import type { AttemptOutcome } from '../domain/webhooks/deliveries.js';
import { senderLink, type SenderLink } from './sender-link.js';
import type { FaultedJob, SendResult } from './sender.js';
import type { FaultRulePort } from '../http/faultrules.js';

/** An outcome to write: an attempt's, or 'lost' (the event is gone: given up unattempted). */
interface Outcome {
  accountId: string;
  url: string;
  delivery: string;
  outcome: AttemptOutcome | 'lost';
}

/** While endpoints are being served, new events are looked for at most this often (ms). */
const SCAN_EVERY_MS = 50;
/** After outcomes could not be recorded, the endpoints' next turn waits this long (ms). */
const ERROR_PAUSE_MS = 1000;
/** The longest back-off of an endpoint that does not answer (ms, real time). */
const MAX_BACKOFF_MS = 60_000;
/**
 * Batches of one endpoint with the sender at once: the next is read and handed over while one is being sent, so
 * that a busy server thread does not leave the sender idle between two batches (deliveries fall behind otherwise).
 */
const PIPELINE = 2;
/**
 * Batches handed over back to back before the endpoint's batches must all end once: a batch read while another is
 * with the sender starts after it, so a retry that came due meanwhile among earlier deliveries waits for such a pause.
 */
const MAX_CHAIN = 16;

export interface DispatcherOptions {
  /** Per POST, the whole exchange (ms; default 10 000, the live service's test-delivery timeout). */
  timeoutMs?: number;
  /** How often the database is looked at for work nothing announced (ms; default 1000). */
  pollIntervalMs?: number;
  /** Endpoints served at once (default 128). */
  concurrency?: number;
  /** Endpoints of one account served at once (default 16, an account's most endpoints). */
  perAccount?: number;
  /** Endpoints being backed off (their last attempt got no answer) served at once, all accounts together (default 8). */
  slowConcurrency?: number;
  /** Deliveries handed to the sender per endpoint turn (default 64). */
  batchSize?: number;
  /** Send from this thread instead of the sender's own thread. */
  inThread?: boolean;
  /**
   * Called after each look at the events recorded since the last one, with how many webhook endpoints there were
   * (all accounts) and how many deliveries it recorded: a signal for tests that the dispatcher has seen what was
   * written before it (with no endpoint, later events then wait for the poll).
   */
  onScan?: (scan: { endpoints: number; created: number }) => void;
}

export interface DispatcherDeps {
  store: Store;
  clock: Clock;
  events: Events;
  webhooks: Webhooks;
  userAgent: string;
  /** The server's own port and the shared marks of the sender's connections to it (http/lifecycle.ts). */
  own?: { port: number; shared: SharedArrayBuffer };
  /** Unexpected failures (a storage error): never a secret, never a body. */
  onError: (err: unknown) => void;
  /** Fault rules on deliveries (docs/api.md "Fault injection"): an endpoint they watch is sent one delivery at a time. */
  faults?: FaultRulePort;
  /**
   * A seeded server's (Scheduler.advancing): while the account's test clock is being advanced, when that ends. Its
   * deliveries' outcomes, and the ends of their batches, are written after it.
   */
  advancing?: (accountId: string) => Promise<void> | undefined;
}

interface Serving {
  accountId: string;
  url: string;
  slow: boolean;
  /** Batches with the sender (at most PIPELINE). */
  batches: number;
  /** The last delivery number handed over: the next batch starts after it. */
  lastSeq: number;
  /** Batches handed over since the endpoint's batches last all ended (see MAX_CHAIN). */
  chain: number;
}

interface Health {
  /** Consecutive attempts without an answer in time. */
  misses: number;
  /** Not served again before this (ms, real time). */
  until: number;
}

export class Dispatcher {
  private readonly concurrency: number;
  private readonly perAccount: number;
  private readonly slowConcurrency: number;
  private readonly batchSize: number;
  private readonly onScan?: DispatcherOptions['onScan'];
  private readonly link: SenderLink;
  /** Endpoints whose batch is with the sender (or whose outcomes are being written). */
  private readonly serving = new Map<string, Serving>();
  private readonly health = new Map<string, Health>();
  /** Outcomes not yet written, and the endpoints whose batch ended after them. */
  private results: Outcome[] = [];
  private ended: string[] = [];
  private recording?: Promise<void>;
  /** Per account whose clock is being advanced (`advancing`): its outcomes and ended endpoints, written after it. */
  private readonly held = new Map<string, { results: Outcome[]; ended: string[] }>();
  /** Per account, when its earliest waiting retry comes due (ms on its clock). */
  private retries = new Map<string, number>();
  /** The account served last (round robin). */
  private lastAccount = '';
  private wanted = false;
  /** Events may have been recorded since the last scan (a COMMIT that recorded some, the poll, the start). */
  private eventsSignaled = true;
  /** Something other than new events may have made a delivery due (a scan, a resend, a retry, a free endpoint). */
  private dueSignaled = true;
  private lastScan = 0;
  private scanTimer?: NodeJS.Timeout;
  private backoffTimer?: NodeJS.Timeout;
  private backoffAt = Infinity;
  private loop?: Promise<void>;
  private stopped = false;
  /**
   * The last scan found no webhook endpoint at all: new events wait for the poll, or for an endpoint created
   * here — not a write transaction (the scan) and a read (due deliveries) after every group commit for nothing.
   */
  private noEndpoints = false;
  private readonly poll: NodeJS.Timeout;

  constructor(
    private readonly deps: DispatcherDeps,
    opts: DispatcherOptions = {},
  ) {
    this.concurrency = Math.max(1, opts.concurrency ?? 128);
    this.perAccount = Math.max(1, opts.perAccount ?? 16);
    this.slowConcurrency = Math.max(1, opts.slowConcurrency ?? 8);
    this.batchSize = Math.max(1, opts.batchSize ?? 64);
    this.onScan = opts.onScan;
    this.link = senderLink(
      {
        userAgent: deps.userAgent,
        timeoutMs: opts.timeoutMs ?? 10_000,
        maxSockets: this.concurrency,
        own: deps.own,
        inThread: opts.inThread,
      },
      { progress: (results, done) => this.progress(results, done) },
    );
    deps.events.onCommitted(() => {
      this.eventsSignaled = true;
      if (!this.noEndpoints) this.wake(false);
    });
    deps.webhooks.onChanged((endpointId) => {
      // A batch for an endpoint changed meanwhile (disabled, deleted, another URL or secret) is cut short: its
      // POST in flight is not recorded, and what is left is read again as the endpoint now is.
      if (endpointId !== undefined && this.serving.has(endpointId)) this.link.abort(endpointId);
      this.noEndpoints = false;
      this.wake();
    });
    // A COMMIT may have moved an account's clock past a retry's time.
    deps.store.onCommit(() => {
      if (this.retryDue()) this.wake();
    });
    this.poll = setInterval(() => {
      this.eventsSignaled = true; // another process may have recorded events, or created an endpoint (the scan finds it)
      this.wake();
    }, opts.pollIntervalMs ?? 1000);
    this.poll.unref();
    this.wake(); // what was pending when the server last stopped
  }

  private retryDue(): boolean {
    for (const [accountId, at] of this.retries) if (this.deps.clock.now(accountId) >= at) return true;
    return false;
  }

  /** Looks for work soon (coalesced: one pass at a time, another after it when woken meanwhile). */
  wake(due = true): void {
    if (this.stopped) return;
    if (due) this.dueSignaled = true;
    this.wanted = true;
    if (this.loop) return;
    this.loop = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.run())
      .finally(() => {
        this.loop = undefined;
        if (this.wanted && !this.stopped) this.wake(false);
      });
  }

  private async run(): Promise<void> {
    while (this.wanted && !this.stopped) {
      this.wanted = false;
      try {
        if (this.eventsSignaled) await this.scan();
        if (this.stopped) return;
        // Only new events (a scan put off): nothing can have come due, so no read.
        if (!this.dueSignaled) continue;
        if (this.serving.size >= this.concurrency) continue;
        this.dueSignaled = false;
        // One process owns a serial engine's store (SQLite): what it takes is in its memory, and the look is one read.
        // Processes that share the database (PostgreSQL) take an endpoint's batch in a write of its own (handOver),
        // and look outside any transaction.
        if (!this.deps.store.shared) await this.deps.store.read(() => this.fill());
        else await this.fill();
      } catch (err) {
        if (!this.stopped) this.deps.onError(err);
      }
    }
  }

  /**
   * Records the deliveries new events call for. Under a stream of commits, at most one scan per SCAN_EVERY_MS
   * while endpoints are being served (each scan is a write transaction): events wait at most that long, in order.
   */
  private async scan(): Promise<void> {
    const since = Date.now() - this.lastScan;
    if (this.serving.size > 0 && since < SCAN_EVERY_MS) {
      this.scanTimer ??= setTimeout(() => {
        this.scanTimer = undefined;
        this.wake();
      }, SCAN_EVERY_MS - since);
      this.scanTimer.unref();
      return;
    }
    this.eventsSignaled = false;
    this.lastScan = Date.now();
    const { more, endpoints, created } = await this.deps.store.alone(() => this.deps.webhooks.deliveries.scan());
    this.noEndpoints = endpoints === 0;
    this.dueSignaled = !this.noEndpoints;
    if (more) {
      this.eventsSignaled = true;
      this.wanted = true;
    }
    this.onScan?.({ endpoints, created });
  }

  /**
   * Hands batches to the sender for as many endpoints as the limits allow, accounts taking turns; notes when the
   * earliest retry not yet due comes due, per account. In a read transaction.
   */
  private async fill(): Promise<void> {
    if (this.stopped) return;
    // Fault rules other processes of a shared database changed, looked at first (handOver asks `watches`).
    const refreshing = this.deps.faults?.refresh?.();
    if (refreshing) await refreshing;
    const deliveries = this.deps.webhooks.deliveries;
    const now = Date.now();
    // Per account, its enabled endpoints not being served: those that answer first, then those backed off.
    const byAccount = new Map<string, StoredEndpoint[]>();
    const perAccount = new Map<string, number>();
    let slow = 0;
    for (const s of this.serving.values()) {
      perAccount.set(s.accountId, (perAccount.get(s.accountId) ?? 0) + 1);
      if (s.slow) slow++;
    }
    for (const { accountId, endpoint } of await deliveries.enabledEndpoints()) {
      const serving = this.serving.get(endpoint.id);
      if (serving) {
        if (serving.batches < PIPELINE && !serving.slow && serving.chain < MAX_CHAIN)
          await this.handOver(endpoint, serving, this.deps.clock.now(accountId));
        continue;
      }
      let list = byAccount.get(accountId);
      if (!list) byAccount.set(accountId, (list = []));
      list.push(endpoint);
    }
    // What is known of endpoints gone (deleted, disabled) is forgotten.
    if (this.health.size > 0) {
      const known = new Set([...byAccount.values()].flatMap((l) => l.map((e) => e.id)));
      for (const id of this.health.keys()) if (!known.has(id) && !this.serving.has(id)) this.health.delete(id);
    }
    const isSlow = (id: string) => (this.health.get(id)?.misses ?? 0) > 0;
    for (const list of byAccount.values()) list.sort((a, b) => Number(isSlow(a.id)) - Number(isSlow(b.id)));
    // Accounts in turn, from the one after the last served.
    const accounts = [...byAccount.keys()].sort();
    const start = accounts.findIndex((a) => a > this.lastAccount);
    const order = start < 0 ? accounts : [...accounts.slice(start), ...accounts.slice(0, start)];
    const retries = new Map<string, number>();
    let backoffAt = Infinity;
    const noteRetry = async (accountId: string, endpointId: string, clockNow: number) => {
      const at = await deliveries.nextRetry(endpointId, clockNow);
      if (at !== undefined) retries.set(accountId, Math.min(retries.get(accountId) ?? Infinity, at));
    };
    // One endpoint per account per round, until the slots are taken or no account has a candidate left.
    let progressed = true;
    while (progressed) {
      progressed = false;
      for (const accountId of order) {
        const list = byAccount.get(accountId)!;
        const clockNow = this.deps.clock.now(accountId);
        while (list.length > 0) {
          const e = list.shift()!;
          const h = this.health.get(e.id);
          const backedOff = h !== undefined && h.misses > 0;
          const full =
            this.serving.size >= this.concurrency ||
            (perAccount.get(accountId) ?? 0) >= this.perAccount ||
            (backedOff && slow >= this.slowConcurrency);
          if (full || (h && h.until > now)) {
            // Not now: a retry of its own may come due meanwhile, or its back-off ends.
            if (h && h.until > now) backoffAt = Math.min(backoffAt, h.until);
            else if (full) this.dueSignaled = true; // look again when a slot frees
            await noteRetry(accountId, e.id, clockNow);
            continue;
          }
          const serving: Serving = { accountId, url: e.url, slow: backedOff, batches: 0, lastSeq: 0, chain: 0 };
          if (!(await this.handOver(e, serving, clockNow))) {
            await noteRetry(accountId, e.id, clockNow);
            continue;
          }
          perAccount.set(accountId, (perAccount.get(accountId) ?? 0) + 1);
          if (backedOff) slow++;
          this.lastAccount = accountId;
          // The next batch at once, to be sent right after this one (an endpoint that answers).
          if (!backedOff) await this.handOver(e, serving, clockNow);
          progressed = true;
          break;
        }
      }
    }
    this.retries = retries;
    if (backoffAt < Infinity && backoffAt < this.backoffAt) {
      clearTimeout(this.backoffTimer);
      this.backoffAt = backoffAt;
      this.backoffTimer = setTimeout(
        () => {
          this.backoffAt = Infinity;
          this.wake();
        },
        Math.max(0, backoffAt - now),
      );
      this.backoffTimer.unref();
    }
  }

  /**
   * Reads the endpoint's next batch (after what it already has) and hands it to the sender; false when none is due.
   * The endpoint is marked serving, its batch counted, before the read: while the read awaits the store (real time
   * on an engine with a connection pool), a batch of it that ends (record) must not free it — the next fill would
   * start it again from its first due delivery and hand over what is in flight a second time — and outcomes that
   * come back for its first batch (progress) must find it serving, or they would be dropped and it never freed.
   */
  private async handOver(e: StoredEndpoint, serving: Serving, clockNow: number): Promise<boolean> {
    // Under a fault rule, one delivery per batch and one batch at a time: each attempt made is one the rule counted.
    const faults = this.deps.faults?.watches(serving.accountId, e.id) ? this.deps.faults : undefined;
    if (faults && serving.batches > 0) return false;
    serving.batches++;
    this.serving.set(e.id, serving);
    let claimed: Awaited<ReturnType<Webhooks['deliveries']['claimBatch']>>;
    const claim = () =>
      this.deps.webhooks.deliveries.claimBatch(
        serving.accountId,
        e,
        clockNow,
        faults ? 1 : this.batchSize,
        serving.lastSeq,
      );
    try {
      // On a shared database the claim is committed before its batch is sent: no other process takes it meanwhile,
      // and a claim undone by a conflict (run again by the store) never sent anything.
      claimed = await (this.deps.store.shared ? this.deps.store.grouped(claim) : claim());
    } catch (err) {
      this.batchEnded(e.id, serving);
      throw err;
    }
    const { jobs, lost, lastSeq } = claimed;
    if (lost.length > 0) {
      for (const delivery of lost)
        this.results.push({ accountId: serving.accountId, url: e.url, delivery, outcome: 'lost' });
      this.scheduleRecord();
    }
    if (jobs.length === 0) {
      this.batchEnded(e.id, serving);
      return false;
    }
    serving.chain++;
    serving.lastSeq = lastSeq;
    if (faults) for (const job of jobs) (job as FaultedJob).fault = await faults.forDelivery(serving.accountId, e.id);
    this.link.send({ endpoint: e.id, jobs });
    return true;
  }

  /** One batch of the endpoint is over (sent and recorded, or never handed over): once none is left, it is free. */
  private batchEnded(endpointId: string, serving: Serving): void {
    if (--serving.batches <= 0 && this.serving.get(endpointId) === serving) this.serving.delete(endpointId);
  }

  /** Outcomes from the sender, and the endpoints whose batch ended: written together, then those endpoints are free. */
  private progress(results: SendResult[], done: string[]): void {
    const now = Date.now();
    for (const r of results) {
      if (r.outcome.timedOut) {
        const h = this.health.get(r.endpoint) ?? { misses: 0, until: 0 };
        h.misses++;
        h.until = now + Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (h.misses - 1));
        this.health.set(r.endpoint, h);
      } else {
        this.health.delete(r.endpoint);
      }
    }
    for (const r of results) {
      const s = this.serving.get(r.endpoint);
      if (s) this.results.push({ accountId: s.accountId, url: s.url, delivery: r.delivery, outcome: r.outcome });
    }
    this.ended.push(...done);
    this.scheduleRecord();
  }

  private scheduleRecord(): void {
    this.recording ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.record());
  }

  /**
   * Puts aside the outcomes and ended endpoints of accounts whose clock is being advanced, until that ends; answers
   * the others. An endpoint's end waits with its account's outcomes: freed before they are written, it would be
   * handed its pending deliveries again.
   */
  private hold(results: Outcome[], ended: string[]): { results: Outcome[]; ended: string[] } {
    const advancing = this.deps.advancing;
    if (!advancing || this.stopped) return { results, ended };
    const heldFor = (accountId: string) => {
      let h = this.held.get(accountId);
      if (h) return h;
      const until = advancing(accountId);
      if (!until) return undefined;
      this.held.set(accountId, (h = { results: [], ended: [] }));
      void until.then(() => this.release(accountId));
      return h;
    };
    const now = { results: [] as Outcome[], ended: [] as string[] };
    for (const r of results) {
      const h = heldFor(r.accountId);
      (h ?? now).results.push(r);
    }
    for (const e of ended) {
      const accountId = this.serving.get(e)?.accountId;
      const h = accountId === undefined ? undefined : heldFor(accountId);
      (h ?? now).ended.push(e);
    }
    return now;
  }

  /** The account's clock advance has ended: what was held for it is written (before what came back since). */
  private release(accountId: string): void {
    const h = this.held.get(accountId);
    if (!h) return;
    this.held.delete(accountId);
    this.results = [...h.results, ...this.results];
    this.ended = [...h.ended, ...this.ended];
    this.scheduleRecord();
  }

  /** Writes the outcomes received so far (in the group commit: they share a COMMIT with the requests of the moment). */
  private async record(): Promise<void> {
    const { results, ended } = this.hold(this.results, this.ended);
    this.results = [];
    this.ended = [];
    try {
      if (results.length > 0) {
        const deliveries = this.deps.webhooks.deliveries;
        // Safe to run again if the batch is re-run: each reads its row and applies its outcome once.
        await this.deps.store.grouped(async () => {
          for (const r of results) await deliveries.record(r.accountId, r.delivery, r.url, r.outcome);
        });
      }
    } catch (err) {
      if (!this.stopped) this.deps.onError(err);
      // The outcomes could not be written (storage failing): the rows are still pending and due. A pause before
      // these endpoints' next turn, so that a failing disk does not turn into a stream of POSTs.
      await new Promise<void>((resolve) => setTimeout(resolve, ERROR_PAUSE_MS).unref());
    } finally {
      this.recording = undefined;
      for (const e of ended) {
        const s = this.serving.get(e);
        if (s) this.batchEnded(e, s);
      }
      if (this.results.length > 0 || this.ended.length > 0) this.scheduleRecord();
      if (ended.length > 0) this.wake(); // their next batch, other endpoints' turn
    }
  }

  /** Stops: no new batches; POSTs in flight are aborted (their rows stay pending); outcomes received are written. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poll);
    clearTimeout(this.scanTimer);
    clearTimeout(this.backoffTimer);
    await this.link.stop();
    await this.loop;
    // What waits for a clock advance is written now (stopped: nothing is held any more), rather than sent again.
    for (const accountId of [...this.held.keys()]) this.release(accountId);
    while (this.recording) await this.recording;
    if (this.results.length > 0 || this.ended.length > 0) await this.record();
    // Another process on the same database takes this one's endpoints over at once (on SQLite: nothing to give up).
    if (this.deps.store.shared)
      await this.deps.store
        .grouped(() => this.deps.webhooks.deliveries.releaseClaims())
        .catch((err: unknown) => this.deps.onError(err));
  }
}
