// What `payorch listen`, `trigger` and `logs tail` share: event types checked against the catalog (with the
// nearest known one), following a log until Ctrl-C, and forwarding an event to a local URL signed like a
// webhook delivery (docs/api.md "Events and webhooks").
import type { Event, EventType } from '../contract/events.js';
import { CliError, EXIT } from './errors.js';
import { ApiError, ConnectionError } from '../client/errors.js';
import { printable } from '../output/render.js';

/**
 * The event catalog, loaded when a command checks or lists types: its module builds the API's schemas with
 * TypeBox (costly at start-up), which `listen` without --events, `--print-secret` and `logs tail` never need.
 */
export const eventCatalog = () => import('../contract/event-types.js');

/** The known event type `input` most likely means, when it is close enough to suggest (likelyEventType). */
export async function nearestEventType(input: string): Promise<string | undefined> {
  const [{ distance }, { likelyEventType }] = await Promise.all([import('fastest-levenshtein'), eventCatalog()]);
  const likely = likelyEventType(input, distance);
  return likely.close ? likely.type : undefined;
}

/** A usage error (exit 2) for an unknown type, naming the nearest known one and the command that lists them all. */
async function unknownType(flag: string, value: string, lister: string): Promise<CliError> {
  const near = await nearestEventType(value);
  return new CliError(
    `Unknown event type "${printable(value)}" (${flag}).${near ? ` Did you mean ${near}?` : ''} \`${lister}\` shows every type.`,
    EXIT.USAGE,
  );
}

/** One event type, checked against the catalog; `lister` is the command the error points to for the full list. */
export async function checkEventType(
  flag: string,
  value: string,
  lister = 'payorch trigger --list',
): Promise<EventType> {
  const { isEventType } = await eventCatalog();
  if (!isEventType(value)) throw await unknownType(flag, value, lister);
  return value;
}

/**
 * `a,b,payment.*` → the patterns, each a known type or a `*` pattern that matches at least one known type, and
 * whether a type matches one of them. Blank entries and an empty list are usage errors.
 */
export async function eventFilter(
  flag: string,
  csv: string,
): Promise<{ patterns: string[]; matches: (type: string) => boolean }> {
  const patterns = await eventPatterns(flag, csv);
  const { eventTypeMatches } = await eventCatalog();
  return { patterns, matches: (type) => patterns.some((p) => eventTypeMatches(p, type)) };
}

/** `a,b,payment.*` → the patterns, checked as eventFilter checks them. */
export async function eventPatterns(flag: string, csv: string): Promise<string[]> {
  const { eventTypes, eventTypeMatches, isEventType } = await eventCatalog();
  const patterns = csv.split(',').map((p) => p.trim());
  if (patterns.length === 0 || patterns.some((p) => p === ''))
    throw new CliError(
      `${flag} takes event types or patterns separated by commas (e.g. payment.captured,refund.*).`,
      EXIT.USAGE,
    );
  for (const p of patterns) {
    if (p.includes('*')) {
      if (!/^[a-z_.*]+$/.test(p) || !eventTypes.some((t) => eventTypeMatches(p, t))) {
        throw new CliError(
          `The pattern "${printable(p)}" (${flag}) matches no event type. \`payorch trigger --list\` shows every type.`,
          EXIT.USAGE,
        );
      }
    } else if (!isEventType(p)) throw await unknownType(flag, p, 'payorch trigger --list');
  }
  return patterns;
}

/**
 * Resolves when the process gets SIGINT or SIGTERM (Ctrl-C, `kill`); `signal` aborts then, so that a wait or a
 * request in progress ends at once. The handlers are removed by `dispose`.
 */
export function untilStopped(): { stopped: Promise<void>; signal: AbortSignal; dispose: () => void } {
  const ctl = new AbortController();
  let resolve!: () => void;
  const stopped = new Promise<void>((r) => (resolve = r));
  const stop = () => {
    ctl.abort();
    resolve();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return {
    stopped,
    signal: ctl.signal,
    dispose: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

/** Waits `ms`, or less when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Follows a log until `stop`: calls `read` (which returns what is new, oldest first, and keeps its own cursor),
 * yields each item, and waits between reads as PollInterval says. A server that cannot be reached, is busy
 * (429) or fails (5xx) is said once (`say`) and read again; "Reconnected." when it answers again. Any other
 * failure (401, 400…) ends the command. Once `stop` resolves, nothing more is yielded.
 */
export async function* follow<T>(
  read: () => Promise<T[]>,
  stop: { stopped: Promise<void>; signal: AbortSignal },
  say: (message: string) => void,
  what: string,
): AsyncGenerator<T> {
  const interval = new PollInterval();
  let unreachable = false;
  while (!stop.signal.aborted) {
    let fresh: T[] = [];
    try {
      fresh = (await Promise.race([read(), stop.stopped.then(() => [] as T[])])) ?? [];
      if (unreachable && !stop.signal.aborted) say('Reconnected.');
      unreachable = false;
    } catch (err) {
      if (!(err instanceof ConnectionError) && !(err instanceof ApiError && (err.status === 429 || err.status >= 500)))
        throw err;
      if (!unreachable) say(`Cannot read ${what} (${err.message}); trying again…`);
      unreachable = true;
    }
    for (const item of fresh) {
      if (stop.signal.aborted) return;
      yield item;
    }
    await pause(interval.next(fresh.length > 0), stop.signal);
  }
}

/**
 * How often a follower polls (docs/api.md "Events and webhooks", Listening): every 250 ms while something new
 * keeps arriving, slowing by half again on each empty poll to once a second when idle.
 */
export class PollInterval {
  static readonly MIN_MS = 250;
  static readonly MAX_MS = 1000;
  private ms = PollInterval.MIN_MS;
  next(foundSomething: boolean): number {
    this.ms = foundSomething ? PollInterval.MIN_MS : Math.min(PollInterval.MAX_MS, Math.round(this.ms * 1.5));
    return this.ms;
  }
}

/** `localhost:3000/webhooks` → `http://localhost:3000/webhooks`; anything but an http(s) URL with a host is a usage error. */
export function forwardUrl(input: string): URL {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `http://${input}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(
      `--forward-to takes a URL such as localhost:3000/webhooks or https://example.test/hook; got "${printable(input)}".`,
      EXIT.USAGE,
    );
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw new CliError(`--forward-to must be an http or https URL; got "${printable(input)}".`, EXIT.USAGE);
  }
  if (url.username || url.password)
    throw new CliError('--forward-to must not carry a user name or password.', EXIT.USAGE);
  // Port 0 would go to the protocol's default port; the URL parser already refuses ports past 65535.
  if (url.port === '0')
    throw new CliError(`--forward-to needs a port from 1 to 65535; got "${printable(input)}".`, EXIT.USAGE);
  return url;
}

export type ForwardResult = { status: number; ms: number } | { error: string; ms: number };

/**
 * POSTs `event` to `url` as a webhook delivery would (body = the event's JSON, the X-Payorch-* and Standard Webhooks
 * headers, signatures with `secret`), with `headers` added (`listen -H`), within `timeoutMs`. Never throws: an
 * unreachable, failing or slow target is a result. Redirects are not followed (the signed body goes where the user
 * said, nowhere else). `skipVerify`: an https target's certificate is not checked (a self-signed one).
 */
export async function forwardEvent(
  url: URL,
  event: Event,
  secret: string,
  opts: {
    timeoutMs: number;
    userAgent: string;
    signal?: AbortSignal;
    headers?: [string, string][];
    skipVerify?: boolean;
  },
): Promise<ForwardResult> {
  const body = JSON.stringify(event);
  const started = Date.now();
  const [lib, { webhookHeaders }] = await Promise.all([
    url.protocol === 'https:' ? import('node:https') : import('node:http'),
    import('../webhooks/signature.js'),
  ]);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': opts.userAgent };
  // A custom header may replace Content-Type or User-Agent, never a signed one (parseForwardHeaders refuses them).
  for (const [name, value] of opts.headers ?? []) {
    for (const key of Object.keys(headers)) if (key.toLowerCase() === name.toLowerCase()) delete headers[key];
    headers[name] = value;
  }
  Object.assign(headers, webhookHeaders(event, body, secret, Math.floor(Date.now() / 1000)), {
    'content-length': String(Buffer.byteLength(body)),
  });
  return new Promise<ForwardResult>((resolve) => {
    let done = false;
    const finish = (r: ForwardResult) => {
      if (done) return;
      done = true;
      opts.signal?.removeEventListener('abort', onAbort);
      resolve(r);
    };
    const tls = url.protocol === 'https:' && opts.skipVerify ? { rejectUnauthorized: false } : {};
    const req = lib.request(url, { method: 'POST', headers, agent: false, ...tls }, (res) => {
      // Only the status matters; the body is read and dropped (at most what arrives before the timeout).
      res.on('data', () => undefined);
      res.on('end', () => finish({ status: res.statusCode ?? 0, ms: Date.now() - started }));
      res.on('error', () => finish({ status: res.statusCode ?? 0, ms: Date.now() - started }));
    });
    const timer = setTimeout(() => {
      finish({ error: `no answer within ${Math.round(opts.timeoutMs / 1000)} s`, ms: Date.now() - started });
      req.destroy();
    }, opts.timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const hint = CERT_ERRORS.has(err.code ?? '') ? ' (a self-signed certificate? --skip-verify)' : '';
      finish({ error: `${err.code ?? err.message}${hint}`, ms: Date.now() - started });
    });
    const onAbort = () => {
      finish({ error: 'stopped', ms: Date.now() - started });
      req.destroy();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    req.end(body);
  });
}

/** TLS errors of a certificate that is not trusted: the forward's error suggests --skip-verify. */
const CERT_ERRORS = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Headers `listen` may not replace with -H: the signed ones and those of the body's framing. */
const RESERVED_HEADERS = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'host',
  'x-payorch-signature',
  'x-payorch-event-id',
  'x-payorch-event-type',
  'x-payorch-test-mode',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);

/**
 * `listen -H` values (the Stripe CLI's syntax: `"Key:Value, Key2:Value2"`, the flag repeatable; a field in double
 * quotes may hold commas, `""` is a quote) → name and value pairs, trimmed. A malformed entry, a name that is not
 * an HTTP token, a value with a control character, or a header that payorch sets itself is a usage error.
 */
export function parseForwardHeaders(values: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (const value of values) {
    for (const field of csvFields(value)) {
      const entry = field.trim();
      if (entry === '') continue;
      const colon = entry.indexOf(':');
      const name = colon < 0 ? '' : entry.slice(0, colon).trim();
      const text = colon < 0 ? '' : entry.slice(colon + 1).trim();
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
        throw new CliError(
          `--headers takes Key:Value pairs separated by commas (e.g. "Authorization:Bearer abc, X-Env:dev"); got "${printable(entry)}".`,
          EXIT.USAGE,
        );
      // a header value may not hold control characters (a tab is allowed)
      if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(text))
        throw new CliError(`--headers: the value of ${name} holds a control character.`, EXIT.USAGE);
      if (RESERVED_HEADERS.has(name.toLowerCase()))
        throw new CliError(`--headers cannot set ${name}: payorch sets it on every forward.`, EXIT.USAGE);
      out.push([name, text]);
    }
  }
  return out;
}

/** The fields of one line of comma-separated values (double quotes as in CSV). */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c !== '"') field += c;
      else if (line[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (c === '"' && field.trim() === '') {
      field = '';
      quoted = true;
    } else if (c === ',') {
      fields.push(field);
      field = '';
    } else field += c;
  }
  if (quoted) throw new CliError(`--headers: a quote is not closed in "${printable(line)}".`, EXIT.USAGE);
  fields.push(field);
  return fields;
}
