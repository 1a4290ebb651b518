// pino to a file in the data directory through an asynchronous destination (synchronous per-request file
// logging costs much of the throughput). Secrets are redacted by path as a second line of defence: the
// pipeline itself logs one line per request with method, path, status and timing — never headers or bodies.
import { closeSync, fsyncSync, mkdirSync, openSync, write, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import pino, { type Logger } from 'pino';

export const REDACT_PATHS = [
  'headers.authorization',
  'req.headers.authorization',
  'authorization',
  'body',
  '*.body',
  '*.client_secret',
  '*.api_key',
  '*.account_number',
  '*.routing_number',
  '*.number',
  '*.cvc',
  '*.value',
  'client_secret',
  'api_key',
];

/** The fields of the one line per request. */
export interface AccessFields {
  req: string;
  method: string;
  /** Without the query string. */
  path: string;
  status: number;
  ms?: number;
  account?: string;
  /** The fault injected into the request (http/faults.ts): test mode's fault injection, marked. */
  simulated?: string;
}

/** Where the one line per request goes. */
export interface AccessLog {
  write(fields: AccessFields): void;
  /** Hands the lines held back to the file's destination. */
  flush(): void;
}

/**
 * The line pino would write for `info({ req, method, path, status, ms, account }, 'request')` with `base: { pid }`,
 * built by hand and handed to the destination 64 lines at a time (cheaper than pino's info() per request). Fixed
 * fields that never hold a secret, so no redaction (see FileLogger.access).
 */
class AccessLines implements AccessLog {
  private pending = '';
  private count = 0;

  constructor(
    private readonly dest: { write(data: string): unknown },
    private readonly pid: number,
  ) {}

  write(f: AccessFields): void {
    let line = `{"level":30,"time":${Date.now()},"pid":${this.pid},"req":${JSON.stringify(f.req)},"method":${JSON.stringify(f.method)},"path":${JSON.stringify(f.path)},"status":${f.status}`;
    if (f.ms !== undefined && Number.isFinite(f.ms)) line += `,"ms":${f.ms}`;
    if (f.account !== undefined) line += `,"account":${JSON.stringify(f.account)}`;
    if (f.simulated !== undefined) line += `,"simulated":${JSON.stringify(f.simulated)}`;
    this.pending += `${line},"msg":"request"}\n`;
    if (++this.count >= 64) this.flush();
  }

  flush(): void {
    if (!this.pending) return;
    const lines = this.pending;
    this.pending = '';
    this.count = 0;
    this.dest.write(lines);
  }
}

/**
 * The log file's destination: lines are buffered and written asynchronously, at most `maxBuffered` bytes held.
 * A failing write (disk full, I/O error) never blocks, throws or emits: the lines wait in the buffer and the
 * write is tried again a second later; lines that do not fit are dropped and counted, and a line saying how
 * many were dropped is written once the file takes writes again. (pino's own destination retries a failed
 * synchronous flush forever and emits an unhandled `error` on a failed asynchronous write.)
 */
export class LogFile {
  private fd = -1;
  private pending: string[] = [];
  private pendingBytes = 0;
  private writing = false;
  private dropped = 0;
  private retry?: NodeJS.Timeout;
  private waiters: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly path: string,
    private readonly minLength = 16 * 1024,
    readonly maxBuffered = 4 * 1024 * 1024,
  ) {
    this.open();
  }

  private open(): boolean {
    if (this.fd >= 0) return true;
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      this.fd = openSync(this.path, 'a', 0o600);
      return true;
    } catch {
      return false;
    }
  }

  /** Lines dropped since the last successful write (tests). */
  get droppedLines(): number {
    return this.dropped;
  }

  write(data: string): boolean {
    if (this.closed) return true;
    if (this.pendingBytes + data.length > this.maxBuffered) {
      this.dropped += countLines(data);
      return true;
    }
    this.pending.push(data);
    this.pendingBytes += data.length;
    if (this.pendingBytes >= this.minLength) this.kick();
    return true;
  }

  /** Writes what is pending; `cb` once it is written or the write failed (the lines then wait for a retry). */
  flush(cb?: (err?: Error) => void): void {
    if (cb) this.waiters.push(() => cb());
    this.kick();
    if (!this.writing) this.settle();
  }

  private settle(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private take(): string {
    let chunk = this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    if (this.dropped > 0) {
      chunk =
        `{"level":40,"time":${Date.now()},"pid":${process.pid},"dropped":${this.dropped},"msg":"log lines dropped: the log file did not take writes"}\n` +
        chunk;
      this.dropped = 0;
    }
    return chunk;
  }

  /** Puts back what could not be written (or drops it, if the buffer has filled meanwhile). */
  private putBack(chunk: string): void {
    if (chunk.length + this.pendingBytes > this.maxBuffered) {
      this.dropped += countLines(chunk);
      return;
    }
    this.pending.unshift(chunk);
    this.pendingBytes += chunk.length;
  }

  private kick(): void {
    if (this.writing || this.retry || (this.pending.length === 0 && this.dropped === 0)) return;
    if (!this.open()) return this.later();
    const chunk = this.take();
    this.writing = true;
    const buf = Buffer.from(chunk);
    write(this.fd, buf, 0, buf.length, null, (err, n) => {
      this.writing = false;
      if (err) {
        this.putBack(chunk);
        this.later();
      } else if (n < buf.length) {
        this.putBack(buf.subarray(n).toString());
        this.kick();
      } else if (this.pendingBytes >= this.minLength) {
        this.kick();
      }
      if (!this.writing) this.settle();
    });
  }

  private later(): void {
    this.retry ??= setTimeout(() => {
      this.retry = undefined;
      this.kick();
    }, 1000);
    this.retry.unref();
    this.settle();
  }

  /** One synchronous attempt to write what is pending (at close); what fails is dropped. Never throws. */
  flushSync(): void {
    if (this.writing || !this.open()) return;
    const chunk = this.take();
    if (!chunk) return;
    try {
      writeSync(this.fd, chunk);
      fsyncSync(this.fd);
    } catch {
      /* disk full or I/O error: these lines are lost, the server is not */
    }
  }

  end(): void {
    this.flushSync();
    this.closed = true;
    clearTimeout(this.retry);
    if (this.fd >= 0 && !this.writing) {
      try {
        closeSync(this.fd);
      } catch {
        /* already closed */
      }
      this.fd = -1;
    }
  }
}

function countLines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

const NO_ACCESS_LOG: AccessLog = { write: () => undefined, flush: () => undefined };

export interface FileLogger {
  logger: Logger;
  /**
   * The one line per request (request id, method, path without query, status, ms, account): fixed fields that
   * never hold a secret, so written without path redaction (costly per line). Everything else goes through
   * `logger`, redacted.
   */
  access: AccessLog;
  flush(): void;
}

export function fileLogger(path: string | null, level = process.env.PAYORCH_LOG_LEVEL ?? 'info'): FileLogger {
  if (path === null) {
    const silent = pino({ level: 'silent' });
    return { logger: silent, access: NO_ACCESS_LOG, flush: () => undefined };
  }
  // 16 KiB before each write (the server flushes once a second, so `server logs --follow` stays live).
  const dest = new LogFile(path, 16 * 1024);
  const logger = pino(
    { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { pid: process.pid } },
    dest,
  );
  const access = logger.isLevelEnabled('info') ? new AccessLines(dest, process.pid) : NO_ACCESS_LOG;
  return {
    logger,
    access,
    flush() {
      access.flush();
      try {
        dest.flushSync();
      } catch {
        /* not ready yet or already closed */
      }
    },
  };
}
