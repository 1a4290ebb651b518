// Exit codes (README "Exit codes") and the CLI's own failures.
export const EXIT = {
  OK: 0,
  /** The API answered with an error. */
  API: 1,
  /** Bad or missing flags/arguments, or a refusal that needs --yes. */
  USAGE: 2,
  /** Authentication failed (401) or the configuration is unusable (unknown profile, key without server…). */
  AUTH: 3,
  /** The server could not be reached. */
  UNREACHABLE: 4,
} as const;

/** A failure the CLI reports itself (no API call answered it). */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: number, readonly code = exitCode === EXIT.USAGE ? 'usage_error' : exitCode === EXIT.AUTH ? 'configuration_error' : 'cli_error') {
    super(message);
    this.name = 'CliError';
  }
}
