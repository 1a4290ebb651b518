// What `payorch server snapshot …` acts on (docs/api.md "Snapshots"): the server running on the data directory,
// over HTTP with the directory's default key (a running server's database can only be swapped by the server
// itself), else the directory's files, holding its lock.
import type { Client } from '../client/client.js';
import { defaultDataDir, readCredentials, readLock } from '../server/lock.js';
import { CliError, EXIT } from './errors.js';
import { dirFlag, envServer } from './server.js';

export const snapshotDataDirFlag = dirFlag(
  'Data directory (default: that of the server PAYORCH_BASE_URL names, as `server start --detach --env` exports it; else $PAYORCH_HOME/server, else ~/.local/share/payorch)',
);

/**
 * The data directory a snapshot command acts on without --data-dir: that of the server PAYORCH_BASE_URL names (as
 * `server stop` finds it: envServer), else the default one. A server it names that is gone, or that runs in
 * memory, is an error: acting on the default directory instead would be acting on another job's data.
 */
export function snapshotDataDir(env: NodeJS.ProcessEnv): string {
  const named = envServer(env);
  if (!named) return defaultDataDir(env);
  const server = named.servers[0];
  if (!server)
    throw new CliError(
      `No server payorch started is running at ${named.url} (PAYORCH_BASE_URL): say which data directory with --data-dir.`,
      EXIT.USAGE,
      'not_running',
    );
  if (server.data_dir === null)
    throw new CliError(
      `The server at ${named.url} (pid ${server.pid}, PAYORCH_BASE_URL) runs in memory: it has no data directory to keep snapshots in. Start it with --data-dir, or use the library's server.snapshot().`,
      EXIT.USAGE,
      'in_memory',
    );
  return server.data_dir;
}

export type SnapshotTarget = { kind: 'server'; client: Client; baseUrl: string } | { kind: 'files' };

export async function snapshotTarget(dir: string, userAgent: string): Promise<SnapshotTarget> {
  const lock = readLock(dir);
  if (!lock) return { kind: 'files' };
  if (!lock.base_url) {
    throw new CliError(
      `Another payorch process (pid ${lock.pid}) holds ${dir} right now (a server starting, or another snapshot command); try again.`,
      EXIT.USAGE,
      'data_dir_busy',
    );
  }
  const credentials = readCredentials(dir);
  if (!credentials)
    throw new CliError(`The server on ${dir} runs, but its key (credentials.json) cannot be read.`, EXIT.AUTH);
  const { Client } = await import('../client/client.js');
  return {
    kind: 'server',
    baseUrl: lock.base_url,
    client: new Client({
      apiKey: credentials.api_key,
      baseUrl: lock.base_url,
      userAgent,
      timeoutMs: 120_000,
      deadlineMs: 120_000,
    }),
  };
}

/** A snapshot error of the files (snapshots.ts SnapshotError, the lock) as the CLI's: a bad name is a usage error. */
export async function snapshotCliError(err: unknown): Promise<unknown> {
  const [{ SnapshotError }, { AlreadyRunningError }] = await Promise.all([
    import('../server/store/snapshot-rules.js'),
    import('../server/lock.js'),
  ]);
  if (err instanceof SnapshotError)
    return new CliError(err.message, err.code === 'invalid_name' ? EXIT.USAGE : EXIT.API, err.code);
  if (err instanceof AlreadyRunningError) return new CliError(err.message, EXIT.USAGE, 'already_running');
  return err;
}

/**
 * Runs `act` on what snapshot NAME of `dir` is reached through (snapshotTarget), the name checked first; the
 * errors of the files and the lock come out as the CLI's (snapshotCliError).
 */
export async function onSnapshot<T>(
  dir: string,
  name: string,
  userAgent: string,
  act: (target: SnapshotTarget) => Promise<T>,
): Promise<T> {
  try {
    const { checkName } = await import('../server/store/snapshot-rules.js');
    checkName(name);
    return await act(await snapshotTarget(dir, userAgent));
  } catch (err) {
    throw await snapshotCliError(err);
  }
}
