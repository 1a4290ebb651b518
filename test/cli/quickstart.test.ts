// From the quick start to a running server with the same data (issue 13, findings 4, 5, 6 and 13): the real
// binary, no terminal, a fresh PAYORCH_HOME per scenario. Every server a scenario starts is stopped at the end
// (by the registry `server stop --all` reads, and by pid as a backstop).
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, type CliOptions } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { alive } from '../helpers/processes.js';

// Generous limits: on 2 shared cores a CLI run can take seconds; nothing here is timed.
const T = 300_000;
const homes = new Set<string>();
const pids = new Set<number>();
afterAll(async () => {
  await Promise.all([...homes].map((home) => runCli(['server', 'stop', '--all'], { home, timeoutMs: 90_000 })));
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}, T);

/** Polls (no fixed sleep) until `check` holds, up to `ms`. */
async function until(check: () => boolean, ms = 60_000): Promise<boolean> {
  for (let t = 0; t < ms; t += 50) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

function newHome(): {
  home: string;
  cli: (args: string[], opts?: CliOptions) => ReturnType<typeof runCli>;
  lockPid: () => number | undefined;
} {
  const home = tempDir();
  homes.add(home);
  return {
    home,
    cli: (args, opts = {}) => runCli(args, { timeoutMs: 90_000, ...opts, home }),
    lockPid: () => {
      try {
        const pid = (JSON.parse(readFileSync(join(home, 'server', 'server.lock'), 'utf8')) as { pid: number }).pid;
        pids.add(pid);
        return pid;
      } catch {
        return undefined;
      }
    },
  };
}

async function api(base: string, key: string, path: string) {
  const res = await fetch(base + path, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, text: await res.text() };
}

describe.concurrent('quick start → server, same data (finding 5)', () => {
  it(
    'the default key is shown on request, `server start` serves the same data, and keyless commands use it',
    async () => {
      const { cli, home, lockPid } = newHome();
      const made = await cli(['sessions', 'create', '--amount', '1999', '--currency', 'usd', '--json']);
      expect(made.code, made.stderr).toBe(0);
      expect(made.stderr).toMatch(/embedded test-mode server/); // no terminal, no server: in process
      const id = made.json().id as string;

      // the key: masked unless asked, in full with --show (text and JSON)
      const masked = await cli(['server', 'keys', 'reveal']);
      expect(masked.code, masked.stderr).toBe(0);
      expect(masked.stdout).toMatch(/sk_test_…\w{4}/);
      expect(masked.stdout).not.toMatch(/sk_test_[A-Za-z0-9]{20,}/);
      expect(masked.stdout).toContain('keys reveal --show');
      const shown = await cli(['server', 'keys', 'reveal', '--show', '--json']);
      const key = shown.json().api_key as string;
      expect(key).toMatch(/^sk_test_[A-Za-z0-9]{20,}$/);
      expect((await cli(['server', 'keys', 'reveal', '--show'])).stdout.split('\n')[0]).toBe(key);

      // `server start` (text) on the default data directory: the key to use (masked: not its first start) and how to
      // see it
      const started = await cli(['server', 'start', '--port', '0', '--detach']);
      expect(started.code, started.stderr).toBe(0);
      const pid = lockPid()!;
      expect(started.stdout).toContain('keys reveal --show');
      expect(started.stdout).toContain('stop: `payorch server stop`');
      const base = /on (http:\S+)/.exec(started.stdout)![1]!;
      // the same data over HTTP with the revealed key
      expect((await api(base, key, `/sessions/${id}`)).status).toBe(200);
      // keyless commands now talk to that server, and say so
      const got = await cli(['sessions', 'get', id, '--json']);
      expect(got.code, got.stderr).toBe(0);
      expect(got.stderr).toContain(`using the test-mode server at ${base} (pid ${pid}`);
      expect(got.json().id).toBe(id);
      // …and the hosted pages of what it makes are served by it (finding 4)
      const url = (await cli(['sessions', 'create', '--amount', '500', '--currency', 'usd', '--json'])).json()
        .fallback_url as string;
      expect(url.startsWith(`${base}/pay/`)).toBe(true);
      expect((await fetch(url)).status).toBe(200);

      // `server keys create`: a new, empty account — and it says so; --default-account gives a key of the same one
      const other = await cli(['server', 'keys', 'create']);
      expect(other.code, other.stderr).toBe(0);
      expect(other.stdout).toMatch(/new, empty account .* does not see the default account's objects/);
      const otherKey = other.stdout.split('\n')[0]!;
      expect((await api(base, otherKey, `/sessions/${id}`)).status).toBe(404);
      const same = (await cli(['server', 'keys', 'create', '--default-account', '--json'])).json();
      expect(same.default_account).toBe(true);
      expect((await api(base, same.api_key, `/sessions/${id}`)).status).toBe(200);

      // a profile takes over; `profiles use --none` goes back to the local server without removing it
      expect((await cli(['profiles', 'add', 'other', '--api-key', otherKey, '--base-url', base])).code).toBe(0);
      expect((await cli(['sessions', 'get', id, '--json'])).code).toBe(1); // the other account: 404
      const back = await cli(['profiles', 'use', '--none']);
      expect(back.code, back.stderr).toBe(0);
      expect((await cli(['sessions', 'get', id, '--json'])).code).toBe(0);
      expect((await cli(['profiles', 'list', '--json'])).stdout).toContain('other');

      expect((await cli(['server', 'stop'])).code).toBe(0);
      expect(alive(pid)).toBe(false);
      expect(existsSync(join(home, 'server', 'payorch.db'))).toBe(true);
    },
    T,
  );

  it(
    'a start without --port takes another free port when 4242 is taken, and says so; --port 4242 is refused then',
    async () => {
      const { cli } = newHome();
      // 4242 held by this test when it is free; else someone else holds it, which is the case under test too
      const holder = createServer();
      const held = await new Promise<boolean>((resolve) => {
        holder.once('error', () => resolve(false));
        holder.listen(4242, '127.0.0.1', () => resolve(true));
      });
      try {
        const started = await cli(['server', 'start', '--memory', '--detach', '--json']);
        expect(started.code, started.stderr).toBe(0);
        pids.add(started.json().pid);
        if (held) expect(new URL(started.json().base_url).port).not.toBe('4242');
        if (held) {
          const asked = await cli(['server', 'start', '--memory', '--port', '4242']);
          expect(asked.code).toBe(2);
          expect(asked.stderr).toMatch(/Port 4242 on 127\.0\.0\.1 is in use/);
        }
      } finally {
        holder.close();
      }
    },
    T,
  );

  it(
    '`server stop --pid` from another PAYORCH_HOME says where that server was started',
    async () => {
      const a = newHome();
      const b = newHome();
      const started = (await a.cli(['server', 'start', '--port', '0', '--memory', '--detach', '--json'])).json();
      pids.add(started.pid);
      const elsewhere = await b.cli(['server', 'stop', '--pid', String(started.pid)]);
      expect(elsewhere.code).toBe(2);
      expect(elsewhere.stderr).toContain(`started with PAYORCH_HOME=${a.home}`);
      expect(elsewhere.stderr).toContain(`PAYORCH_HOME=${a.home} payorch server stop --pid ${started.pid}`);
      expect(alive(started.pid)).toBe(true);
      expect((await a.cli(['server', 'stop', '--pid', String(started.pid)])).code).toBe(0);
    },
    T,
  );

  it(
    'a failed start does not create the data directory',
    async () => {
      const { cli, home } = newHome();
      const busy = await cli(['server', 'start', '--port', '0', '--memory', '--detach', '--json']);
      const port = new URL(busy.json().base_url).port;
      pids.add(busy.json().pid);
      const dir = join(home, 'new', 'data');
      const r = await cli(['server', 'start', '--port', port, '--data-dir', dir]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/in use/);
      expect(existsSync(join(home, 'new'))).toBe(false);
      const d = await cli(['server', 'start', '--port', port, '--data-dir', dir, '--detach']);
      expect(d.code).toBe(2);
      expect(existsSync(join(home, 'new'))).toBe(false);
    },
    T,
  );
});

describe.concurrent('hosted-page links follow the server that serves the data now (finding 4; issue 30, item 8)', () => {
  it(
    'a session made in process links to the server started later on another port; `sessions open` prints that link, or how to serve it',
    async () => {
      const { cli } = newHome();
      const made = await cli(['sessions', 'create', '--amount', '500', '--currency', 'usd', '--json']);
      expect(made.code, made.stderr).toBe(0);
      // the in-process default: its links name 4242 (where `server start` listens), and it says so
      expect(made.stderr).toMatch(/pages \(checkout, 3DS\) are served only while `payorch server start` runs/);
      const id = made.json().id as string;
      expect(made.json().fallback_url).toBe(`http://127.0.0.1:4242/functions/v1/pay/${id}`);

      // a server for the same data on a port of its own (as when 4242 belongs to another data directory)
      const started = await cli(['server', 'start', '--port', '0', '--detach', '--json']);
      expect(started.code, started.stderr).toBe(0);
      pids.add(started.json().pid);
      const base = started.json().base_url as string;
      expect((await cli(['sessions', 'get', id, '--json'])).json().fallback_url).toBe(`${base}/pay/${id}`);
      const served = await cli(['sessions', 'open', id]);
      expect(served.code, served.stderr).toBe(0);
      expect(served.stdout).toBe(`${base}/pay/${id}\n`);
      expect(served.stderr).not.toMatch(/Nothing serves|does not serve/);
      expect((await fetch(`${base}/pay/${id}`)).status).toBe(200);
      expect((await cli(['server', 'stop'])).code).toBe(0);

      // nothing serves this data now, and 4242 answers for something else (held here, or by another server): the
      // hint says so, rather than nothing (the page would 404 there) or "start a server" on a port that is taken
      const holder = createServer((_req, res) => res.writeHead(404).end());
      const held = await new Promise<boolean>((resolve) =>
        holder.once('error', () => resolve(false)).listen(4242, '127.0.0.1', () => resolve(true)),
      );
      try {
        const open = await cli(['sessions', 'open', id]);
        expect(open.code, open.stderr).toBe(0);
        expect(open.stdout).toBe(`http://127.0.0.1:4242/functions/v1/pay/${id}\n`);
        const taken =
          'http://127.0.0.1:4242 does not serve this page (another server holds that port): `payorch server start --port 0` serves the default data directory on a free port';
        // (held by another process instead, which may have let go of it meanwhile: then the other true answer)
        if (held) expect(open.stderr).toContain(taken);
        else
          expect(
            [taken, 'Nothing serves http://127.0.0.1:4242 now: `payorch server start` serves this page'].some((hint) =>
              open.stderr.includes(hint),
            ),
            open.stderr,
          ).toBe(true);
      } finally {
        await new Promise((resolve) => holder.close(resolve));
      }
    },
    T,
  );
});

describe.concurrent('every server the CLI started can be found and stopped (finding 6)', () => {
  it(
    '`server start --memory --detach` shows in `server status` and stops with `server stop`',
    async () => {
      const { cli } = newHome();
      const started = await cli(['server', 'start', '--port', '0', '--memory', '--detach']);
      expect(started.code, started.stderr).toBe(0);
      const pid = Number(/pid (\d+)/.exec(started.stdout)![1]);
      pids.add(pid);
      expect(started.stdout).toContain(`stop: \`payorch server stop --pid ${pid}\``);
      // `server status` answers "is a server running on the data directory?" (exit 0 yes, 4 no): none runs on the
      // default one, so 4, and the other server is listed, running (it once made the answer 0).
      const status = await cli(['server', 'status', '--json']);
      expect(status.code, status.stderr).toBe(4);
      expect(status.json()).toMatchObject({ running: false, healthy: false, state: null });
      expect(status.json().others).toEqual([
        expect.objectContaining({ pid, memory: true, healthy: true, state: 'running' }),
      ]);
      const human = await cli(['server', 'status']);
      expect(human.code).toBe(4);
      expect(human.stdout).toMatch(
        /^No server is running on .*\n\nOther servers payorch started:\n {2}pid \d+ .* running {2}stop:/,
      );
      const stop = await cli(['server', 'stop']);
      expect(stop.code, stop.stderr).toBe(0);
      expect(stop.stdout).toContain(`(pid ${pid})`);
      expect(await until(() => !alive(pid))).toBe(true);
      expect((await cli(['server', 'status'])).code).toBe(4);
    },
    T,
  );

  it(
    'hints carry --data-dir; two servers need --pid or --all',
    async () => {
      const { cli, home } = newHome();
      const dir = join(home, 'my data');
      const a = await cli(['server', 'start', '--port', '0', '--data-dir', dir, '--detach']);
      expect(a.code, a.stderr).toBe(0);
      pids.add(Number(/pid (\d+)/.exec(a.stdout)![1]));
      expect(a.stdout).toContain(`\`payorch server stop --data-dir '${dir}'\``);
      expect(a.stdout).toContain(`\`payorch server status --data-dir '${dir}'\``);
      expect(a.stdout).toContain(`keys reveal --show --data-dir '${dir}'`);
      const b = (await cli(['server', 'start', '--port', '0', '--memory', '--detach', '--json'])).json();
      pids.add(b.pid);
      const ambiguous = await cli(['server', 'stop']);
      expect(ambiguous.code).toBe(2);
      expect(ambiguous.stderr).toMatch(/--pid N, or --all/);
      const all = await cli(['server', 'stop', '--all', '--json']);
      expect(all.code, all.stderr).toBe(0);
      expect(all.json().servers).toHaveLength(2);
      expect(await until(() => !alive(b.pid))).toBe(true);
    },
    T,
  );

  it(
    'a recorded pid now used by another process is not taken for a server, nor signalled',
    async () => {
      const { cli, home } = newHome();
      // a live process that is not a payorch server, under a record and a lock claiming its pid
      const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
      const pid = other.pid!;
      pids.add(pid);
      mkdirSync(join(home, 'servers'), { recursive: true });
      mkdirSync(join(home, 'server'), { recursive: true });
      const rec = {
        pid,
        proc_start: '1',
        base_url: 'http://127.0.0.1:9/functions/v1',
        data_dir: null,
        started_at: new Date().toISOString(),
        auto: false,
      };
      writeFileSync(join(home, 'servers', `${pid}.json`), JSON.stringify(rec));
      writeFileSync(join(home, 'server', 'server.lock'), JSON.stringify({ ...rec, data_dir: join(home, 'server') }));
      const status = await cli(['server', 'status', '--json']);
      expect(status.json()).toMatchObject({ running: false, others: [] });
      expect((await cli(['server', 'stop', '--pid', String(pid)])).code).toBe(2);
      expect((await cli(['server', 'stop', '--all'])).code).toBe(0);
      expect((await cli(['server', 'stop'])).code).toBe(0);
      expect(alive(pid)).toBe(true);
      other.kill('SIGKILL');
    },
    T,
  );
});

describe.concurrent('the background server for keyless commands (finding 13)', () => {
  // (an idle limit as a backstop: a run cut short leaves nothing running for long)
  const daemon = { PAYORCH_DAEMON: '1', PAYORCH_IDLE_TIMEOUT: '120' };

  it(
    'starts once, answers through the same pipeline, and survives kill -9 with every acknowledged write',
    async () => {
      const { cli, lockPid } = newHome();
      const first = await cli(['sessions', 'create', '--amount', '1999', '--currency', 'usd', '--json'], {
        env: daemon,
      });
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toMatch(
        /using the test-mode server at http:\/\/127\.0\.0\.1:\d+\/functions\/v1 \(started it in the background, pid \d+/,
      );
      const pid = lockPid()!;
      expect(first.stderr).toContain(`pid ${pid}`);
      const id = first.json().id;
      // the second command finds it (no new process)
      const second = await cli(['sessions', 'get', id, '--json'], { env: daemon });
      expect(second.stderr).toContain(`(pid ${pid};`);
      expect(second.json().id).toBe(id);
      // validation and errors: the same body as the in-process server gives
      const bad = await cli(['api', 'POST', '/create-session', '--data', '{"amount":-1,"currency":"usd"}', '--json'], {
        env: daemon,
      });
      const badInProcess = await runCli(
        ['api', 'POST', '/create-session', '--data', '{"amount":-1,"currency":"usd"}', '--json'],
        { timeoutMs: 90_000 },
      );
      expect(bad.code).toBe(1);
      const strip = (t: string) => JSON.parse(t).error;
      expect({ ...strip(bad.stdout), request_id: 0 }).toEqual({ ...strip(badInProcess.stdout), request_id: 0 });
      // idempotency: a replayed key gives the same object
      const once = await cli(
        ['sessions', 'create', '--amount', '700', '--currency', 'usd', '--idempotency-key', 'k-1', '--json'],
        { env: daemon },
      );
      const again = await cli(
        ['sessions', 'create', '--amount', '700', '--currency', 'usd', '--idempotency-key', 'k-1', '--json'],
        { env: daemon },
      );
      expect(again.json().id).toBe(once.json().id);

      process.kill(pid, 'SIGKILL');
      expect(await until(() => !alive(pid))).toBe(true);
      const after = await cli(['sessions', 'list', '--json'], { env: daemon });
      expect(after.code, after.stderr).toBe(0);
      expect(after.stderr).toMatch(/started it in the background/);
      expect(lockPid()).not.toBe(pid);
      expect(
        after
          .json()
          .data.map((s: { id: string }) => s.id)
          .sort(),
      ).toEqual([id, once.json().id].sort());
    },
    T,
  );

  it(
    'stops when idle, and when its data directory is removed',
    async () => {
      const { cli, lockPid, home } = newHome();
      expect((await cli(['sessions', 'list', '--json'], { env: { ...daemon, PAYORCH_IDLE_TIMEOUT: '1' } })).code).toBe(
        0,
      );
      const pid = lockPid()!;
      expect(await until(() => !alive(pid))).toBe(true);
      expect(existsSync(join(home, 'server', 'server.lock'))).toBe(false);

      const { cli: cli2, lockPid: lockPid2, home: home2 } = newHome();
      expect((await cli2(['sessions', 'list', '--json'], { env: daemon })).code).toBe(0);
      const pid2 = lockPid2()!;
      expect(alive(pid2)).toBe(true);
      const { rmSync } = await import('node:fs');
      rmSync(home2, { recursive: true, force: true });
      expect(await until(() => !alive(pid2))).toBe(true);
    },
    T,
  );

  it(
    '`server start` takes over from it on the same data; without a terminal none is started',
    async () => {
      const { cli, lockPid } = newHome();
      const id = (
        await cli(['sessions', 'create', '--amount', '300', '--currency', 'usd', '--json'], { env: daemon })
      ).json().id;
      const auto = lockPid()!;
      const status = await cli(['server', 'status', '--json']);
      expect(status.json()).toMatchObject({ running: true, background: true, pid: auto });
      const started = await cli(['server', 'start', '--port', '0', '--detach', '--json']);
      expect(started.code, started.stderr).toBe(0);
      expect(started.json().pid).not.toBe(auto);
      pids.add(started.json().pid);
      expect(alive(auto)).toBe(false);
      expect((await cli(['sessions', 'get', id, '--json'])).json().id).toBe(id);
      expect((await cli(['server', 'stop'])).code).toBe(0);

      // no terminal and no PAYORCH_DAEMON (a CI job): in process, nothing left running
      const ci = newHome();
      const r = await ci.cli(['sessions', 'list', '--json']);
      expect(r.stderr).toMatch(/embedded test-mode server/);
      expect(ci.lockPid()).toBeUndefined();
      expect(existsSync(join(ci.home, 'servers'))).toBe(false);
    },
    T,
  );
});

describe('the Quick start on a fresh clone', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const readme = readFileSync(join(root, 'README.md'), 'utf8');

  it(
    "its first command runs the clone's own build: `npx payorch` in the clone builds nothing again",
    async () => {
      const quick = readme.slice(readme.indexOf('## Quick start'));
      const command = /```sh\n([^\n]+)\n```/.exec(quick)![1]!;
      expect(command).toMatch(/^npm install && npx payorch /);

      // A clone as `npm install` leaves it: the repository's files, its node_modules, and dist/ built from them
      // (the build this suite runs first). A fresh npm cache: npx's cache holds nothing of this clone yet.
      const clone = tempDir();
      for (const f of ['src', 'scripts', 'bin', 'dist', 'node_modules', 'oclif.manifest.json'])
        cpSync(join(root, f), join(clone, f), { recursive: true, verbatimSymlinks: true });
      for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'])
        cpSync(join(root, f), join(clone, f));
      const built = ['dist/index.js', 'dist/vendor/embedded.cjs', 'oclif.manifest.json'].map((f) => {
        const st = statSync(join(clone, f));
        return `${f} ${st.ino} ${st.mtimeMs}`;
      });
      const npmCache = tempDir();
      const home = tempDir();
      const env = {
        ...process.env,
        npm_config_cache: npmCache,
        npm_config_offline: 'true', // nothing to fetch: a fetch fails the command rather than wait on the network
        npm_config_update_notifier: 'false',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_loglevel: 'info', // npm names each lifecycle script it runs
        PAYORCH_HOME: home,
        PAYORCH_DAEMON: '0', // the server inside the command: nothing left running
      };
      const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = execFile(
          'sh',
          ['-c', command],
          { cwd: clone, env, encoding: 'utf8', timeout: T - 30_000 },
          (err, stdout, stderr) =>
            resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
        );
        child.stdin?.end();
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/Payment session created\n\s+id\s+\S+/);
      // npx installed the clone into its cache (a link to it) and ran its prepare script there, as npm does for
      // a package's own bin; that prepare found dist/ built from these sources and built nothing.
      const npx = readdirSync(join(npmCache, '_npx'));
      expect(npx).toHaveLength(1);
      expect(existsSync(join(npmCache, '_npx', npx[0]!, 'node_modules', 'payorch', 'dist', 'index.js'))).toBe(true);
      const prepares = r.stderr.match(/npm info run payorch@[^ ]+ prepare .*node scripts\/build\.js --if-stale/g) ?? [];
      expect(prepares, r.stderr).toHaveLength(1);
      expect(r.stdout).toContain('build: dist/ is up to date with its sources'); // npm install's own prepare
      const after = ['dist/index.js', 'dist/vendor/embedded.cjs', 'oclif.manifest.json'].map((f) => {
        const st = statSync(join(clone, f));
        return `${f} ${st.ino} ${st.mtimeMs}`;
      });
      // (if this fails on a tree edited since its last build: `npm run build` first)
      expect(after, 'no build ran: dist/ is as the clone had it').toEqual(built);
    },
    T,
  );
});
