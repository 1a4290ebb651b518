// The fastify application: every route declared with defineRoute goes through one pipeline — the request's
// lifecycle (id, caller, limits, access line: http/lifecycle.ts), JSON parsing and schema validation
// (http/fastify.ts), fault injection in test mode (http/faults.ts), execution (transaction, idempotency, outcome:
// http/execute.ts) — and every failure leaves as the contract's error body (http/replies.ts).
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../contract/common.js';
import type { Logger } from 'pino';
import type { AccessLog } from './log.js';
import type { Services } from './domain/services.js';
import type { HttpRuntime } from './http/runtime.js';
import { createFastify, type Timeouts } from './http/fastify.js';
import { KnownPaths, replyWithErrors } from './http/replies.js';
import { followEachRequest } from './http/lifecycle.js';
import { injectFaults } from './http/faults.js';
import { allowBrowsers } from './http/cors.js';
import { serveRoute } from './http/execute.js';
import { registerPages } from './http/pages.js';
import { allRoutes } from './routes/index.js';
import { paymentsPages } from './pages/payments.js';
import { billingPages } from './pages/billing.js';
import type { Gate } from './http/gate.js';
import { serveSnapshots, type SnapshotAdmin } from './http/snapshots.js';

export interface AppOptions {
  services: Services;
  /** Idempotency records, rate limiter, request log (http/runtime.ts). */
  runtime: HttpRuntime;
  logger?: Logger;
  /** Where the one line per request goes (log.ts); none when absent. */
  accessLog?: AccessLog;
  /** The API's public base URL (…/functions/v1), used for links such as a session's fallback_url. */
  publicUrl: () => string;
  version: string;
  /** Header and request timeouts (default DEFAULT_TIMEOUTS). */
  timeouts?: Timeouts;
  /** Marks of the local ports the server's own webhook sender is connected to it from (http/lifecycle.ts). */
  ownPorts?: Uint8Array;
  /** What every request passes first (http/gate.ts): a listening server holds requests there while it restores a snapshot. */
  gate?: Gate;
  /** The snapshot routes (http/snapshots.ts), on a listening server. */
  snapshots?: SnapshotAdmin;
  /**
   * Only the routes and pages at the URLs (…/functions/v1/…) this selects, default all. Those left out still count
   * for 404 and 405 answers. The in-process transport's app: a command asks for one or two paths (`mayMatch`).
   */
  only?: (url: string) => boolean;
}

export async function buildApp({
  services,
  runtime,
  logger,
  accessLog,
  publicUrl,
  timeouts,
  ownPorts,
  gate,
  snapshots,
  only = () => true,
}: AppOptions): Promise<FastifyInstance> {
  const app = createFastify(logger, timeouts);
  gate?.install(app);
  const known = new KnownPaths();
  replyWithErrors(app, known, logger);
  injectFaults(app, followEachRequest(app, services, runtime, accessLog, ownPorts));
  allowBrowsers(app, known);
  for (const spec of allRoutes) {
    if (only(API_PREFIX + spec.url)) serveRoute(app, spec, { services, runtime, publicUrl, known });
    else known.add(spec.method, API_PREFIX + spec.url);
  }
  // HTML pages: payments' hosted checkout page; billing's invoice page, portal and subscription checkout page.
  const pages = [...paymentsPages, ...billingPages];
  registerPages(
    app,
    pages.filter((p) => only(API_PREFIX + p.url)),
    { services, publicUrl, onUrl: (url) => known.add('GET', url) },
  );
  for (const p of pages) if (!only(API_PREFIX + p.url)) known.add('GET', API_PREFIX + p.url);
  if (snapshots && gate) serveSnapshots(app, snapshots, gate, known);
  return app;
}

/** The URLs of every route and page (…/functions/v1/…, parameters as `:name`). */
export const appUrls = (): string[] => [
  ...new Set([...allRoutes, ...paymentsPages, ...billingPages].map((r) => API_PREFIX + r.url)),
];

/**
 * Whether a route or page at `url` (…/sessions/:id) may be the one the router picks for `path` (a request's path,
 * its query ignored) — never false when it is: empty segments (duplicate or trailing slashes) are ignored, a
 * fixed segment compares without case and as sent or percent-decoded, a parameter takes any segment.
 */
export function mayMatch(url: string, path: string): boolean {
  const segments = (s: string) => s.split('/').filter(Boolean);
  const want = segments(url);
  const got = segments(path.split('?')[0]!);
  if (want.length !== got.length) return false;
  return want.every((w, i) => w.startsWith(':') || same(w, got[i]!));
}

function same(fixed: string, segment: string): boolean {
  if (fixed.toLowerCase() === segment.toLowerCase()) return true;
  try {
    return fixed.toLowerCase() === decodeURIComponent(segment).toLowerCase();
  } catch {
    return false;
  }
}
