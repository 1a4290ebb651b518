// What makes `payorch listen` a destination of `payorch events resend` (docs/api.md "Resends to listeners"): it
// registers as a listener of the account, renews its lease on a timer of its own (a forward that hangs does not
// stop it), reads the resends queued for it after its cursor, and deletes itself when it stops. A server without
// these routes (404) is still followed: no resends, said once.
import type { Client } from '../client/client.js';
import { ApiError, ConnectionError, TimeoutError } from '../client/errors.js';
import type { Event } from '../contract/events.js';
import { LISTENER_RENEW_MS } from '../contract/limits.js';

/** A request of the listener's own: no retries (the next poll or renewal is the retry) and a bound. */
const OWN = { maxRetries: 0, timeoutMs: 10_000 };
/** Resends are read at most this often (events may be polled every 250 ms; a resend waits at most ~1 s). */
const READ_EVERY_MS = 1_000;
/** Deleting the registration when the listener stops may hold the exit up at most this long. */
const CLOSE_TIMEOUT_MS = 2_000;

const transient = (err: unknown) =>
  err instanceof ConnectionError ||
  err instanceof TimeoutError ||
  (err instanceof ApiError && (err.status === 429 || err.status >= 500));

export class ResendInbox {
  private id?: string;
  private cursor?: string;
  /** The server has no listener routes: nothing more is asked. */
  private unsupported = false;
  private lastRead = 0;
  private timer?: NodeJS.Timeout;
  private renewing = false;
  private closed = false;
  private failure?: string;

  constructor(
    private readonly client: Client,
    /** The types and patterns of `--events` (none: every type): a resend of another type is not queued for it. */
    private readonly patterns: string[] | undefined,
    /** A notice for the user (stderr). */
    private readonly say: (message: string) => void,
  ) {}

  /** Registers (before the listener says it is ready: resends from then on reach it) and starts the renewals. */
  async start(): Promise<void> {
    await this.register();
    if (this.closed) return; // stopped while registering
    this.timer = setInterval(() => void this.renew(), LISTENER_RENEW_MS);
    this.timer.unref();
  }

  private async register(): Promise<void> {
    try {
      const l = await this.client.eventListeners.create(this.patterns ? { enabled_events: this.patterns } : {}, OWN);
      if (this.closed) return await this.forget(l.id); // stopped meanwhile
      this.id = l.id;
      this.cursor = undefined; // a new listener's queue starts empty
      this.failure = undefined;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        this.unsupported = true;
        this.say(
          'This server does not queue resends for listeners: `payorch events resend` will not reach this listener (webhook endpoints still get them).',
        );
        return;
      }
      this.fail(err); // not registered yet: the next renewal tries again
    }
  }

  private async renew(): Promise<void> {
    if (this.renewing || this.unsupported) return;
    this.renewing = true;
    try {
      if (!this.id) return await this.register();
      await this.client.eventListeners.renew(this.id, OWN);
      this.failure = undefined;
    } catch (err) {
      // Unknown to the server (forgotten after an hour without renewals, or another data directory): anew.
      if (err instanceof ApiError && err.status === 404) this.id = undefined;
      else this.fail(err);
    } finally {
      this.renewing = false;
    }
  }

  /**
   * The events resent to this listener since the last read, oldest first (at most once a second; never throws:
   * a failure is read again next time, and the events poll reports an unreachable server).
   */
  async read(): Promise<Event[]> {
    if (!this.id || this.unsupported || Date.now() - this.lastRead < READ_EVERY_MS) return [];
    this.lastRead = Date.now();
    const id = this.id;
    const out: Event[] = [];
    try {
      for (;;) {
        let page;
        try {
          page = await this.client.eventListeners.resends(
            id,
            this.cursor === undefined ? { limit: 100 } : { ending_before: this.cursor, limit: 100 },
            OWN,
          );
        } catch (err) {
          // The cursor's resend is past retention (the test clock moved 30 days): every resend left in the queue
          // is newer than it (retention deletes oldest first), so the whole queue is new.
          if (err instanceof ApiError && err.code === 'resource_missing' && err.param === 'ending_before') {
            this.cursor = undefined;
            continue;
          }
          throw err;
        }
        if (this.cursor === undefined) {
          // No cursor: the whole queue (newest first), page after page, then oldest first.
          const all = [...page.data];
          let p = page;
          while (p.has_more && p.data.length > 0) {
            p = await this.client.eventListeners.resends(id, { starting_after: p.data.at(-1)!.id, limit: 100 }, OWN);
            all.push(...p.data);
          }
          all.reverse();
          out.push(...all.map((r) => r.event));
          if (all.length) this.cursor = all.at(-1)!.id;
          return out;
        }
        const oldestFirst = [...page.data].reverse();
        out.push(...oldestFirst.map((r) => r.event));
        if (oldestFirst.length) this.cursor = oldestFirst.at(-1)!.id;
        if (!page.has_more || oldestFirst.length === 0) return out;
      }
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) this.id = undefined; // registers again at the next renewal
      else this.fail(err);
      return out;
    }
  }

  /** Stops the renewals and deletes the registration (bounded: the exit waits at most CLOSE_TIMEOUT_MS). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    const id = this.id;
    this.id = undefined;
    if (id) await this.forget(id);
  }

  private async forget(id: string): Promise<void> {
    await this.client.eventListeners.del(id, { maxRetries: 0, timeoutMs: CLOSE_TIMEOUT_MS }).catch(() => undefined);
  }

  /** A failure that is not a passing one is said once (until something works again). */
  private fail(err: unknown): void {
    if (transient(err)) return;
    const message = (err as Error)?.message ?? String(err);
    if (this.failure === message) return;
    this.failure = message;
    this.say(`Cannot keep this listener registered for resends (${message}); trying again…`);
  }
}
