// The live request log behind `GET /request-log` and `payorch logs tail` (docs/api.md "Request log"): per account, a
// ring of the most recent requests' summaries — method, path (no query string), status, duration, request id and time,
// the client's address, the id of the API key that made it, and the fault injected into it (docs/api.md "Fault
// injection"). Nothing else of a request is kept: no headers, bodies, keys or client secrets. One server on a data
// directory keeps it in memory only (a restart empties it; the access log on disk is the durable record); the
// processes of a shared database keep it there (RequestLogPort).
import { API_PREFIX } from '../../contract/common.js';
import {
  statusMatches,
  type RequestLogEntry,
  type RequestLogPage,
  type RequestLogQuery,
} from '../../contract/requestlog.js';

/** Entries kept per account. */
export const REQUEST_LOG_SIZE = 1000;

export interface RequestSummary {
  accountId: string;
  requestId: string;
  method: string;
  /** The request's URL as received (prefix and query string included); only its path is kept. */
  url: string;
  status: number;
  ms: number;
  /** The fault injected into it (http/faults.ts), if any. */
  simulated?: string;
  /** The client's address. */
  ip: string;
  /** The id of the API key that made it (never the key); undefined for a client secret. */
  keyId: string | undefined;
}

/**
 * Reads that follow a log themselves are not recorded, so that following does not fill the log: the request
 * log's own route, `GET /events` with `ending_before` and a listener's `GET /event-listeners/{id}/resends` (what
 * `payorch listen` polls), and the lease renewals a listener sends while it runs (`POST /event-listeners/{id}`).
 */
function isFollowing(method: string, path: string, url: string): boolean {
  if (method === 'POST') return /^\/event-listeners\/[^/]+$/.test(path);
  if (method !== 'GET') return false;
  if (path === '/request-log') return true;
  if (/^\/event-listeners\/[^/]+\/resends$/.test(path)) return true;
  return path === '/events' && /[?&]ending_before=/.test(url);
}

/** An entry as kept: the API object's fields, its time as a number (formatted when read). */
export interface Kept {
  seq: number;
  request_id: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  at: number;
  simulated: string | undefined;
  ip: string;
  keyId: string | null;
}

/**
 * The filters of a read (docs/api.md "Request log"), all of which an entry must pass; a list (comma-separated)
 * passes when any of its items does. Methods compare without case; addresses as the server saw them, with an
 * IPv4 address also matching its IPv4-mapped IPv6 form (`::ffff:127.0.0.1`).
 */
function matcher(q: RequestLogQuery): (e: Kept) => boolean {
  const methods = q.method?.toUpperCase().split(',');
  const ips = q.ip_address?.split(',').flatMap((ip) => [ip, `::ffff:${ip}`]);
  return (e) =>
    (q.status === undefined || statusMatches(q.status, e.status)) &&
    (q.path === undefined || e.path.startsWith(q.path)) &&
    (methods === undefined || methods.includes(e.method)) &&
    (q.request_id === undefined || e.request_id === q.request_id) &&
    (ips === undefined || ips.includes(e.ip)) &&
    (q.api_key === undefined || e.keyId === q.api_key) &&
    (q.request_status === undefined || (e.status >= 200 && e.status < 300) === (q.request_status === 'succeeded'));
}

const entryOf = (k: Kept): RequestLogEntry => ({
  object: 'request_log_entry',
  seq: k.seq,
  request_id: k.request_id,
  method: k.method,
  path: k.path,
  status: k.status,
  duration_ms: k.duration_ms,
  created_at: new Date(k.at).toISOString(),
  ip_address: k.ip,
  api_key: k.keyId,
  ...(k.simulated !== undefined ? { simulated: k.simulated } : {}),
});

/** Entries past `size` are dropped this many at a time (one array move per TRIM requests, not one per request). */
const TRIM = 64;

/**
 * Where the request log is kept: this process's memory (one server per data directory: `RequestLog`), or a database
 * every server process of a sandbox shares (adapters/postgres/requestlog.ts), so that a read through any process
 * shows every process's requests.
 */
export interface RequestLogPort {
  /** Keeps the request's entry (if the log records it); never waits, never fails the request. */
  record(r: RequestSummary): void;
  /** A page of the account's log (docs/api.md "Request log"): the same answer whichever store keeps it. */
  read(accountId: string, url: string, q: RequestLogQuery): RequestLogPage | Promise<RequestLogPage>;
  /** Forgets every entry (a snapshot was restored); each account's sequence goes on. */
  forget(): void | Promise<void>;
}

/** The request log in this process's memory. */
export class RequestLog implements RequestLogPort {
  /** Per account: its entries and its own sequence (a shared one would tell an account how busy the others are). */
  private readonly rings = new Map<string, { seq: number; entries: Kept[] }>();

  constructor(private readonly size = REQUEST_LOG_SIZE) {}

  /**
   * Forgets every entry (a snapshot was restored: the requests logged were made on data that is gone). Each
   * account's sequence goes on, so that a follower's `after` stays meaningful.
   */
  forget(): void {
    for (const log of this.rings.values()) log.entries = [];
  }

  record(r: RequestSummary): void {
    const entry = summaryOf(r);
    if (!entry) return;
    let log = this.rings.get(r.accountId);
    if (!log) this.rings.set(r.accountId, (log = { seq: 0, entries: [] }));
    const ring = log.entries;
    entry.seq = ++log.seq;
    ring.push(entry);
    if (ring.length >= this.size + TRIM) ring.splice(0, ring.length - this.size);
  }

  /** The account's kept entries, oldest first: its last `size`. */
  private kept(accountId: string): Kept[] {
    const ring = this.rings.get(accountId)?.entries ?? [];
    return ring.length > this.size ? ring.slice(ring.length - this.size) : ring;
  }

  /** The account's entries after `q.after` (oldest first), else its newest `limit` entries; filtered. */
  read(accountId: string, url: string, q: RequestLogQuery): RequestLogPage {
    return pageOf(this.kept(accountId), this.rings.get(accountId)?.seq ?? 0, url, q);
  }
}

/**
 * What the log keeps of a request (its entry, `seq` 0 until the log numbers it), or undefined for one it does not
 * record: of no account, or a read that follows a log.
 */
export function summaryOf(r: RequestSummary): Kept | undefined {
  if (!r.accountId) return undefined;
  const q = r.url.indexOf('?');
  const full = q < 0 ? r.url : r.url.slice(0, q);
  const path = full.startsWith(API_PREFIX + '/') ? full.slice(API_PREFIX.length) : full;
  if (isFollowing(r.method, path, r.url)) return undefined;
  return {
    seq: 0,
    request_id: r.requestId,
    method: r.method,
    path,
    status: r.status,
    duration_ms: Math.max(0, Math.round(r.ms)),
    at: Date.now(),
    simulated: r.simulated,
    ip: r.ip,
    keyId: r.keyId ?? null,
  };
}

/**
 * A read of an account's log: `ring` its kept entries (oldest first, at most its last REQUEST_LOG_SIZE), `seq` the
 * number of its newest entry ever (0 when it has none).
 */
export function pageOf(ring: Kept[], seq: number, url: string, q: RequestLogQuery): RequestLogPage {
  const limit = q.limit ?? 100;
  // An `after` past the newest entry comes from before a restart (the log starts over): read from the start.
  const after = q.after !== undefined && q.after > seq ? 0 : q.after;
  const match = matcher(q);
  if (after === undefined) {
    const data = ring.filter(match).slice(-limit).map(entryOf);
    return { object: 'list', data, has_more: false, next_after: ring.at(-1)?.seq ?? 0, url };
  }
  const data: RequestLogEntry[] = [];
  let scanned = after;
  let has_more = false;
  for (const e of ring) {
    if (e.seq <= after) continue;
    if (!match(e)) {
      scanned = e.seq;
      continue;
    }
    if (data.length === limit) {
      has_more = true;
      break;
    }
    data.push(entryOf(e));
    scanned = e.seq;
  }
  return { object: 'list', data, has_more, next_after: scanned, url };
}
