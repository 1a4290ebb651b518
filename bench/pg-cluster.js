// A throwaway PostgreSQL cluster for the bench (the test suite's test/helpers/postgres.ts, in plain JavaScript, with
// production's durability): initdb and pg_ctl from PATH or Debian's /usr/lib/postgresql/<version>/bin, the data
// directory and socket in a temporary folder, a free port on 127.0.0.1, trust authentication, `fsync=on` (every
// commit waits for its WAL to reach the disk, as on a real server; the test suite turns it off). PostgreSQL refuses
// to run as root: as root the binaries run as the `postgres` user, which owns the folder. `cpuMs()` is the CPU
// time of the whole cluster so far: the postmaster and every process it started (backends, WAL writer,
// checkpointer, autovacuum…), those that exited included (the postmaster reaps them: its children's time).
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { TICK_MS } from './children.js';

const asRoot = () => process.getuid?.() === 0;

/** initdb and pg_ctl ({initdb, pgCtl}), or why they cannot be used here (a string). */
export function findPostgres() {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian))
    for (const v of readdirSync(debian).sort((a, b) => Number(b) - Number(a))) dirs.push(join(debian, v, 'bin'));
  const dir = dirs.find((d) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl')));
  if (!dir) return 'initdb and pg_ctl were not found on PATH or in /usr/lib/postgresql';
  if (asRoot()) {
    try {
      execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    } catch {
      return 'running as root, and there is no `postgres` user to run PostgreSQL as';
    }
  }
  return { initdb: join(dir, 'initdb'), pgCtl: join(dir, 'pg_ctl') };
}

function user() {
  if (!asRoot()) return {};
  const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * CPU ms process `pid` has run (0 if it is gone): from schedstat (ns; PostgreSQL's processes have one thread each),
 * not /proc's stat ticks, whose 10 ms steps summed over a dozen processes would blur a figure of a few seconds.
 */
function procMs(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return 0;
  }
}

/** CPU ms of the processes `pid` started that have exited and been reaped (cutime + cstime, in ticks). */
function reapedMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[13]) + Number(f[14])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** The pids whose parent is `ppid` (from /proc). */
function childrenOf(ppid) {
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === ppid) out.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/**
 * Starts a cluster; resolves with {port, url(database), cpuMs(), processes(), destroy()}. `url(name)` is the URL of a
 * database (created by `createDatabase` below or `postgres`).
 */
export async function startCluster() {
  const bin = findPostgres();
  if (typeof bin === 'string') throw new Error(bin);
  const as = user();
  const run = (file, args) =>
    execFileSync(file, args, { encoding: 'utf8', cwd: tmpdir(), ...as, stdio: ['ignore', 'pipe', 'pipe'] });
  const dir = mkdtempSync(join(tmpdir(), 'payorch-bench-pg-'));
  const data = join(dir, 'data');
  const sockets = join(dir, 'run');
  mkdirSync(sockets);
  if (asRoot()) {
    chownSync(dir, as.uid, as.gid);
    chownSync(sockets, as.uid, as.gid);
  }
  chmodSync(dir, 0o700);
  run(bin.initdb, ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync', '--locale=C']);
  let port = 0;
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    const opts = `-p ${port} -k ${sockets} -c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=on`;
    try {
      run(bin.pgCtl, ['-D', data, '-l', join(dir, 'server.log'), '-o', opts, '-w', '-t', '60', 'start']);
      break;
    } catch (e) {
      if (attempt === 3) throw new Error(`PostgreSQL did not start: ${e.stderr || e.message}`);
    }
  }
  // If the bench dies without destroy(), the cluster must not outlive it.
  const alive = `kill -0 ${process.pid} 2>/dev/null || [ -d /proc/${process.pid} ]`;
  const stopCmd = `while ${alive}; do sleep 1; done; "${bin.pgCtl}" -D "${data}" -m immediate stop >/dev/null 2>&1; rm -rf "${dir}"`;
  const watchdog = spawn('sh', ['-c', stopCmd], { cwd: tmpdir(), detached: true, stdio: 'ignore', ...as });
  watchdog.unref();
  const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let destroyed = false;
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    /** The cluster's CPU ms so far: the postmaster (with its reaped children) and its live children. */
    cpuMs: () =>
      childrenOf(postmaster).reduce((ms, pid) => ms + procMs(pid), procMs(postmaster) + reapedMs(postmaster)),
    /** How many processes the cluster runs now (the postmaster and its children). */
    processes: () => 1 + childrenOf(postmaster).length,
    version: () => execFileSync(bin.pgCtl, ['--version'], { encoding: 'utf8' }).trim(),
    destroy() {
      if (destroyed) return;
      destroyed = true;
      watchdog.kill();
      try {
        run(bin.pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // not running
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
