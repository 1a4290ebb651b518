// How BaseCommand.catch reports an error: a table from the error's class to its exit code, its --json body
// (on stdout) and its line for people (on stderr). The first row that matches wins; anything else is an
// internal error (exit 1).
import {
  ApiError,
  ConnectionError,
  InvalidBaseUrlError,
  InvalidIdError,
  ProtocolError,
  SimulateWithLiveKeyError,
  UnsendableRequestError,
} from '../client/errors.js';
import { colorErr, printable } from '../output/render.js';
import { isLocalHost } from '../client/url.js';
import { EVENT_RETENTION_MS } from '../contract/limits.js';
import { apiExitCode, CliError, EXIT } from './errors.js';
import { FixtureEditError, FixtureError, FixtureStepError } from '../fixtures/errors.js';

export interface Report {
  exit: number;
  body: unknown;
  line: string;
}

type Colors = ReturnType<typeof colorErr>;
type FsError = Error & { code?: string; path?: string; syscall?: string };
type ErrorClass<E> = abstract new (...args: never[]) => E;

interface Row {
  /** The error this row reports, narrowed, or undefined when the row does not apply. */
  match(err: Error): Error | undefined;
  report(err: Error, c: Colors, env: NodeJS.ProcessEnv): Report;
}

function row<E extends Error>(
  cls: ErrorClass<E>,
  report: (err: E, c: Colors, env: NodeJS.ProcessEnv) => Report,
  when: (err: E) => boolean = () => true,
): Row {
  return { match: (err) => (err instanceof cls && when(err) ? err : undefined), report: report as Row['report'] };
}

/** Errors the CLI reports as its own (a usage or configuration problem): the exit code each gets. */
const AS_CLI_ERROR: [cls: ErrorClass<Error>, exit: number, when?: (err: Error) => boolean][] = [
  [InvalidBaseUrlError, EXIT.AUTH],
  [UnsendableRequestError, EXIT.AUTH, (err) => (err as UnsendableRequestError).part === 'api_key'],
  [InvalidIdError, EXIT.USAGE],
  [FixtureError, EXIT.USAGE],
  [FixtureEditError, EXIT.USAGE],
  [UnsendableRequestError, EXIT.USAGE],
  [SimulateWithLiveKeyError, EXIT.USAGE],
];

/** The error as a CliError, when it is one of the CLI's own problems; else undefined. */
function asCliError(err: FsError): CliError | undefined {
  if (err instanceof CliError) return err;
  const hit = AS_CLI_ERROR.find(([cls, , when]) => err instanceof cls && (!when || when(err)));
  return hit
    ? new CliError(err.message, hit[1], err instanceof SimulateWithLiveKeyError ? err.code : undefined)
    : fileSystemProblem(err);
}

/**
 * What to check when a server could not be reached: the local test-mode server may simply not be running; a
 * remote host may be misspelt or out of reach, so the hint names it and where its URL came from.
 */
function unreachableHint(baseUrl: string): string {
  let host: string | undefined;
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    host = undefined; // the embedded server's description: not a URL
  }
  if (host === undefined || isLocalHost(host)) return 'Is the server running? (`payorch server start`)';
  return `Is ${printable(host)} the right host, and reachable from here? Check the base URL (--base-url, PAYORCH_BASE_URL or the profile: \`payorch profiles show\`).`;
}

/** An API error's report; `message` (default: the API's) is what the line says before the codes. */
function apiReport(err: ApiError, c: Colors, message = err.message): Report {
  const parts = [
    err.code,
    err.param ? `param ${err.param}` : '',
    err.declineCode ? `decline ${err.declineCode}` : '',
    err.paymentId ? `payment ${err.paymentId}` : '',
    err.requestId ? `request ${err.requestId}` : '',
  ].filter(Boolean);
  const exit = apiExitCode(err.status, err.code);
  return {
    exit,
    body: err.body,
    line: `${c.red('Error:')} ${printable(message)} ${c.dim(`(${printable(parts.join(', '))})`)}${apiHint(err, exit)}`,
  };
}

/**
 * What the line adds to an API error (never to --json's body, which stays the API's): what the API's message
 * cannot say. An answer that says "not now" gets the exit code a script can act on (75), named. An event id the log does not have may never have existed or may have been removed by retention —
 * the server keeps nothing of a removed event to tell them apart (docs/api.md "Retention"), so both are named.
 */
function apiHint(err: ApiError, exit: number): string {
  if (exit === EXIT.TRY_LATER) {
    const after = Number.isFinite(err.retryAfter) ? ` (the server asks for ${err.retryAfter} s)` : '';
    return ` Try again later${after}; exit ${EXIT.TRY_LATER}.`;
  }
  if (err.status === 404 && err.code === 'resource_missing' && err.param === 'event_id')
    return ` Events are kept ${EVENT_RETENTION_MS / 86_400_000} days (on the account's clock); an older one is no longer there.`;
  return '';
}

const ROWS: Row[] = [
  row(ApiError, (err, c) => apiReport(err, c)),
  // A fixture step the API refused: the API's report, naming the step; --json adds `step` beside `error`.
  row(FixtureStepError, (err, c) => {
    const r = apiReport(err.apiError, c, err.message);
    return { ...r, body: { ...err.apiError.body, step: err.step } };
  }),
  row(ConnectionError, (err, c) => {
    const timeout = err.name === 'TimeoutError';
    return {
      exit: EXIT.UNREACHABLE,
      body: { error: { type: 'api_error', code: timeout ? 'timeout' : 'connection_error', message: err.message } },
      line: `${c.red('Error:')} ${printable(err.message)}. ${timeout ? 'Is the server overloaded? (raise --timeout or PAYORCH_TIMEOUT)' : unreachableHint(err.url)}`,
    };
  }),
  row(ProtocolError, (err, c) => ({
    exit: EXIT.API,
    body: { error: { type: 'api_error', code: 'protocol_error', message: err.message } },
    line: `${c.red('Error:')} ${printable(err.message)}`,
  })),
  {
    match: asCliError,
    report: (err, c) => {
      const e = err as CliError;
      return {
        exit: e.exitCode,
        body: { error: { type: 'invalid_request_error', code: e.code, message: e.message } },
        line: `${c.red('Error:')} ${printable(e.message)}`,
      };
    },
  },
  {
    match: (err) => (err.name === 'ExitPromptError' ? err : undefined),
    report: () => ({
      exit: EXIT.INTERRUPTED,
      body: {
        error: {
          type: 'invalid_request_error',
          code: 'interrupted',
          message: 'Interrupted at the prompt; nothing was changed.',
        },
      },
      line: 'Interrupted; nothing was changed.',
    }),
  },
];

/** The exit code, --json body and stderr line for an error a command ended with. */
export function reportError(err: Error, env: NodeJS.ProcessEnv): Report {
  const c = colorErr();
  for (const r of ROWS) {
    const hit = r.match(err);
    if (hit) return r.report(hit, c, env);
  }
  return {
    exit: EXIT.API,
    body: { error: { type: 'api_error', code: 'cli_internal_error', message: err.message } },
    line: `${c.red('Error:')} ${printable(err.message)}${env.DEBUG ? `\n${err.stack}` : ''}`,
  };
}

/**
 * A file or directory the CLI needs but cannot use (PAYORCH_HOME under a file, a data directory that is a
 * file, no permission): a configuration problem (exit 3) naming the path and what to do.
 */
function fileSystemProblem(err: FsError): CliError | undefined {
  const codes: Record<string, string> = {
    ENOTDIR: 'a part of this path is a file, not a directory',
    EEXIST: 'it exists and is not a directory',
    EISDIR: 'it is a directory, not a file',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'the file system is read-only',
  };
  if (!err.code || !err.path || !(err.code in codes)) return undefined;
  return new CliError(
    `Cannot use ${err.path}: ${codes[err.code]} (${err.code}${err.syscall ? ` on ${err.syscall}` : ''}). Check PAYORCH_HOME and --data-dir, or pass --api-key and --base-url to use a server instead.`,
    EXIT.AUTH,
    'configuration_error',
  );
}
