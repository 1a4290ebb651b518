// A throwaway PostgreSQL server for the test files that need one: started once per file (initdb + pg_ctl, data
// directory and socket in a temporary folder, a free port on 127.0.0.1, trust authentication), a fresh database per
// test (CREATE DATABASE), stopped and deleted after the file. PostgreSQL refuses to run as root: as root the
// binaries run as the `postgres` user, which owns the folder.
//
// Where initdb and pg_ctl cannot be found the file's PostgreSQL tests are skipped with the reason — except in CI
// (`CI` set, or PAYORCH_TEST_POSTGRES=required as .ci/run sets it), where that is a failure: no test may skip there.
//
//   const pg = postgresServer();
//   describe.skipIf(pg.missing !== '')(`on PostgreSQL${pg.missing ? ` (skipped: ${pg.missing})` : ''}`, () => {
//     it('…', async () => { const url = await pg.database(); … });
//   });
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll } from 'vitest';

const MIN_VERSION = 15;

const asRoot = () => process.getuid?.() === 0;

export interface PostgresServer {
  /** Why the tests cannot run here ('' when they can). */
  readonly missing: string;
  /** A new, empty database on the file's server: its URL (postgres://postgres@127.0.0.1:PORT/NAME). */
  database(): Promise<string>;
  /** A new database migrated to this build's schema: its URL. */
  migrated(): Promise<string>;
  /** Stops the file's server (`pg_ctl stop`, fast or immediate), waiting until it is down. */
  stop(mode?: 'fast' | 'immediate'): void;
  /** Starts the file's server again after `stop`, on the same port, waiting until it accepts connections. */
  start(): void;
}

interface Binaries {
  initdb: string;
  pgCtl: string;
}

const required = () => {
  const ci = process.env.CI;
  return (
    process.env.PAYORCH_TEST_POSTGRES === 'required' || (ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0')
  );
};

/** initdb and pg_ctl: on PATH, else in Debian's /usr/lib/postgresql/<version>/bin (newest first). */
function findBinaries(): Binaries | string {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian))
    for (const v of readdirSync(debian).sort((a, b) => Number(b) - Number(a))) dirs.push(join(debian, v, 'bin'));
  const dir = dirs.find((d) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl')));
  if (!dir) return 'initdb and pg_ctl (PostgreSQL 15 or later) were not found on PATH or in /usr/lib/postgresql';
  return { initdb: join(dir, 'initdb'), pgCtl: join(dir, 'pg_ctl') };
}

/** The uid/gid to run the server as: ours, or the `postgres` user's when we are root. */
function runAs(): { uid: number; gid: number } | string {
  if (!asRoot()) return { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    return 'running as root, and there is no `postgres` user to run PostgreSQL as';
  }
}

function why(): { bin: Binaries; user: { uid: number; gid: number } } | string {
  const bin = findBinaries();
  if (typeof bin === 'string') return bin;
  const user = runAs();
  if (typeof user === 'string') return user;
  let version: string;
  try {
    version = execFileSync(bin.initdb, ['--version'], { encoding: 'utf8' });
  } catch (e) {
    return `${bin.initdb} --version failed: ${(e as Error).message}`;
  }
  const major = Number(/(\d+)(?:\.\d+)*/.exec(version)?.[1]);
  if (!(major >= MIN_VERSION)) return `${bin.initdb} is PostgreSQL ${major}; the tests need ${MIN_VERSION} or later`;
  return { bin, user };
}

/**
 * Runs a PostgreSQL binary as the server's user (as root: switched to it), in a directory it can read (the
 * checkout may be in root's home, and initdb fails where it cannot read its working directory).
 */
function run(file: string, args: string[], user: { uid: number; gid: number }, cwd = tmpdir()): string {
  const as = asRoot() ? { uid: user.uid, gid: user.gid } : {};
  return execFileSync(file, args, { encoding: 'utf8', cwd, ...as, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A port on 127.0.0.1 that nothing listens on now (another process may take it before the caller binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** A running throwaway PostgreSQL cluster: its port, and how to stop, start and delete it. */
export interface Cluster {
  port: number;
  /** The server's log file (gone after `destroy`). */
  log: string;
  /** Stops it (`pg_ctl stop`, fast or immediate), waiting until it is down. */
  stop(mode?: 'fast' | 'immediate'): void;
  /** Starts it again after `stop`, on the same port. */
  start(): void;
  /** Stops it (immediate) and deletes its folder. */
  destroy(): void;
}

/**
 * Starts a throwaway cluster (initdb + pg_ctl, data directory and socket in a temporary folder, a free port on
 * 127.0.0.1, trust authentication). A watchdog stops it if this process dies without `destroy`. Throws, saying why,
 * where PostgreSQL cannot run (`missing()`).
 */
export async function startCluster(): Promise<Cluster> {
  const found = why();
  if (typeof found === 'string') throw new Error(found);
  const { bin, user } = found;
  const dir = mkdtempSync(join(tmpdir(), 'payorch-pg-'));
  let port = 0;
  const data = () => join(dir, 'data');
  const startOnce = () => {
    const opts = `-p ${port} -k ${join(dir, 'run')} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`;
    run(bin.pgCtl, ['-D', data(), '-l', join(dir, 'server.log'), '-o', opts, '-w', '-t', '60', 'start'], user);
  };
  if (asRoot()) chownSync(dir, user.uid, user.gid);
  chmodSync(dir, 0o700);
  const sockets = join(dir, 'run');
  mkdirSync(sockets);
  if (asRoot()) chownSync(sockets, user.uid, user.gid);
  // --no-sync and fsync=off: nothing here must survive a crash of the machine (a killed process loses nothing
  // either way: the kernel keeps what PostgreSQL wrote).
  run(bin.initdb, ['-D', data(), '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync', '--locale=C'], user);
  // A free port can be taken by another process before PostgreSQL binds it: a few tries.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      startOnce();
      break;
    } catch (e) {
      if (attempt === 3) {
        const err = e as { stderr?: string; message: string };
        throw new Error(`PostgreSQL did not start (see ${join(dir, 'server.log')}): ${err.stderr || err.message}`);
      }
    }
  }
  // If this test process dies without its afterAll (killed), the server must not outlive it. (The watchdog runs
  // as the server's user; /proc tells it about a root process that kill -0 may not signal.)
  const alive = `kill -0 ${process.pid} 2>/dev/null || [ -d /proc/${process.pid} ]`;
  const stopCmd = `while ${alive}; do sleep 1; done; "${bin.pgCtl}" -D "${data()}" -m immediate stop >/dev/null 2>&1; rm -rf "${dir}"`;
  const as = asRoot() ? { uid: user.uid, gid: user.gid } : {};
  const watchdog = spawn('sh', ['-c', stopCmd], { cwd: tmpdir(), detached: true, stdio: 'ignore', ...as });
  watchdog.unref();
  let destroyed = false;
  return {
    port,
    log: join(dir, 'server.log'),
    stop(mode = 'fast') {
      run(bin.pgCtl, ['-D', data(), '-m', mode, '-w', '-t', '60', 'stop'], user);
    },
    start: startOnce,
    destroy() {
      if (destroyed) return;
      destroyed = true;
      watchdog.kill();
      try {
        run(bin.pgCtl, ['-D', data(), '-m', 'immediate', '-w', 'stop'], user);
      } catch {
        // not running (it failed to start): only the folder is left
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Why PostgreSQL cannot run here ('' when it can). */
export function missing(): string {
  const found = why();
  return typeof found === 'string' ? found : '';
}

/** Whether PostgreSQL is required here (CI): a test that needs it fails rather than skips. */
export const postgresRequired = required;

/**
 * The file's PostgreSQL server: started in beforeAll, stopped (and its folder deleted) in afterAll. Call it once, at
 * the top of a test file.
 */
export function postgresServer(): PostgresServer {
  const found = why();
  if (typeof found === 'string' && required())
    throw new Error(`PostgreSQL is needed by this test file, and in CI no test may skip: ${found}`);
  if (typeof found === 'string')
    return {
      missing: found,
      database: () => Promise.reject(new Error(found)),
      migrated: () => Promise.reject(new Error(found)),
      stop: () => {
        throw new Error(found);
      },
      start: () => {
        throw new Error(found);
      },
    };

  let cluster: Cluster | undefined;
  let admin: postgres.Sql | undefined;
  let n = 0;

  beforeAll(async () => {
    cluster = await startCluster();
    admin = postgres({
      host: '127.0.0.1',
      port: cluster.port,
      user: 'postgres',
      database: 'postgres',
      max: 1,
      onnotice: () => {},
    });
  }, 120_000);

  afterAll(async () => {
    await admin?.end({ timeout: 5 });
    cluster?.destroy();
  }, 60_000);

  return {
    missing: '',
    async database() {
      if (!admin) throw new Error('the PostgreSQL server is not running (database() outside a test?)');
      const name = `t${process.pid}_${++n}`;
      await admin.unsafe(`CREATE DATABASE ${name}`);
      return `postgres://postgres@127.0.0.1:${cluster!.port}/${name}`;
    },
    async migrated() {
      const url = await this.database();
      const { migratePostgres } = await import('../../dist/lib/server/adapters/postgres/migrate.js');
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      try {
        await migratePostgres(sql);
      } finally {
        await sql.end();
      }
      return url;
    },
    stop(mode = 'fast') {
      cluster!.stop(mode);
    },
    start() {
      cluster!.start();
    },
  };
}
