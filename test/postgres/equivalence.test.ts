// Two server processes on one database answer as one server (issue 43, "a two-process equivalence test"): one scripted
// run — customers, a product and a monthly price, a subscription over three months of clock advances with its invoices
// read between, a processor marked down and a payment that fails over (and a renewal while it is down), a fault rule
// that fires once, a snapshot saved and restored (after an hour on the clock), and `payorch listen --json` (the real
// binary) running throughout — once through ONE process, and once alternating request by request between TWO processes
// on one database (a fresh database each). The two must give the same answers (ids and times normalized: each distinct
// id a placeholder in order of appearance, each time in whole hours from the run's anchor on the test clock), the same
// event types in the same order, the same invoices and ledger balances; and in each, listen prints every event of the
// log once, in the log's order: no repeat, no gap.
//
// Nothing is timed: the clock is first moved to a fixed anchor (the same for both runs: the first of a month, 12:00
// UTC), every later time is the anchor plus whole hours plus the real time the run has taken (well under an hour), and
// waits are for conditions, with generous bounds.
import { afterEach, describe, expect, it } from 'vitest';
import { postgresServer } from '../helpers/postgres.js';
import { sandboxes } from './sandbox.js';
import type { Child } from '../reliability/child.js';
import { listAll, requester, type Requester } from '../reliability/health.js';
import { listenJson, type Running } from '../cli-events/util.js';

const pg = postgresServer();

const sandboxesOfFile = sandboxes(pg);
const listeners: Running[] = [];
const stopListeners = () => Promise.all(listeners.splice(0).map((l) => l.stop('SIGINT')));
afterEach(stopListeners);

const PUBLIC_URL = 'https://sandbox.example.test';
const DAY = 86_400;
/** How long the run waits for listen to print what the log holds (a bound, never reached when all is well). */
const LISTEN_BOUND_MS = 20_000;

/** `n` server processes on a fresh database, the same public URL (hosted-page links are the sandbox's). */
async function sandbox(n: number): Promise<Child[]> {
  // No background due work: what comes due runs in the advance that reaches it (its answer's `ran`), in either run.
  return (await sandboxesOfFile.sandbox(n, { publicUrl: PUBLIC_URL, dueWorkIntervalMs: 0 })).procs;
}

// ------------------------------------------------------------------------------------------ normalizing

const ID =
  /\b[a-z]{2,12}(?:_[a-z]{2,12})*_[0-9A-Za-z]{16,}\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z$/;

/**
 * Maps each distinct id to `<id:N>` in order of appearance (the same map for the whole run), and each time (Unix
 * seconds, milliseconds, ISO 8601, or written in a text) to whole hours from `anchor` on the test clock.
 */
class Normalizer {
  private readonly ids = new Map<string, string>();
  constructor(private readonly anchor: number) {}

  private time(seconds: number): string {
    if (seconds < this.anchor - 1) return '<before the anchor>';
    return `<T+${Math.floor((seconds - this.anchor) / 3600)}h>`;
  }

  private id(s: string): string {
    let out = this.ids.get(s);
    if (!out) this.ids.set(s, (out = `<id:${this.ids.size + 1}>`));
    return out;
  }

  /** Walks in key order as the server wrote them (that order is part of the answer). */
  value(v: unknown): unknown {
    if (typeof v === 'string') {
      if (ISO.test(v)) return this.time(Date.parse(v) / 1000);
      // A time written into a text (an invoice line's period, 'YYYY-MM-DD HH:MM:SS UTC') is a time too.
      return v
        .replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/g, (m) =>
          this.time(Date.parse(m.replace(' ', 'T').replace(' UTC', 'Z')) / 1000),
        )
        .replace(ID, (m) => this.id(m));
    }
    if (typeof v === 'number') {
      const lo = this.anchor - 400 * DAY;
      const hi = this.anchor + 400 * DAY;
      if (Number.isInteger(v) && v >= lo && v <= hi) return this.time(v);
      if (Number.isInteger(v) && v >= lo * 1000 && v <= hi * 1000) return this.time(v / 1000);
      return v;
    }
    if (Array.isArray(v)) return v.map((x) => this.value(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.value(x)]));
    return v;
  }
}

/**
 * What of an answer two runs can share: a snapshot's size and a restore's durations are the machine's, not the
 * sandbox's; an advance's `ran` (the steps of due work) is kept as each kind's total (retention takes the events of one
 * millisecond per step, and how many share one is the machine's).
 */
function comparable(path: string, body: any): unknown {
  if (path.startsWith('/test-helpers/snapshots') && body && !body.error)
    return { object: body.object, name: body.name };
  if (body?.object === 'test_clock') {
    const totals: Record<string, number> = {};
    for (const r of body.ran as { name: string; count: number }[]) totals[r.name] = (totals[r.name] ?? 0) + r.count;
    return { ...body, ran: totals };
  }
  return body;
}

// ------------------------------------------------------------------------------------------ the run

interface Outcome {
  answers: unknown[];
  /** The types of every event the log held at some point, in log order (those a restore removed too). */
  everTypes: string[];
  /** The final log's types, oldest first. */
  finalTypes: string[];
  invoices: unknown;
  ledger: unknown;
  /** What listen printed (ids), and every event the log held at some point (ids), in log order. */
  listened: string[];
  logged: string[];
  /** Conditions the run waited for that did not come (listen not printing the newest event). */
  unmet: string[];
}

/**
 * The scripted run over `procs`: request i goes to procs[i % procs.length]; listen follows the log through the last
 * process. `anchor`: where the clock is moved first.
 */
async function scriptedRun(procs: Child[], anchor: number): Promise<Outcome> {
  const key = procs[0]!.apiKey;
  for (const p of procs) expect(p.apiKey).toBe(key);
  const reqs = procs.map((p) => requester(p.baseUrl, key));
  let turn = 0;
  const next = (): [Requester, Child] => {
    const i = turn++ % procs.length;
    return [reqs[i]!, procs[i]!];
  };
  const norm = new Normalizer(anchor);
  const answers: unknown[] = [];
  const call = async (method: string, path: string, body?: unknown, as?: string) => {
    const [req, proc] = next();
    const r = as ? await requester(proc.baseUrl, as)(method, path, { body }) : await req(method, path, { body });
    answers.push(norm.value({ request: `${method} ${path}`, status: r.status, body: comparable(path, r.body) }));
    return r;
  };
  const ok = async (method: string, path: string, body?: unknown, as?: string) => {
    const r = await call(method, path, body, as);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  };

  // The log as it stands (oldest first), merged into every event seen so far (a restore removes some; an advance
  // prunes the oldest only after listen has printed them).
  const logged: string[] = [];
  const everTypes: string[] = [];
  const readLog = async () => {
    const [req] = next();
    const log = (await listAll(req, '/events')).reverse() as { id: string; type: string }[];
    for (const e of log)
      if (!logged.includes(e.id)) {
        logged.push(e.id);
        everTypes.push(e.type);
      }
    return log;
  };

  const listenVia = procs.at(-1)!;
  const l = await listenJson(listenVia.baseUrl, key);
  listeners.push(l);
  const listened = l.printed;
  const unmet: string[] = [];
  /** Reads the log, and waits until listen has printed its newest event (noted, not thrown, if it does not). */
  const caughtUp = async (where: string) => {
    const log = await readLog();
    const newest = log.at(-1)?.id;
    if (!newest) return;
    await l
      .waitFor('stdout', () => listened().includes(newest), LISTEN_BOUND_MS)
      .catch(() => {
        unmet.push(`${where}: listen did not print the newest event ${newest}`);
      });
  };

  // The clock to the anchor: every later time is the anchor plus whole hours plus the run's own duration.
  await ok('POST', '/test-helpers/advance-clock', { to: anchor });
  await ok('GET', '/test-helpers/clock');

  // Customers, a product and a monthly price, a subscription.
  const jo = await ok('POST', '/customers', { email: 'jo@example.com', default_payment_method: 'tok_visa' });
  await ok('POST', '/customers', { email: 'al@example.com', default_payment_method: 'tok_mastercard' });
  const product = await ok('POST', '/products', { name: 'Pro' });
  const price = await ok('POST', '/prices', {
    product: product.id,
    currency: 'usd',
    unit_amount: 2500,
    recurring: { interval: 'month' },
  });
  const sub = await ok('POST', '/subscriptions', { customer: jo.id, items: [{ price: price.id }] });
  await ok('GET', `/invoices?subscription=${sub.id}`);

  // aurora marked down: a USD card payment fails over to basalt (the next request goes through the other process).
  await ok('POST', '/test-helpers/processors/aurora', { status: 'down' });
  await ok('GET', '/test-helpers/processors');
  const session = await ok('POST', '/create-session', { amount: 5000, currency: 'usd' });
  await ok(
    'POST',
    `/confirm-payment/${session.id}`,
    { payment_method_type: 'card', token_id: 'tok_visa' },
    session.client_secret,
  );
  await ok('GET', `/sessions/${session.id}`);

  // A fault rule that fires once: the next matching request gets it, the one after is served.
  await ok('POST', '/test-helpers/faults', { method: 'POST', path: '/customers', fault: 'status=503', count: 1 });
  const faulted = await call('POST', '/customers', { email: 'fault@example.com' });
  expect(faulted.status, faulted.text).toBe(503);
  await ok('POST', '/customers', { email: 'fault@example.com' });
  await ok('GET', '/test-helpers/faults');

  /** A month: half of it, a change, then to a day past the period's end (no advance prunes what listen has not read). */
  const month = async (n: number) => {
    await caughtUp(`before month ${n}`);
    await ok('POST', '/test-helpers/advance-clock', { seconds: 15 * DAY });
    await ok('PATCH', `/customers/${jo.id}`, { metadata: { month: String(n) } });
    await caughtUp(`in month ${n}`);
    const current = await ok('GET', `/subscriptions/${sub.id}`);
    await ok('POST', '/test-helpers/advance-clock', { to: current.current_period_end + DAY });
    await ok('GET', `/subscriptions/${sub.id}`);
    await ok('GET', `/invoices?subscription=${sub.id}`);
  };

  // Month 1: the renewal is charged while aurora is down (failover again); then aurora is up.
  await month(1);
  await ok('POST', '/test-helpers/processors/aurora', { status: 'up' });

  // A snapshot; an hour on the clock and a few changes; the restore takes them (and the hour) back. (An hour, not a
  // day: the day would put retention's cut among the run's first events, which lie seconds apart.)
  await ok('POST', '/test-helpers/snapshots', { name: 'mid' });
  await ok('POST', '/test-helpers/advance-clock', { seconds: 3600 });
  const gone = await ok('POST', '/customers', { email: 'gone@example.com' });
  await ok('POST', '/create-session', { amount: 700, currency: 'usd' });
  await caughtUp('before the restore');
  await ok('POST', '/test-helpers/snapshots/mid/restore');
  expect((await call('GET', `/customers/${gone.id}`)).status).toBe(404);
  await ok('GET', '/test-helpers/clock');
  await ok('POST', '/customers', { email: 'after@example.com' });

  await month(2);
  await month(3);

  await caughtUp('at the end');
  const invoices = norm.value(await listAll(next()[0], `/invoices?subscription=${sub.id}`));
  const ledger = norm.value(
    (await listAll(next()[0], '/ledger-accounts')).map((a: any) => ({
      id: a.id,
      currency: a.currency,
      balance: a.balance,
      pending_balance: a.pending_balance,
      available_balance: a.available_balance,
    })),
  );
  const finalLog = await readLog();
  // What listen printed: every event up to the newest (a last bounded wait for stragglers).
  await l
    .waitFor('stdout', () => logged.every((id) => listened().includes(id)), LISTEN_BOUND_MS)
    .catch(() => unmet.push('at the end: listen did not print every event of the log'));
  return {
    answers,
    everTypes,
    finalTypes: finalLog.map((e) => e.type),
    invoices,
    ledger,
    listened: listened(),
    logged,
    unmet,
  };
}

/** The first of the month at least 40 days ahead, 12:00 UTC (Unix seconds): both runs' anchor. */
function anchorTime(): number {
  const d = new Date(Date.now() + 40 * DAY * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1, 12) / 1000;
}

const repeated = (ids: string[]) => ids.filter((id, i) => ids.indexOf(id) !== i);

/** Where two lists first differ, with both sides (JSON), or '' when they are the same. */
function firstDifference(a: unknown[], b: unknown[]): string {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = JSON.stringify(a[i]);
    const y = JSON.stringify(b[i]);
    if (x !== y) return `#${i}:\n  one process:  ${x}\n  two processes: ${y}`;
  }
  return '';
}

function expectListenedOnce(run: string, o: Outcome): void {
  expect.soft(o.unmet, `${run}: waits for listen`).toEqual([]);
  expect.soft(repeated(o.listened), `${run}: events listen printed twice`).toEqual([]);
  expect
    .soft(
      o.logged.filter((id) => !o.listened.includes(id)),
      `${run}: events of the log listen never printed`,
    )
    .toEqual([]);
  expect.soft(o.listened, `${run}: listen's events, in the log's order`).toEqual(o.logged);
}

describe.skipIf(pg.missing !== '')(
  `one scripted run through one process and through two${pg.missing ? ` (skipped: ${pg.missing})` : ''}`,
  () => {
    it('gives the same answers, events, invoices and balances, and listen prints each event once', async () => {
      const anchor = anchorTime();
      const one = await scriptedRun(await sandbox(1), anchor);
      await stopListeners();
      await sandboxesOfFile.stopAll();
      const two = await scriptedRun(await sandbox(2), anchor);

      // The run itself did what it says (in the one-process run): three renewals and the first invoice, all paid.
      expect((one.invoices as any[]).length).toBe(4);
      expect(one.everTypes).toContain('invoice.paid');

      expectListenedOnce('one process', one);
      expectListenedOnce('two processes', two);
      expect.soft(firstDifference(one.answers, two.answers), 'the answers').toBe('');
      expect.soft(two.everTypes, 'every event type, in order').toEqual(one.everTypes);
      expect.soft(two.finalTypes, "the final log's types, in order").toEqual(one.finalTypes);
      expect.soft(two.invoices, 'the invoices').toEqual(one.invoices);
      expect.soft(two.ledger, 'the ledger balances').toEqual(one.ledger);
    }, 600_000);
  },
);
