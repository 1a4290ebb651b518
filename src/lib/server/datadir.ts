// A data directory holds one server's state: the SQLite database, the key that seals secrets at rest,
// the first API key (credentials.json, mode 0600, so the CLI's embedded default and `server start --json`
// can hand it out again), the log, and the lock of the server running on it.
import { chmodSync, closeSync, existsSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from './store/db.js';
import { Sealer } from './crypto.js';
import { Accounts } from './domain/accounts.js';

export const DB_FILE = 'payorch.db';
export const LOG_FILE = 'server.log';
const KEY_FILE = 'secret.key';
const CREDENTIALS_FILE = 'credentials.json';
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

export interface OpenedDataDir {
  store: Store;
  sealer: Sealer;
  credentials: Credentials;
  /** True when this call created the default account's key (first use, or after the key was revoked). */
  created: boolean;
}

/** Writes `content` to `path` (mode 0600) only if the file does not exist yet; returns what is there. */
function writeOnce(path: string, content: string): string {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, content, { mode: 0o600 }); // inside the try: a full disk must not leave a partial tmp file
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
  return readFileSync(path, 'utf8');
}

export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Opens (creating on first use) the data directory `dir`, or an in-memory store when `dir` is null. */
export function openDataDir(dir: string | null): OpenedDataDir {
  if (dir === null) {
    const store = openStore(':memory:');
    const { account_id, api_key } = new Accounts(store).createAccountWithKey();
    return { store, sealer: Sealer.random(), credentials: { api_key, account_id }, created: true };
  }
  ensureDir(dir);
  const sealer = new Sealer(Buffer.from(writeOnce(join(dir, KEY_FILE), randomBytes(32).toString('hex')).trim(), 'hex'));
  const store = openStore(join(dir, DB_FILE));
  for (const f of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`]) {
    try {
      chmodSync(join(dir, f), 0o600);
    } catch (err) {
      // -wal/-shm come and go as other processes close the database
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  const credPath = join(dir, CREDENTIALS_FILE);
  // First use: one account and key, created under an immediate transaction so that two processes opening
  // a fresh directory at once agree on a single default account.
  const init = store.db.transaction((): { credentials: Credentials; created: boolean } => {
    const row = store.db.prepare("SELECT value FROM meta WHERE key = 'default_account'").get() as { value: string } | undefined;
    const accounts = new Accounts(store);
    if (row && existsSync(credPath)) {
      const stored = JSON.parse(readFileSync(credPath, 'utf8')) as Credentials;
      if (accounts.isActive(stored.api_key)) return { credentials: stored, created: false };
      // The default key was revoked (`server keys revoke`): the default account gets a new one, so that
      // `server start --json` and the CLI's embedded default keep working.
      const { api_key } = accounts.addKey(stored.account_id);
      writeFileSync(credPath, JSON.stringify({ api_key, account_id: stored.account_id }, null, 2) + '\n', { mode: 0o600 });
      return { credentials: { api_key, account_id: stored.account_id }, created: true };
    }
    const { account_id, api_key } = accounts.createAccountWithKey();
    store.db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('default_account', ?)").run(account_id);
    writeFileSync(credPath, JSON.stringify({ api_key, account_id }, null, 2) + '\n', { mode: 0o600 });
    return { credentials: { api_key, account_id }, created: true };
  });
  const { credentials, created } = init.immediate();
  return { store, sealer, credentials, created };
}

// ------------------------------------------------------------------------------------------------ lock

export interface LockInfo {
  pid: number;
  base_url: string | null;
  data_dir: string;
  started_at: string;
}

export class AlreadyRunningError extends Error {
  constructor(readonly info: LockInfo) {
    super(`A payorch server is already running on ${info.data_dir} (pid ${info.pid}${info.base_url ? `, ${info.base_url}` : ''}). Stop it with \`payorch server stop\` or choose another --data-dir.`);
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

/** The running server's lock, or undefined (a lock left by a dead process is removed). */
export function readLock(dir: string): LockInfo | undefined {
  const path = join(dir, LOCK_FILE);
  let info: LockInfo;
  try {
    info = JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
  } catch {
    return undefined;
  }
  if (!isAlive(info.pid)) {
    rmSync(path, { force: true });
    return undefined;
  }
  return info;
}

export function acquireLock(dir: string): { update(baseUrl: string): void; release(): void } {
  ensureDir(dir);
  const path = join(dir, LOCK_FILE);
  const info: LockInfo = { pid: process.pid, base_url: null, data_dir: dir, started_at: new Date().toISOString() };
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
      if (existing && isAlive(existing.pid)) throw new AlreadyRunningError(existing);
      if (!existing && attempt < 2) continue;
      rmSync(path, { force: true });
    }
  }
  return {
    update(baseUrl: string) {
      info.base_url = baseUrl;
      writeFileSync(path, JSON.stringify(info), { mode: 0o600 });
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

/** Deletes the directory's state (database, keys, credentials, log). Refuses while a server runs on it. */
export function resetDataDir(dir: string): void {
  const running = readLock(dir);
  if (running) throw new AlreadyRunningError(running);
  for (const f of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`, KEY_FILE, CREDENTIALS_FILE, LOG_FILE]) rmSync(join(dir, f), { force: true });
}
