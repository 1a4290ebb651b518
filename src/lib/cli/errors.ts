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
