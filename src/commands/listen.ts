import { Flags } from '@oclif/core';
import { ApiCommand } from '../lib/cli/base.js';
import { eventFilter, follow, forwardEvent, forwardUrl, parseForwardHeaders, untilStopped } from '../lib/cli/events.js';
import { durationTarget, parseDate } from '../lib/cli/billing.js';
import { CliError, EXIT } from '../lib/cli/errors.js';
import { printable } from '../lib/output/render.js';
import { resolveTarget } from '../lib/cli/target.js';
import { ApiError } from '../lib/client/errors.js';
import type { Client } from '../lib/client/client.js';
import type { Event } from '../lib/contract/events.js';
import { listenSecret } from '../lib/cli/profiles.js';
import { maskSecret } from '../lib/output/mask.js';
import { jsonLine, safeText } from '../lib/output/render.js';
import { eventLine, forwardLine, resentLine, resentNote } from '../lib/output/views/events.js';
import { ResendInbox } from '../lib/cli/resends.js';

/** A poll's own request: no retries of its own (the loop polls again) and a bound, so Ctrl-C is never held up. */
const POLL = { maxRetries: 0, timeoutMs: 10_000 };

export default class Listen extends ApiCommand {
  static override summary = 'Print events as they happen, and forward each to a local URL signed like a webhook';
  static override description =
    "Starts from now, or with --since from the events it missed (the last 10m, since a time, or after an event id): those first, oldest first, then the new ones as they happen, each once. Each event is POSTed to --forward-to signed twice with the listener's secret (`--print-secret` prints it; it stays the same for a profile across runs): X-Payorch-Signature and Standard Webhooks' webhook-id, webhook-timestamp and webhook-signature headers, so verifyWebhook and any Standard Webhooks library verify it. -H adds headers; --skip-verify accepts a self-signed certificate on an https target. `payorch events resend` reaches it too (marked (resent)). Ctrl-C stops.";
  static override examples = [
    '<%= config.bin %> listen --forward-to localhost:3000/webhooks',
    '<%= config.bin %> listen --events payment.captured,refund.* --json',
    '<%= config.bin %> listen --forward-to localhost:3000/webhooks --since 10m',
    '<%= config.bin %> listen --forward-to https://localhost:8443/hook --skip-verify -H "Authorization:Bearer dev, X-Env:local"',
    'echo "WEBHOOK_SECRET=$(<%= config.bin %> listen --print-secret)" >> .env',
  ];
  static override flags = {
    'forward-to': Flags.string({
      char: 'f', // the Stripe CLI's short form
      description: 'POST each event to this URL (localhost:3000/webhooks: http:// is assumed)',
    }),
    events: Flags.string({
      description: 'Only these event types, comma-separated; `*` patterns work (payment.*,*.created)',
    }),
    headers: Flags.string({
      char: 'H',
      multiple: true,
      description: 'Custom headers to forward, comma-separated: "Key1:Value1, Key2:Value2" (repeatable)',
    }),
    'skip-verify': Flags.boolean({
      description: 'Skip certificate verification when forwarding to an https target (a self-signed certificate)',
    }),
    since: Flags.string({
      description:
        "First print (and forward) the events since then: a duration back on the account's test clock (10m, 2h, 1d), a time (2025-01-01T12:00:00Z or Unix seconds), or an event id (the events after it)",
    }),
    'print-secret': Flags.boolean({ description: "Print the listener's signing secret and exit" }),
    'forward-timeout': Flags.integer({
      description: 'Seconds to wait for the --forward-to target per event',
      min: 1,
      max: 300,
      default: 10,
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Listen);
    const filter = flags.events !== undefined ? await eventFilter('--events', flags.events) : undefined;
    const target = flags['forward-to'] !== undefined ? forwardUrl(flags['forward-to']) : undefined;
    const headers = parseForwardHeaders(flags.headers ?? []);
    const since = flags.since !== undefined ? parseSince(flags.since) : undefined;
    const where = resolveTarget(flags, this.io.env);
    const secret = await listenSecret(where.kind === 'http' ? where.profile : undefined, newSecret, this.io.env);
    if (flags['print-secret']) {
      this.io.stdout.write(this.jsonMode ? jsonLine({ object: 'listen_secret', secret }) + '\n' : secret + '\n');
      return;
    }
    const stop = untilStopped();
    let inbox: ResendInbox | undefined;
    try {
      const client = await this.client(flags);
      // The cursor is the last event already shown: the newest one, or with --since the one just before the events
      // asked for, so that the first poll reads those and every later poll what came after (no gap, no repeat).
      const start = await Promise.race([
        since
          ? backfillCursor(client, since)
          : client.events
              .list({ limit: 1 }, POLL)
              .then((p): { cursor: Event | undefined; from?: string } => ({ cursor: p.data[0] })),
        stop.stopped.then(() => undefined),
      ]);
      if (!start) return;
      let cursor = start.cursor;
      // Registered before "Ready": a resend from then on is queued for this listener (docs/api.md "Resends to
      // listeners").
      inbox = new ResendInbox(client, filter?.patterns, (m) => this.notice(m));
      if (!(await Promise.race([inbox.start().then(() => true), stop.stopped.then(() => false)]))) return;
      const resends = inbox;
      this.notice(
        `Ready: listening for ${filter ? `${filter.patterns.join(', ')} events` : 'every event'} on ${client.baseUrl}${target ? `, forwarding to ${target.href}` : ''}${start.from ? `, starting with the events since ${start.from}` : ''} (signing secret ${maskSecret(secret)}; \`payorch listen --print-secret\` prints it). Ctrl-C to stop.`,
      );
      // The events shown (the newest of them): where to go on from when the cursor is gone from the log.
      const shown = new Shown();
      if (cursor) shown.add(cursor.id);
      const read = async () => {
        const { fresh, next } = await newEvents(client, cursor, shown);
        const resent = await resends.read();
        cursor = next; // only once all of this read is in hand: a failure above reads the same events again
        for (const e of fresh) shown.add(e.id);
        return [
          ...fresh.map((event) => ({ event, resent: false })),
          ...resent.map((event) => ({ event, resent: true })),
        ];
      };
      for await (const { event, resent } of follow(
        read,
        stop,
        (m) => this.notice(m),
        `events from ${client.baseUrl}`,
      )) {
        if (filter && !filter.matches(event.type)) continue;
        if (this.jsonMode) {
          // stdout: the event exactly as the API shows it (and as it is forwarded); the mark goes to stderr.
          this.io.stdout.write(jsonLine(event) + '\n');
          if (resent) this.io.stderr.write(safeText(resentNote(event)) + '\n');
        } else this.io.stdout.write(safeText(resent ? resentLine(event) : eventLine(event)) + '\n');
        if (!target) continue;
        const r = await forwardEvent(target, event, secret, {
          timeoutMs: flags['forward-timeout'] * 1000,
          userAgent: `payorch/${this.config.version}`,
          signal: stop.signal,
          headers,
          skipVerify: flags['skip-verify'],
        });
        (this.jsonMode ? this.io.stderr : this.io.stdout).write(safeText(forwardLine(target.href, r)) + '\n');
      }
    } finally {
      await inbox?.close();
      stop.dispose();
    }
  }
}

type Since = { after: string } | { ago: number } | { at: number };

/** `--since`: an event id, a duration (10m, 1h30m), or a time (ISO 8601 or Unix seconds). */
function parseSince(value: string): Since {
  const text = value.trim();
  if (/^evt_[A-Za-z0-9]+$/.test(text)) return { after: text };
  if (/^(\d+[smhdw])+$/.test(text)) return { ago: durationTarget(text, 0) }; // fixed units only: seconds after 0
  if (/^\d+$/.test(text) || /^\d{4}-\d\d-\d\d/.test(text)) return { at: parseDate(text, 'since') };
  throw new CliError(
    `--since takes a duration (10m, 2h, 1d), a time (2025-01-01T12:00:00Z or Unix seconds) or an event id (evt_…); got "${printable(value)}".`,
    EXIT.USAGE,
  );
}

/**
 * Where a backfill starts: the newest event before the time asked for (none: the whole log is asked for), or the
 * event named. A duration counts back from the account's clock (a seeded server's stands still), else this machine's.
 */
async function backfillCursor(client: Client, since: Since): Promise<{ cursor: Event | undefined; from: string }> {
  if ('after' in since) {
    try {
      const event = await client.events.retrieve(since.after, POLL);
      return { cursor: event, from: since.after };
    } catch (err) {
      if (err instanceof ApiError && err.status === 404)
        throw new CliError(
          `--since: no event ${since.after} (events are kept 30 days); give a duration or a time instead.`,
          EXIT.USAGE,
        );
      throw err;
    }
  }
  let at: number;
  if ('at' in since) at = since.at;
  else {
    const now = await client.testClock.retrieve(POLL).then(
      (c) => c.now,
      (err: unknown) => {
        if (err instanceof ApiError && err.status === 404) return Math.floor(Date.now() / 1000);
        throw err;
      },
    );
    at = now - since.ago;
  }
  const before = await client.events.list({ 'created[lt]': at, limit: 1 }, POLL);
  return { cursor: before.data[0], from: new Date(at * 1000).toISOString() };
}

const newSecret = () => `whsec_${randomHex(24)}`;

function randomHex(bytes: number): string {
  // node:crypto's getRandomValues through the global Web Crypto: no import on the start-up path.
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');
}

/** The ids of the events shown last (the newest SHOWN_KEPT): enough to recognise where the log and what was shown meet. */
class Shown {
  private readonly ids = new Set<string>();

  add(id: string): void {
    this.ids.add(id);
    if (this.ids.size > SHOWN_KEPT) this.ids.delete(this.ids.values().next().value!);
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }
}

const SHOWN_KEPT = 50_000;

/**
 * The events after `cursor`, oldest first (all of them, page after page), and the cursor to go on from. Without a
 * cursor the log was empty when listening began, so everything in it is new. A cursor event that is gone from the log
 * (retention, after the test clock moved 30 days; a snapshot restored to before it) is replaced by the newest event
 * the log still has among those shown: what is newer than it is new. Not the cursor's time: a restore takes the
 * newest events away and brings the clock back with its data, so events recorded after it may be older than the
 * cursor was (they would be missed), and those left from the cursor's second would be shown again.
 */
async function newEvents(
  client: Client,
  cursor: Event | undefined,
  shown: Shown,
): Promise<{ fresh: Event[]; next: Event | undefined }> {
  const out: Event[] = [];
  if (!cursor) {
    for await (const e of client.events.listAll({})) out.push(e);
    out.reverse();
    return { fresh: out, next: out.at(-1) };
  }
  let after = cursor;
  for (;;) {
    let page;
    try {
      page = await client.events.list({ ending_before: after.id, limit: 100 }, POLL);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'resource_missing' && err.param === 'ending_before') {
        // Pages already read in this call are not shown yet: what the log still has of them is not new twice.
        const read = new Set(out.map((e) => e.id));
        const since = await sinceShown(client, shown);
        const fresh = [...out, ...since.fresh.filter((e) => !read.has(e.id))];
        return { fresh, next: fresh.at(-1) ?? since.next };
      }
      throw err;
    }
    const oldestFirst = [...page.data].reverse();
    out.push(...oldestFirst);
    if (!page.has_more || oldestFirst.length === 0) return { fresh: out, next: out.at(-1) ?? cursor };
    after = oldestFirst.at(-1)!;
  }
}

/**
 * The cursor is gone: the log's events newer than the newest one shown that it still has (all of them when it has
 * none), oldest first, and that event (the cursor to go on from when none is new).
 */
async function sinceShown(client: Client, shown: Shown): Promise<{ fresh: Event[]; next: Event | undefined }> {
  const out: Event[] = [];
  for await (const e of client.events.listAll({})) {
    if (shown.has(e.id)) return { fresh: out.reverse(), next: e };
    out.push(e);
  }
  return { fresh: out.reverse(), next: undefined };
}
