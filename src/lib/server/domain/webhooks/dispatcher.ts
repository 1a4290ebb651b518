// The webhook dispatcher (docs/api.md "Events and webhooks"): sends deliveries, off the request path.
//
// It learns of new events after every COMMIT that recorded some (Events.onCommitted) and from a periodic poll
// (events another process wrote: the CLI's embedded default writes the same database). Each endpoint has a
// cursor in the database (the last event it has looked at), so nothing is lost or sent again wholesale across
// a restart. For each event an enabled endpoint wants, a pending delivery row is written in a transaction of
// its own (store.alone), then POSTed, then its outcome written: at-least-once — a crash between the POST and
// its outcome sends it again at the next start. One POST in flight per endpoint, in event order (a delivery
// waiting for its retry does not hold back later ones), at most `concurrency` endpoints at once. Retries come
// due on the account's clock: a commit that moves a clock past one (POST /test-helpers/advance-clock) wakes the
// dispatcher at once. Nothing of a delivery runs inside a request, and its SQLite writes are small.
import type { Clock } from '../../clock.js';
import type { Store } from '../../store/db.js';
import type { Events } from '../events.js';
import {
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  SIGNATURE_HEADER,
  TEST_MODE_HEADER,
  signatureHeader,
} from '../../../webhooks/signature.js';
import type { DeliveryJob } from './deliveries.js';
import type { Webhooks } from './area.js';
import { newAgents, postJson } from './sender.js';

/** While POSTs are in flight, new events are looked for at most this often (ms). */
const SCAN_EVERY_MS = 50;
/** After an endpoint's delivery could not be recorded, its next turn waits this long (ms). */
const ERROR_PAUSE_MS = 1000;

export interface DispatcherOptions {
  /** Per POST, the whole exchange (ms; default 10 000, the live service's test-delivery timeout). */
  timeoutMs?: number;
  /** How often the database is looked at for work nothing announced (ms; default 1000). */
  pollIntervalMs?: number;
  /** Endpoints with a POST in flight at once (default 8). */
  concurrency?: number;
}

export interface DispatcherDeps {
  store: Store;
  clock: Clock;
  events: Events;
  webhooks: Webhooks;
  userAgent: string;
  /** Unexpected failures (a storage error): never a secret, never a body. */
  onError: (err: unknown) => void;
}

export class Dispatcher {
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly agents;
  private readonly inFlight = new Map<string, { abort: AbortController; done: Promise<void> }>();
  /** Per account, when its earliest waiting retry comes due (ms on its clock). */
  private retries = new Map<string, number>();
  private wanted = false;
  /** Events may have been recorded since the last scan (a COMMIT that recorded some, the poll, the start). */
  private eventsSignaled = true;
  /** Something other than new events may have made a delivery due (a scan, a resend, a retry, a free endpoint). */
  private dueSignaled = true;
  private lastScan = 0;
  private scanTimer?: NodeJS.Timeout;
  private loop?: Promise<void>;
  private stopped = false;
  /**
   * The last scan found no webhook endpoint at all: new events wait for the poll, or for an endpoint created
   * here — not a write transaction (the scan) and a read (due deliveries) after every group commit for nothing.
   */
  private noEndpoints = false;
  /** Set inside the dispatcher's own write transactions: their COMMITs do not wake it again. */
  private ownWrite = false;
  private readonly poll: NodeJS.Timeout;

  constructor(
    private readonly deps: DispatcherDeps,
    opts: DispatcherOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.concurrency = opts.concurrency ?? 8;
    this.agents = newAgents(this.concurrency);
    deps.events.onCommitted(() => {
      this.eventsSignaled = true;
      if (!this.noEndpoints) this.wake(false);
    });
    deps.store.onCommit(() => {
      if (this.ownWrite) {
        this.ownWrite = false;
        return;
      }
      if (deps.webhooks.takeChanged()) {
        this.noEndpoints = false;
        this.wake();
      } else if (this.retryDue()) this.wake();
    });
    deps.store.onRollback(() => {
      this.ownWrite = false;
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
        // Only new events (a scan put off): nothing can have come due (measured: a read per group commit).
        if (!this.dueSignaled) continue;
        const room = this.concurrency - this.inFlight.size;
        if (room <= 0) continue;
        this.dueSignaled = false;
        const { jobs, retries } = await this.deps.store.read(() => this.deps.webhooks.deliveries.due(new Set(this.inFlight.keys()), room));
        this.retries = retries;
        for (const job of jobs) if (!this.inFlight.has(job.delivery.webhook_endpoint)) this.start(job);
      } catch (err) {
        if (!this.stopped) this.deps.onError(err);
      }
    }
  }

  /**
   * Records the deliveries new events call for. Under a stream of commits, at most one scan per SCAN_EVERY_MS
   * while POSTs are in flight (each scan is a write transaction; measured, one per group commit cost create-session
   * throughput): events wait at most that long, and in order, since each endpoint sends one at a time anyway.
   */
  private async scan(): Promise<void> {
    const since = Date.now() - this.lastScan;
    if (this.inFlight.size > 0 && since < SCAN_EVERY_MS) {
      this.scanTimer ??= setTimeout(() => {
        this.scanTimer = undefined;
        this.wake();
      }, SCAN_EVERY_MS - since);
      this.scanTimer.unref();
      return;
    }
    this.eventsSignaled = false;
    this.lastScan = Date.now();
    const { more, endpoints } = await this.deps.store.alone(() => {
      this.ownWrite = true;
      return this.deps.webhooks.deliveries.scan();
    });
    this.noEndpoints = endpoints === 0;
    this.dueSignaled = !this.noEndpoints;
    if (more) {
      this.eventsSignaled = true;
      this.wanted = true;
    }
  }

  private start(job: DeliveryJob): void {
    const endpointId = job.delivery.webhook_endpoint;
    const abort = new AbortController();
    const done = (async () => {
      let next: DeliveryJob | undefined = job;
      // The endpoint's deliveries one after another: each outcome is written together with the read of the next
      // one due (one transaction per delivery besides the row's insert).
      while (next && !this.stopped) next = await this.send(next, abort.signal);
    })()
      .catch(async (err) => {
        if (this.stopped) return;
        this.deps.onError(err);
        // The outcome could not be written (storage failing): the row is still pending and due. A pause before
        // the endpoint's next turn, so that a failing disk does not turn into a stream of POSTs.
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, ERROR_PAUSE_MS);
          abort.signal.addEventListener('abort', () => {
            clearTimeout(t);
            resolve();
          });
        });
      })
      .finally(() => {
        this.inFlight.delete(endpointId);
        this.wake(); // other endpoints' turn, retries, new events
      });
    this.inFlight.set(endpointId, { abort, done });
  }

  /** One attempt of `job` and its outcome; returns the endpoint's next delivery due now, if any. */
  private async send(job: DeliveryJob, signal: AbortSignal): Promise<DeliveryJob | undefined> {
    const outcome =
      job.body === undefined
        ? {}
        : await postJson(
            job.url,
            job.body,
            {
              'Content-Type': 'application/json',
              'User-Agent': this.deps.userAgent,
              [SIGNATURE_HEADER]: signatureHeader(job.body, job.secrets, Math.floor(Date.now() / 1000)),
              [EVENT_TYPE_HEADER]: job.delivery.event_type,
              [EVENT_ID_HEADER]: job.delivery.event,
              [TEST_MODE_HEADER]: 'true',
            },
            { timeoutMs: this.timeoutMs, signal, agents: this.agents },
          );
    // Stopping: the attempt was cut short (or its outcome cannot be written any more); the row stays pending
    // and is sent again at the next start.
    if (this.stopped) return undefined;
    // In the group commit: the outcome shares a COMMIT with the requests of the moment (measured: a transaction of
    // its own per delivery made each cost several times a create-session, mostly WAL pages written and
    // checkpointed). Safe to run again if the batch is re-run: it reads the row and applies the outcome once.
    return this.deps.store.grouped(() => {
      const deliveries = this.deps.webhooks.deliveries;
      deliveries.record(job, outcome);
      return deliveries.nextFor(job.accountId, job.delivery.webhook_endpoint);
    });
  }

  /** Stops: no new work; POSTs in flight are aborted (their rows stay pending); resolves when nothing runs. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poll);
    clearTimeout(this.scanTimer);
    for (const f of this.inFlight.values()) f.abort.abort();
    await Promise.allSettled([...this.inFlight.values()].map((f) => f.done));
    await this.loop;
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
