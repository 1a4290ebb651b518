// The request log shared by the server processes of one database (docs/api.md "Request log", "What the server needs
// of PostgreSQL"). A process writes its entries off the request path (every REQUEST_LOG_FLUSH_MS, before it reads
// the log, and when it closes), one statement per account, outside any transaction. That statement numbers them from
// the account's counter row (request_log_seqs, `INSERT … ON CONFLICT DO UPDATE … RETURNING`, which holds the row to
// COMMIT: another process's entries get later numbers only once these are committed, so a reader following `after`
// never passes one), and drops what is past REQUEST_LOG_SIZE. A read is one statement (one snapshot); filters and
// paging are requestlog.ts's.
import { AsyncResource } from 'node:async_hooks';
import type { RequestLogPage, RequestLogQuery } from '../../../contract/requestlog.js';
import {
  pageOf,
  REQUEST_LOG_SIZE,
  summaryOf,
  type Kept,
  type RequestLogPort,
  type RequestSummary,
} from '../../http/requestlog.js';
import type { PostgresDatabase } from './db.js';
import { pgQuery } from './query.js';

/** How long an entry waits in memory before it is written (ms). */
export const REQUEST_LOG_FLUSH_MS = 200;

const WRITE = `WITH s AS (
    INSERT INTO request_log_seqs (account_id, seq) VALUES ($1, $2)
    ON CONFLICT (account_id) DO UPDATE SET seq = request_log_seqs.seq + excluded.seq
    RETURNING seq
  ), ins AS (
    INSERT INTO request_log (account_id, seq, entry)
    SELECT $1, s.seq - $2 + e.i, e.entry FROM s, jsonb_array_elements_text($3::text::jsonb) WITH ORDINALITY AS e(entry, i)
  )
  DELETE FROM request_log WHERE account_id = $1 AND seq <= (SELECT seq FROM s) - $4`;

/**
 * The account's counter and its kept entries after `$3` (all of them for 0, or for an `after` past the counter, which
 * reads from the start: requestlog.ts `pageOf`).
 */
const READ = `SELECT s.seq AS top, l.seq, l.entry FROM request_log_seqs s
  LEFT JOIN request_log l ON l.account_id = s.account_id AND l.seq > s.seq - $2
    AND l.seq > CASE WHEN $3::bigint > s.seq THEN 0 ELSE $3::bigint END
  WHERE s.account_id = $1 ORDER BY l.seq`;

type Entry = Omit<Kept, 'seq'>;

export class SharedRequestLog implements RequestLogPort {
  /** Entries not written yet, per account, oldest first. */
  private pending = new Map<string, Entry[]>();
  private timer: NodeJS.Timeout | undefined;
  /** The write under way (writes run one at a time, in order). */
  private writing: Promise<void> = Promise.resolve();
  /** Runs a query outside the caller's transaction (on the pool): the context this log was made in. */
  private readonly outside = AsyncResource.bind(<T>(fn: () => T): T => fn());

  constructor(
    private readonly store: PostgresDatabase,
    /** Told of a write that failed (its entries are dropped). */
    private readonly onError: (err: unknown) => void = () => {},
    private readonly size = REQUEST_LOG_SIZE,
    private readonly everyMs = REQUEST_LOG_FLUSH_MS,
  ) {}

  record(r: RequestSummary): void {
    const entry = summaryOf(r);
    if (!entry) return;
    let list = this.pending.get(r.accountId);
    if (!list) this.pending.set(r.accountId, (list = []));
    list.push(entry);
    // Past the size, the oldest would be dropped at once by the write: they are not kept for it.
    if (list.length > this.size) list.splice(0, list.length - this.size);
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush().catch(this.onError), this.everyMs);
      this.timer.unref();
    }
  }

  /**
   * Writes what waits (after the write under way). A write that fails (the database unreachable) drops its entries:
   * the log is a view of recent requests, and the access log keeps every one.
   */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = new Map();
    const run = this.writing.then(() =>
      this.outside(async () => {
        for (const [accountId, entries] of batch) {
          await pgQuery(this.store.current(), WRITE, [
            accountId,
            entries.length,
            JSON.stringify(entries.map((e) => JSON.stringify(e))),
            this.size,
          ]);
        }
      }),
    );
    this.writing = run.catch(() => {});
    return run;
  }

  async read(accountId: string, url: string, q: RequestLogQuery): Promise<RequestLogPage> {
    // This process's own requests first: a read right after a request through the same process shows it.
    await this.flush().catch(this.onError);
    const rows = await this.outside(() =>
      pgQuery<{ top: number; seq: number | null; entry: string | null }>(this.store.current(), READ, [
        accountId,
        this.size,
        q.after ?? 0,
      ]),
    );
    const ring: Kept[] = [];
    for (const row of rows) if (row.seq !== null) ring.push({ ...(JSON.parse(row.entry!) as Entry), seq: row.seq });
    return pageOf(ring, rows[0]?.top ?? 0, url, q);
  }

  async forget(): Promise<void> {
    this.pending.clear();
    await this.writing;
    await this.outside(() => pgQuery(this.store.current(), 'DELETE FROM request_log', []));
  }

  /** Writes what waits, before the store closes. */
  async close(): Promise<void> {
    await this.flush().catch(this.onError);
  }
}
