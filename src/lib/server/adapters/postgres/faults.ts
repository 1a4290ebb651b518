// What a PostgreSQL failure means to the store: the database unavailable (a 503), a conflict to run again, text it
// cannot store. The driver's codes and PostgreSQL's SQLSTATEs, in one place.

/** PostgreSQL could not be reached or could not serve (stopped, restarting, refused, out of connections). */
export class StorageUnavailable extends Error {
  /** What tells the request pipeline (http/replies.ts) that it is the storage's fault: a 503 storage_unavailable. */
  readonly code = 'STORAGE_UNAVAILABLE';
  constructor(message: string) {
    super(message);
    this.name = 'StorageUnavailable';
  }
}

/** A lock waited for longer than `lock_timeout`. */
const LOCK_NOT_AVAILABLE = '55P03';
/** In a shared transaction: a conflict, or a lock waited for too long (`batch`): the request runs in a later one. */
export const conflictLike = (err: unknown) => retryable(err) || codeOf(err) === LOCK_NOT_AVAILABLE;

/** SQLSTATEs of text PostgreSQL cannot store or parse: untranslatable character, invalid byte sequence. */
export const UNSTORABLE = new Set(['22P05', '22021']);

/** The SQLSTATE or driver code of `err` (or of its cause). */
export function codeOf(err: unknown): string | undefined {
  const e = err as { code?: unknown } | undefined;
  return typeof e?.code === 'string' ? e.code : undefined;
}

/** Aborted by PostgreSQL to keep transactions serializable, or to break a deadlock: running it again is safe. */
export const retryable = (err: unknown) => {
  const code = codeOf(err);
  return code === '40001' || code === '40P01';
};

const DRIVER_UNAVAILABLE = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'ENOENT', // a Unix socket that is not there (the server is stopped)
]);

/**
 * Not the request's fault but the database's: the driver lost or could not make its connection, or PostgreSQL says
 * it cannot serve — class 08 (connection), 53 (out of resources: connections, disk, memory), 57P01–57P03 (shutting
 * down, crashed, starting up), 58 (I/O), 28 and 3D000 (the URL's user or database refused: configuration).
 */
export function unavailable(err: unknown): boolean {
  const code = codeOf(err);
  if (code === undefined) return false;
  return DRIVER_UNAVAILABLE.has(code) || /^(08|53|58|28)|^57P0[123]$|^3D000$/.test(code);
}

/** The connection itself failed (rather than PostgreSQL answering that it cannot serve). */
export function lostConnection(err: unknown): boolean {
  const code = codeOf(err);
  return code !== undefined && (DRIVER_UNAVAILABLE.has(code) || /^08|^57P0[12]$/.test(code));
}
