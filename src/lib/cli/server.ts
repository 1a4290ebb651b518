// Shared pieces of the `payorch server …` commands, and the local server that commands with no key configured
// talk to: the one running on the default data directory, started in the background when the CLI runs at a
// terminal (see `localServer`).
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Flags } from '@oclif/core';
import {
  AlreadyRunningError,
  defaultDataDir,
  isAlive,
  isSameProcess,
  processStart,
  readCredentials,
  readLock,
} from '../server/lock.js';
import type { RunningServer, ServerOptions } from '../server/listening.js';
import { SeedError } from '../server/seed.js';
import { maskSecret } from '../output/mask.js';
import type { FaultRuleBody } from '../contract/faults.js';
import { shellWord } from '../output/shell.js';
import { CliError, EXIT } from './errors.js';
import { isLiveKey, resolveTarget, type Target } from './target.js';
import { DEFAULT_PORT, isLoopbackHostname } from '../contract/prefix.js';
import { withoutPassword } from '../server/database-url.js';

export { shellWord };

/**
 * A flag naming a data directory, as an absolute path: a relative one is taken from the working directory, so that
 * what a server records of it, and the hints that name it (`server stop --data-dir …`), work from anywhere.
 */
export const dirFlag = (description: string) =>
  Flags.custom<string>({
    description,
    parse: async (input, _ctx, flag) => {
      if (input.trim() === '') throw new CliError(`--${flag.name} is blank; give a directory.`, EXIT.USAGE);
      return resolve(input);
    },
  })();

export const dataDirFlag = dirFlag('Data directory (default: $PAYORCH_HOME/server, else ~/.local/share/payorch)');

/** How long the CLI waits before it looks again at a server process it waits for (to stop, listen or answer). */
const POLL_MS = 100;

/** One wait of the CLI's polling of a server process. */
export const pollPause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, POLL_MS));

/** GET {baseUrl}/health over node:http (no undici needed for one probe). */
export async function probeHealth(baseUrl: string, timeoutMs = 1000): Promise<boolean> {
  return (await probeStatus(`${baseUrl}/health`, timeoutMs)) === 200;
}

/**
 * What a server's `/health` says of it: it serves requests (200); it runs but cannot serve them now, its database
 * unavailable (503: a shared sandbox's PostgreSQL stopped or unreachable); or nothing answers (refused, timed out,
 * anything else).
 */
export type ServerState = 'running' | 'database_unavailable' | 'not_answering';

export async function probeServer(baseUrl: string, timeoutMs = 1000): Promise<ServerState> {
  const status = await probeStatus(`${baseUrl}/health`, timeoutMs);
  return status === 200 ? 'running' : status === 503 ? 'database_unavailable' : 'not_answering';
}

/** The status a GET of `url` answers, or undefined when nothing answers (refused, timed out). */
function probeStatus(url: string, timeoutMs: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => {
      req.destroy();
      resolve(undefined);
    });
    req.end();
  });
}

// ------------------------------------------------------------------------------- servers the CLI started

/**
 * Every server `payorch server start` runs (foreground, --detach, --memory, or started on its own for
 * commands with no key) leaves a record here while it runs, so that `server status` and `server stop` find
 * them all — an in-memory server has no data directory to hold its lock. `$PAYORCH_HOME/servers`, else
 * `$XDG_STATE_HOME/payorch/servers` (`~/.local/state/payorch/servers`).
 */
export function serversDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PAYORCH_HOME) return join(env.PAYORCH_HOME, 'servers');
  return join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'payorch', 'servers');
}

export interface ServerRecord {
  pid: number;
  proc_start: string | null;
  base_url: string;
  /** null: --memory */
  data_dir: string | null;
  started_at: string;
  /** Started by the CLI on its own for commands with no key configured; stops when idle. */
  auto: boolean;
}

export function registerServer(
  record: Omit<ServerRecord, 'proc_start' | 'pid'>,
  env: NodeJS.ProcessEnv = process.env,
): () => void {
  const dir = serversDir(env);
  const file = join(dir, `${process.pid}.json`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(
      file,
      JSON.stringify({ pid: process.pid, proc_start: processStart(process.pid), ...record } satisfies ServerRecord),
      { mode: 0o600 },
    );
  } catch {
    return () => undefined; // not fatal: the server runs, `server stop --pid` cannot find it
  }
  return () => rmSync(file, { force: true });
}

/** The servers the CLI started that still run (records of processes that are gone, or whose pid was reused, are removed). */
export function listServers(env: NodeJS.ProcessEnv = process.env): ServerRecord[] {
  const dir = serversDir(env);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^\d+\.json$/.test(n));
  } catch {
    return [];
  }
  const out: ServerRecord[] = [];
  for (const name of names) {
    let rec: ServerRecord;
    try {
      rec = JSON.parse(readFileSync(join(dir, name), 'utf8')) as ServerRecord;
    } catch {
      continue; // being written
    }
    if (typeof rec.pid !== 'number' || `${rec.pid}.json` !== name) continue;
    if (isSameProcess(rec)) out.push(rec);
    else rmSync(join(dir, name), { force: true });
  }
  return out.sort((a, b) => a.started_at.localeCompare(b.started_at));
}

/**
 * The server the environment names: PAYORCH_BASE_URL as `server start --detach --env` exports it, when it is a
 * loopback URL (undefined otherwise: a remote service, or unset), with the servers payorch started that listen
 * there (none: it is gone, or payorch did not start it). Commands that act on "the server" without a flag naming
 * one (`server stop`, `server snapshot …`) follow it, so that a job acts on its own server and no other.
 */
export function envServer(
  env: NodeJS.ProcessEnv,
  servers: ServerRecord[] = listServers(env),
): { url: string; servers: ServerRecord[] } | undefined {
  const url = env.PAYORCH_BASE_URL;
  const asked = url ? localUrl(url) : undefined;
  if (!url || !asked) return undefined;
  return { url, servers: servers.filter((s) => sameServer(s.base_url, asked)) };
}

/** A URL when it names a loopback host (a server payorch may have started here), parsed; else undefined. */
function localUrl(raw: string): URL | undefined {
  try {
    const url = new URL(raw);
    return isLoopbackHostname(url.hostname) ? url : undefined;
  } catch {
    return undefined;
  }
}

/** A recorded server's base URL is the one asked for: the same port and path, any loopback name. */
function sameServer(recorded: string | null, asked: URL): boolean {
  const rec = recorded ? localUrl(recorded) : undefined;
  const path = (u: URL) => u.pathname.replace(/\/+$/, '');
  return rec !== undefined && rec.port === asked.port && path(rec) === path(asked);
}

/** SIGTERM to a server (only if it is still the process that was recorded), then wait up to 10 s. */
export async function stopProcess(rec: {
  pid: number;
  proc_start?: string | null;
}): Promise<'stopped' | 'gone' | 'timeout'> {
  if (!isSameProcess(rec)) return 'gone';
  try {
    process.kill(rec.pid, 'SIGTERM');
  } catch {
    return 'gone';
  }
  for (let i = 0; i < 100 && isAlive(rec.pid); i++) await pollPause();
  return isAlive(rec.pid) ? 'timeout' : 'stopped';
}

/**
 * For a pid with no record in this `serversDir()`: the PAYORCH_HOME a payorch server with that pid was started
 * with (`null`: none, so the user's default directories), read from /proc; undefined when the process is not a
 * payorch server or cannot be read (another user's, or no /proc).
 */
export function serverHomeOf(pid: number): string | null | undefined {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const at = args.findIndex((a) => /(?:^|\/)(?:run\.js|payorch)$/.test(a));
    if (at < 0 || args[at + 1] !== 'server' || args[at + 2] !== 'start') return undefined;
    const home = readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .find((v) => v.startsWith('PAYORCH_HOME='));
    return home ? home.slice('PAYORCH_HOME='.length) : null;
  } catch {
    return undefined;
  }
}

/** The flags that name a server's data directory in a hint (none for the default one). */
export function dirFlags(dataDir: string | null, env: NodeJS.ProcessEnv = process.env): string {
  if (dataDir === null || dataDir === defaultDataDir(env)) return '';
  return ` --data-dir ${shellWord(dataDir)}`;
}

/** `payorch server stop …` for this server: by data directory, or by pid for an in-memory one. */
export function stopHint(rec: { pid: number; data_dir: string | null }, env: NodeJS.ProcessEnv = process.env): string {
  return rec.data_dir === null
    ? `payorch server stop --pid ${rec.pid}`
    : `payorch server stop${dirFlags(rec.data_dir, env)}`;
}

// ------------------------------------------------------------------------ a server in this process

export interface ServeOptions extends Omit<ServerOptions, 'routing' | 'idle' | 'auto' | 'faults'> {
  port: number;
  /** The port was not asked for (the default): another free one will do when it is taken. */
  anyPortIfTaken?: boolean;
  host: string;
  /** A routing rules file (JSON) replacing the default set. */
  routingFile?: string;
  /** A fault rules file (JSON: a list of rules; docs/api.md "Fault injection"). */
  faultsFile?: string;
  /** The background server the CLI starts on its own for commands with no key (`server start --auto`). */
  auto: boolean;
}

export interface Serving {
  server: RunningServer;
  /** The port asked for by default, when it was taken and the server listens on another. */
  portTaken?: number;
  /** Resolves once the server has stopped: on SIGINT or SIGTERM, or, for the background server, when idle. */
  stopped: Promise<void>;
}

/**
 * Runs the server of `payorch server start` in this process until a signal stops it, with its record in
 * `serversDir()` meanwhile. The background server takes any free port when 4242 is taken; a foreground start
 * takes over from the background server of the same data directory. Failures come back as the CLI's errors.
 */
export async function serve(options: ServeOptions): Promise<Serving> {
  const { startServer } = await import('../server/listening.js');
  if (options.seed !== undefined) refuseLiveProfile();
  let stop = () => undefined as void;
  const start: ServerOptions = {
    ...options,
    routing: options.routingFile === undefined ? undefined : await loadRouting(options.routingFile),
    faults: options.faultsFile === undefined ? undefined : loadFaults(options.faultsFile),
    ...(options.auto ? { auto: true, idle: { timeoutMs: idleTimeoutSeconds() * 1000, onIdle: () => stop() } } : {}),
  };
  let server: RunningServer;
  try {
    server = await takeOver(
      { auto: options.auto, anyPort: options.auto || Boolean(options.anyPortIfTaken) },
      () => startServer(start),
      () => (start.port = 0),
    );
  } catch (err) {
    throw startError(err, options);
  }
  const unregister = registerServer({
    base_url: server.baseUrl,
    data_dir: server.dataDir,
    started_at: new Date().toISOString(),
    auto: options.auto,
  });
  const stopped = new Promise<void>((resolve) => {
    stop = () => {
      unregister();
      void server.close().then(() => {
        unregister();
        resolve();
      });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return {
    server,
    stopped,
    ...(server.port !== options.port && options.port !== 0 ? { portTaken: options.port } : {}),
  };
}

/**
 * `start()`, again when what stood in its way can be moved: a port no one asked for (the background server's,
 * or the default one) gives way to any free port (`useAnyPort`), and a foreground start stops the background
 * server (`auto`) of its data directory.
 */
async function takeOver(
  may: { auto: boolean; anyPort: boolean },
  start: () => Promise<RunningServer>,
  useAnyPort: () => void,
): Promise<RunningServer> {
  // Each way round is taken once: the port, then the data directory's background server, or the other way.
  const moved = { port: false, server: false };
  for (;;) {
    try {
      return await start();
    } catch (err) {
      if (may.anyPort && !moved.port && (err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        moved.port = true;
        useAnyPort();
        continue;
      }
      if (
        err instanceof AlreadyRunningError &&
        err.info.auto &&
        !may.auto &&
        !moved.server &&
        (await stopProcess(err.info)) !== 'timeout'
      ) {
        moved.server = true;
        continue;
      }
      throw err;
    }
  }
}

async function loadRouting(file: string) {
  const { loadRoutingFile } = await import('../server/domain/payments/routing.js');
  try {
    return loadRoutingFile(file);
  } catch (err) {
    throw new CliError((err as Error).message, EXIT.USAGE, 'invalid_routing');
  }
}

/** A fault rules file: a JSON list (each rule is checked by the server as it starts). */
function loadFaults(file: string): FaultRuleBody[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CliError(
      `Cannot read the fault rules file ${file}: ${(err as Error).message}`,
      EXIT.USAGE,
      'invalid_faults',
    );
  }
  if (!Array.isArray(json))
    throw new CliError(
      `The fault rules file ${file} must hold a JSON list of rules (docs/api.md "Fault injection").`,
      EXIT.USAGE,
      'invalid_faults',
    );
  return json as FaultRuleBody[];
}

/**
 * `--seed` beside a live-looking configuration: the key commands would use (PAYORCH_API_KEY, checked by the server
 * too, or the active profile's) is live. A seeded server's keys and secrets are predictable: for tests only.
 */
function refuseLiveProfile(env: NodeJS.ProcessEnv = process.env): void {
  let target: Target;
  try {
    target = resolveTarget({}, env);
  } catch {
    return; // no usable profile: nothing live either
  }
  if (target.kind === 'http' && isLiveKey(target.apiKey)) {
    throw new CliError(
      `Refusing --seed: ${target.source} holds a live key (${maskSecret(target.apiKey)}). A seeded server makes predictable keys and secrets, for tests only: switch to a test profile or unset it.`,
      EXIT.USAGE,
      'seed_refused',
    );
  }
}

/** What a start that failed tells the user: the port or data directory in the way, a bad routing or fault rule. */
function startError(
  err: unknown,
  { host, port, database }: { host: string; port: number; database?: string },
): unknown {
  if (database !== undefined) {
    const failure = databaseFailure(err, database);
    if (failure) return failure;
  }
  if (err instanceof AlreadyRunningError) return new CliError(err.message, EXIT.USAGE, 'already_running');
  if ((err as Error).name === 'PublicUrlError')
    return new CliError((err as Error).message, EXIT.USAGE, 'invalid_public_url');
  if (/^Fault rule \d/.test((err as Error).message))
    return new CliError((err as Error).message, EXIT.USAGE, 'invalid_faults');
  if (err instanceof SeedError) return new CliError(err.message, EXIT.USAGE, err.code);
  if (/processor|routing/i.test((err as Error).message))
    return new CliError((err as Error).message, EXIT.USAGE, 'invalid_routing');
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return new CliError(
      `Port ${port} on ${host} is in use. Pick another with --port (0 picks a free one).`,
      EXIT.USAGE,
      'address_in_use',
    );
  if (code === 'EACCES' || code === 'EADDRNOTAVAIL')
    return new CliError(`Cannot listen on ${host}:${port} (${code}).`, EXIT.USAGE, 'cannot_listen');
  return err;
}

/**
 * A failure of the PostgreSQL database at `url` as the CLI reports it, the URL's password never in it: one that cannot
 * be reached (exit 4, as a server that cannot be), a sealing key that is missing or not the database's (configuration,
 * exit 3), any other failure of the database (exit 1, `database_error`); undefined for a failure that is not the
 * database's (its message is cleared of the password all the same).
 */
export function databaseFailure(err: unknown, url: string): CliError | undefined {
  if (!(err instanceof Error)) return undefined;
  err.message = withoutPassword(err.message, url);
  if (
    (err as { code?: unknown }).code === 'STORAGE_UNAVAILABLE' ||
    (err.name === 'DatabaseError' && (err as { unreachable?: boolean }).unreachable === true)
  )
    return new CliError(err.message, EXIT.UNREACHABLE, 'connection_error');
  if (err.name === 'KeyError' || /sealed with another key/i.test(err.message))
    return new CliError(err.message, EXIT.AUTH, 'configuration_error');
  if (err.name === 'DatabaseError') return new CliError(err.message, EXIT.API, 'database_error');
  return undefined;
}

// ------------------------------------------------------------------------ spawning a background server

export interface StartRecord {
  base_url: string;
  api_key: string;
  pid: number;
  data_dir: string | null;
  /** On PostgreSQL: the database, without its password (postgres://user@host:port/db). */
  database?: string;
  /**
   * From a detached start's child to its parent only (never printed): this start made the key. On a shared database
   * the key is the database's, made by its first process, whatever the new data directory holds.
   */
  key_created?: boolean;
}

/**
 * Starts `payorch server start ARGS --json` detached and returns its start record once it has printed it
 * (it listens by then), or the error message it failed with.
 */
export async function spawnServer(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd?: string,
): Promise<{ started: StartRecord } | { failure: string; code?: string }> {
  const bin = fileURLToPath(new URL('../../../bin/run.js', import.meta.url));
  const child = spawn(process.execPath, [bin, 'server', 'start', ...args, '--json'], {
    detached: true,
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...env, PAYORCH_DETACHED: '1' },
  });
  let out = '';
  let err = '';
  const started = await new Promise<StartRecord | undefined>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      try {
        const first = JSON.parse(out.slice(0, nl)) as Partial<StartRecord>;
        if (typeof first.base_url === 'string') resolve(first as StartRecord);
      } catch {
        /* not the one-line start record: the child is failing (a pretty-printed error body follows) */
      }
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // 'close' (not 'exit'): all of the child's output has been read by then.
    child.on('close', () => resolve(undefined));
    child.on('error', () => resolve(undefined));
  });
  child.stdout.destroy();
  child.stderr.destroy();
  child.unref();
  if (started) return { started };
  try {
    const e = (JSON.parse(out) as { error?: { message?: string; code?: string } }).error;
    if (e?.message) return { failure: e.message, code: e.code };
  } catch {
    /* not JSON */
  }
  return { failure: err.trim().split('\n')[0] || 'The server exited before it was ready.' };
}

// -------------------------------------------------------------------- the local server of the default

export interface LocalServer {
  baseUrl: string;
  apiKey: string;
  dataDir: string;
  pid: number;
  /** Started by this command (in the background). */
  started: boolean;
  /** Stops when idle (started by the CLI on its own). */
  auto: boolean;
}

/** Seconds an auto-started server waits without requests before it stops (PAYORCH_IDLE_TIMEOUT, default 300). */
export function idleTimeoutSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.PAYORCH_IDLE_TIMEOUT);
  return env.PAYORCH_IDLE_TIMEOUT && Number.isFinite(n) && n > 0 ? n : 300;
}

/** PAYORCH_DAEMON=0: no command starts the background server, whatever it would need it for. */
export function daemonRefused(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.PAYORCH_DAEMON === '0';
}

/**
 * Whether a command with no key configured starts a background server when none runs: PAYORCH_DAEMON=1
 * always, =0 never; by default at a terminal and not in CI (a CI job gets the in-process server: every run
 * starts alike, and nothing is left running unless something needs a server after the command — webhook
 * deliveries to send, or a command that follows the server, `logs tail`: those start it anyway, unless =0).
 */
export function autoStartWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.PAYORCH_DAEMON === '1') return true;
  if (daemonRefused(env)) return false;
  if (env.CI && env.CI !== 'false' && env.CI !== '0') return false;
  return Boolean(process.stdin.isTTY || process.stdout.isTTY || process.stderr.isTTY);
}

/**
 * The server running on the default data directory, with the directory's key — started in the background
 * first when `autoStart` and none runs; undefined when none runs (the caller then runs the server in process).
 */
export async function localServer(
  autoStart: boolean,
  env: NodeJS.ProcessEnv = process.env,
): Promise<LocalServer | undefined> {
  const dir = defaultDataDir(env);
  const running = (started: boolean): LocalServer | undefined => {
    const lock = readLock(dir);
    const creds = lock?.base_url ? readCredentials(dir) : undefined;
    return lock?.base_url && creds
      ? {
          baseUrl: lock.base_url,
          apiKey: creds.api_key,
          dataDir: dir,
          pid: lock.pid,
          started,
          auto: Boolean(lock.auto),
        }
      : undefined;
  };
  const found = running(false);
  if (found || !autoStart) return found;
  const r = await spawnServer(['--auto'], env, homedir());
  if ('started' in r) return running(true);
  if (r.code === 'already_running') {
    // Another command started one at the same moment: use it once it listens.
    for (let i = 0; i < 100; i++) {
      const other = running(false);
      if (other) return other;
      await pollPause();
    }
  }
  return undefined; // could not start one: the caller runs the server in process
}

/**
 * For a hosted-page link (checkout, 3DS) on a loopback server: how to serve it when it is not served there now
 * (the embedded server has no socket, and its links name 4242, where `server start` listens; a background server
 * stops when idle). The page itself is asked for: a server of another data directory on that port answers, but
 * not with this page. Undefined when it is served.
 */
export async function unservedPageHint(url: string): Promise<string | undefined> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (!isLoopbackHostname(u.hostname)) return undefined;
  const status = await probeStatus(url, 1000);
  if (status === 200) return undefined;
  if (status !== undefined) {
    return `${u.origin} does not serve this page (another server holds that port): \`payorch server start --port 0\` serves the default data directory on a free port, and links then name that server.`;
  }
  const port = u.port && u.port !== String(DEFAULT_PORT) ? ` --port ${u.port}` : '';
  return `Nothing serves ${u.origin} now: \`payorch server start${port}\` serves this page (data of the default data directory).`;
}
