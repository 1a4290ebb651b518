// Exit codes (README "Exit codes") and the CLI's own failures.
export const EXIT = {
  OK: 0,
  /** The API answered with an error. */
  API: 1,
  /** Bad, blank or missing flags/arguments, a refusal that needs --yes, or "no" at a confirmation. */
  USAGE: 2,
  /** Authentication failed (401) or the configuration is unusable (unreadable config file, unknown profile, key without server…). */
  AUTH: 3,
  /** The server could not be reached (or did not answer within --timeout). */
  UNREACHABLE: 4,
  /**
   * The API answered "not now" (try again later): sysexits' EX_TEMPFAIL. See `apiExitCode`; also `server status` of a
   * server that runs while its database is unavailable.
   */
  TRY_LATER: 75,
  /** Interrupted (Ctrl-C at a prompt), as shells report SIGINT. */
  INTERRUPTED: 130,
} as const;

/** A failure the CLI reports itself (no API call answered it). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly code = exitCode === EXIT.USAGE
      ? 'usage_error'
      : exitCode === EXIT.AUTH
        ? 'configuration_error'
        : 'cli_error',
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * The exit code of an API error answer: 401 is authentication (3); an answer that says to come back later — 503 (the
 * server's database or storage unavailable, `storage_unavailable`, or the service itself, `service_unavailable`), 429
 * (a rate or concurrency limit) or 409 `idempotency_key_in_use` (the same request still running) — is 75, after the
 * client's own retries; every other is 1 (the request as sent will not succeed: a bad id, a bad value, a decline…).
 */
export function apiExitCode(status: number, code: string | undefined): number {
  if (status === 401) return EXIT.AUTH;
  if (status === 503 || status === 429 || (status === 409 && code === 'idempotency_key_in_use')) return EXIT.TRY_LATER;
  return EXIT.API;
}
