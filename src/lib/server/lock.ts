// The light part of a data directory (no database, no native module): where it is, the lock of the server
// running on it, its default key as stored, the shared database its server is on — what a command reads to find the local server, at start-up.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { shellWord } from '../format/shell.js';

export const CREDENTIALS_FILE = 'credentials.json';
const LOCK_FILE = 'server.lock';

/** `$PAYORCH_HOME/server`, else `$XDG_DATA_HOME/payorch`, else `~/.local/share/payorch`. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PAYORCH_HOME) return join(env.PAYORCH_HOME, 'server');
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'payorch');
}

export interface Credentials {
  api_key: string;
  account_id: string;
}

export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

// ------------------------------------------------------------------------------------------------ lock

export interface LockInfo {
  pid: number;
  base_url: string | null;
  data_dir: string;
  started_at: string;
  /** When the process started, as the system counts it (Linux: /proc/PID/stat), so that a reused pid is not taken for the server. */
  proc_start?: string | null;
  /** Started by the CLI in the background for commands with no key configured; exits when idle. */
  auto?: boolean;
}

export class AlreadyRunningError extends Error {
  constructor(readonly info: LockInfo) {
    // `server stop` alone stops the default directory's server: another directory is named.
    const dir = info.data_dir === defaultDataDir() ? '' : ` --data-dir ${shellWord(info.data_dir)}`;
    super(
      `A payorch server is already running on ${info.data_dir} (pid ${info.pid}${info.base_url ? `, ${info.base_url}` : ''}). Stop it with \`payorch server stop${dir}\` or choose another --data-dir.`,
    );
    this.name = 'AlreadyRunningError';
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * When process `pid` started, in the system's own units (Linux: clock ticks since boot, field 22 of
 * /proc/PID/stat), or null where that is not known. A pid is reused once its process is gone; the pair
 * (pid, start) is not.
 */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** Process `info.pid` is alive and is the one that wrote `info` (not another process given the same pid since). */
export function isSameProcess(info: { pid: number; proc_start?: string | null }): boolean {
  if (!isAlive(info.pid)) return false;
  if (!info.proc_start) return true;
  const now = processStart(info.pid);
  return now === null || now === info.proc_start;
}

/** The running server's lock, or undefined (a lock left by a dead process, or by one whose pid was reused, is removed). */
export function readLock(dir: string): LockInfo | undefined {
  const path = join(dir, LOCK_FILE);
  let info: LockInfo;
  try {
    info = JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
  } catch {
    return undefined;
  }
  if (!isSameProcess(info)) {
    rmSync(path, { force: true });
    return undefined;
  }
  return info;
}

export interface Lock {
  update(baseUrl: string): void;
  /** The lock file is still this process's (false once the directory was removed or reset under it). */
  held(): boolean;
  release(): void;
}

export function acquireLock(dir: string, opts: { auto?: boolean } = {}): Lock {
  ensureDir(dir);
  const path = join(dir, LOCK_FILE);
  const info: LockInfo = {
    pid: process.pid,
    base_url: null,
    data_dir: dir,
    started_at: new Date().toISOString(),
    proc_start: processStart(process.pid),
    ...(opts.auto ? { auto: true } : {}),
  };
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeFileSync(fd, JSON.stringify(info));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 3) throw err;
      let existing: LockInfo | undefined;
      try {
        existing = JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
      } catch {
        existing = undefined; // being written right now, or garbage
      }
      if (existing && isSameProcess(existing)) throw new AlreadyRunningError(existing);
      if (!existing && attempt < 2) continue;
      rmSync(path, { force: true });
    }
  }
  return {
    update(baseUrl: string) {
      info.base_url = baseUrl;
      writeFileSync(path, JSON.stringify(info), { mode: 0o600 });
    },
    held() {
      try {
        return (JSON.parse(readFileSync(path, 'utf8')) as LockInfo).pid === process.pid;
      } catch {
        return false;
      }
    },
    release() {
      try {
        const current = JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
        if (current.pid === process.pid) unlinkSync(path);
      } catch {
        /* already gone */
      }
    },
  };
}

/** The data directory's default key and account as stored (credentials.json), without opening the database. */
export function readCredentials(dir: string): Credentials | undefined {
  try {
    const c = JSON.parse(readFileSync(join(dir, CREDENTIALS_FILE), 'utf8')) as Partial<Credentials>;
    return typeof c.api_key === 'string' && typeof c.account_id === 'string'
      ? { api_key: c.api_key, account_id: c.account_id }
      : undefined;
  } catch {
    return undefined;
  }
}

// ------------------------------------------------------------------------------- a shared database

/**
 * The PostgreSQL database the server started on the directory serves (its URL as given: mode 0600, as private as
 * credentials.json), so that the commands working on the directory directly open that database, not the directory's
 * SQLite file. Never the sealing key.
 */
export const DATABASE_FILE = 'database.json';

/** Records in data directory `dir` the database `url` its server is on (DATABASE_FILE). */
export function recordDatabase(dir: string, url: string): void {
  writeFileSync(join(dir, DATABASE_FILE), JSON.stringify({ url }, null, 2) + '\n', { mode: 0o600 });
}

/** Forgets the database a server on `dir` was started on before (the server starting now keeps its state elsewhere). */
export function forgetDatabase(dir: string): void {
  rmSync(join(dir, DATABASE_FILE), { force: true });
}

/** The database a server on `dir` was started on (DATABASE_FILE), or undefined: the directory's own SQLite. */
export function recordedDatabase(dir: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, DATABASE_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const url = (JSON.parse(text) as { url?: unknown }).url;
  if (typeof url !== 'string' || url === '')
    throw new Error(`${join(dir, DATABASE_FILE)} names no database (a "url"): remove it, or start the server again.`);
  return url;
}
