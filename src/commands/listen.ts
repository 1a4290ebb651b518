import { Flags } from '@oclif/core';
import { ApiCommand } from '../lib/cli/base.js';
import { eventFilter, follow, forwardEvent, forwardUrl, untilStopped } from '../lib/cli/events.js';
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
    "Starts from now: events recorded before it started are not replayed. Each event is POSTed to --forward-to with the X-Payorch-* headers and a signature made with the listener's secret (`--print-secret` prints it; it stays the same for a profile across runs). `payorch events resend` reaches it too (marked (resent)). Ctrl-C stops.";
  static override examples = [
    '<%= config.bin %> listen --forward-to localhost:3000/webhooks',
    '<%= config.bin %> listen --events payment.captured,refund.* --json',
    'echo "PAYORCH_WEBHOOK_SECRET=$(<%= config.bin %> listen --print-secret)" >> .env',
  ];
  static override flags = {
    'forward-to': Flags.string({
      description: 'POST each event to this URL (localhost:3000/webhooks: http:// is assumed)',
    }),
    events: Flags.string({
      description: 'Only these event types, comma-separated; `*` patterns work (payment.*,*.created)',
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
      const newest = await Promise.race([client.events.list({ limit: 1 }, POLL), stop.stopped.then(() => undefined)]);
      if (!newest) return;
      let cursor = newest.data[0];
      // Registered before "Ready": a resend from then on is queued for this listener (docs/api.md "Resends to listeners").
      inbox = new ResendInbox(client, filter?.patterns, (m) => this.notice(m));
      if (!(await Promise.race([inbox.start().then(() => true), stop.stopped.then(() => false)]))) return;
      const resends = inbox;
      this.notice(
        `Ready: listening for ${filter ? `${filter.patterns.join(', ')} events` : 'every event'} on ${client.baseUrl}${target ? `, forwarding to ${target.href}` : ''} (signing secret ${maskSecret(secret)}; \`payorch listen --print-secret\` prints it). Ctrl-C to stop.`,
      );
      const read = async () => {
        const fresh = await newEvents(client, cursor);
        cursor = fresh.at(-1) ?? cursor;
        const resent = await resends.read();
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
        });
        (this.jsonMode ? this.io.stderr : this.io.stdout).write(safeText(forwardLine(target.href, r)) + '\n');
      }
    } finally {
      await inbox?.close();
      stop.dispose();
    }
  }
}

const newSecret = () => `whsec_${randomHex(24)}`;

function randomHex(bytes: number): string {
  // node:crypto's getRandomValues through the global Web Crypto: no import on the start-up path.
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');
}

/**
 * The events after `cursor`, oldest first (all of them, page after page). Without a cursor the log was empty
 * when listening began, so everything in it is new. A cursor event that is gone (retention, after the test
 * clock moved 30 days) is replaced by the time of that event: events from that second on (at least once, as deliveries are).
 */
async function newEvents(client: Client, cursor: Event | undefined): Promise<Event[]> {
  const out: Event[] = [];
  if (!cursor) {
    for await (const e of client.events.listAll({})) out.push(e);
    return out.reverse();
  }
  let after = cursor;
  for (;;) {
    let page;
    try {
      page = await client.events.list({ ending_before: after.id, limit: 100 }, POLL);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'resource_missing' && err.param === 'ending_before')
        return sinceTime(client, after);
      throw err;
    }
    const oldestFirst = [...page.data].reverse();
    out.push(...oldestFirst);
    if (!page.has_more || oldestFirst.length === 0) return out;
    after = oldestFirst.at(-1)!;
  }
}

async function sinceTime(client: Client, gone: Event): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of client.events.listAll({ 'created[gte]': gone.created })) out.push(e);
  return out.reverse();
}
