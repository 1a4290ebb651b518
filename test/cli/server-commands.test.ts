// `payorch server start|stop|status|logs|reset` as a user runs them, and secrets at rest: the API key and
// client secrets never reach the log or the database file (issue 2, server core + CLI).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runCliSlow } from '../helpers/cli.js';
import { alive, stoppedAfterAll } from '../helpers/processes.js';
import { tempDir } from '../helpers/tmp.js';
import { CLIENT_SECRET } from '../helpers/util.js';
import { startTestServer } from '../helpers/server.js';

const runCli = runCliSlow;
const pids = stoppedAfterAll();
const mode = (path: string) => statSync(path).mode & 0o777;

async function startDetached(dataDir: string) {
  const r = await runCli(['server', 'start', '--port', '0', '--data-dir', dataDir, '--detach', '--json']);
  expect(r.code, r.stderr).toBe(0);
  const info = r.json<{ base_url: string; api_key: string; pid: number; data_dir: string }>();
  pids.add(info.pid);
  return { ...info, stdout: r.stdout };
}

async function api(base: string, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any, requestId: res.headers.get('request-id') };
}

/** Waits (polling the file, not sleeping blindly) until the server's log holds `text`. */
async function logContains(file: string, text: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (existsSync(file) && readFileSync(file, 'utf8').includes(text)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${file} never contained ${text}`);
}

// The three scenarios are independent (own data directories, own processes): run them side by side.
describe.concurrent('server commands', { timeout: 300_000 }, () => {
  describe('server start --detach / status / logs / stop / reset', () => {
    it('runs the whole life cycle of a data directory', async () => {
      const dir = join(tempDir(), 'data');

      // start: prints {base_url, api_key, pid, data_dir} and returns once /health answers
      const srv = await startDetached(dir);
      expect(Object.keys(JSON.parse(srv.stdout)).sort()).toEqual(['api_key', 'base_url', 'data_dir', 'pid']);
      expect(srv.stdout.trim().split('\n')).toHaveLength(1);
      expect(srv.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/functions\/v1$/);
      expect(srv.api_key).toMatch(/^sk_test_[0-9A-Za-z]{20,}$/);
      expect(srv.data_dir).toBe(dir);
      expect(srv.pid).not.toBe(process.pid);
      const health = await fetch(`${srv.base_url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok' });

      // objects with secrets in them
      const secrets: string[] = [];
      let createRequest = '';
      for (let i = 0; i < 3; i++) {
        const res = await api(srv.base_url, srv.api_key, 'POST', '/create-session', {
          amount: 100 + i,
          currency: 'usd',
          description: `s${i}`,
          customer: { email: 'a@b.co' },
        });
        expect(res.status).toBe(201);
        expect(res.body.client_secret).toMatch(CLIENT_SECRET);
        secrets.push(res.body.client_secret);
        createRequest = res.requestId!;
      }
      const sessionId = (await api(srv.base_url, srv.api_key, 'GET', '/sessions?limit=1')).body.data[0].id;

      // a second start on the same directory says so; status says running; reset refuses while running
      const [second, secondFg, status, resetRunning] = await Promise.all([
        runCli(['server', 'start', '--port', '0', '--data-dir', dir, '--detach']),
        runCli(['server', 'start', '--port', '0', '--data-dir', dir, '--json']),
        runCli(['server', 'status', '--data-dir', dir]),
        runCli(['server', 'reset', '--yes', '--data-dir', dir]),
      ]);
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(/already running/);
      expect(second.stderr).toContain(String(srv.pid));
      expect(secondFg.code).toBe(2);
      expect(secondFg.json().error.message).toMatch(/already running/);
      expect(status.code).toBe(0);
      expect(status.stdout).toContain(srv.base_url);
      expect(status.stdout).toContain(String(srv.pid));
      expect(resetRunning.code).toBe(2);
      expect(resetRunning.stderr).toMatch(/already running/);
      expect(existsSync(join(dir, 'payorch.db'))).toBe(true);
      expect((await api(srv.base_url, srv.api_key, 'GET', `/sessions/${sessionId}`)).status).toBe(200);

      // logs of the running server: request lines, never the key or a client secret
      const logFile = join(dir, 'server.log');
      await logContains(logFile, createRequest);
      const [logs, logsJson] = await Promise.all([
        runCli(['server', 'logs', '--data-dir', dir]),
        runCli(['server', 'logs', '--data-dir', dir, '--json', '--lines', '1000']),
      ]);
      expect(logs.code).toBe(0);
      expect(logs.stdout).toContain('/functions/v1/create-session');
      expect(logs.stdout).toContain(createRequest);
      const lines = logsJson.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.some((l) => l.req === createRequest && l.status === 201 && l.method === 'POST')).toBe(true);
      for (const out of [logs.stdout, logsJson.stdout]) {
        expect(out).not.toContain(srv.api_key);
        for (const cs of secrets) expect(out).not.toContain(cs);
      }

      // stop: graceful; then status exit 4 and nothing answers
      const stop = await runCli(['server', 'stop', '--data-dir', dir]);
      expect(stop.code).toBe(0);
      expect(stop.stdout).toContain(String(srv.pid));
      expect(alive(srv.pid)).toBe(false);
      pids.delete(srv.pid);
      const [statusAfter, stopAgain] = await Promise.all([
        runCli(['server', 'status', '--data-dir', dir]),
        runCli(['server', 'stop', '--data-dir', dir]),
      ]);
      expect(statusAfter.code).toBe(4);
      expect(statusAfter.stdout).toMatch(/No server is running/);
      expect(stopAgain.code).toBe(0);
      await expect(fetch(`${srv.base_url}/health`)).rejects.toThrow();

      // secrets at rest: neither the API key nor any client secret is in the log or the database bytes
      const files = ['server.log', 'payorch.db', 'payorch.db-wal'].map((f) => join(dir, f)).filter(existsSync);
      expect(files.length).toBeGreaterThanOrEqual(2);
      for (const f of files) {
        const bytes = readFileSync(f);
        expect(bytes.includes(srv.api_key), `${f} holds the API key`).toBe(false);
        expect(bytes.includes(srv.api_key.slice(8)), `${f} holds the API key's random part`).toBe(false);
        for (const cs of secrets) {
          expect(bytes.includes(cs), `${f} holds a client secret`).toBe(false);
          expect(bytes.includes(cs.slice(3)), `${f} holds a client secret's random part`).toBe(false);
        }
      }
      expect(readFileSync(join(dir, 'payorch.db')).includes('a@b.co')).toBe(true); // the check can see plain data
      for (const f of ['payorch.db', 'secret.key', 'credentials.json']) expect(mode(join(dir, f))).toBe(0o600);

      // the data persists across restarts, with the same key
      const again = await startDetached(dir);
      expect(again.api_key).toBe(srv.api_key);
      const got = await api(again.base_url, again.api_key, 'GET', `/sessions/${sessionId}`);
      expect(got.status).toBe(200);
      expect(secrets).toContain(got.body.client_secret);
      expect((await runCli(['server', 'stop', '--data-dir', dir])).code).toBe(0);
      pids.delete(again.pid);

      // reset: refuses without --yes and without a TTY; with --yes deletes everything
      const refused = await runCli(['server', 'reset', '--data-dir', dir], { input: 'y\n' });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('--yes');
      expect(existsSync(join(dir, 'payorch.db'))).toBe(true);
      const reset = await runCli(['server', 'reset', '--yes', '--data-dir', dir]);
      expect(reset.code).toBe(0);
      for (const f of ['payorch.db', 'credentials.json', 'secret.key', 'server.log'])
        expect(existsSync(join(dir, f))).toBe(false);
      const fresh = await startDetached(dir);
      expect(fresh.api_key).not.toBe(srv.api_key);
      expect((await api(fresh.base_url, fresh.api_key, 'GET', `/sessions/${sessionId}`)).status).toBe(404);
      expect((await api(fresh.base_url, srv.api_key, 'GET', '/sessions')).status).toBe(401);
      expect((await runCli(['server', 'stop', '--data-dir', dir])).code).toBe(0);
      pids.delete(fresh.pid);
    });
  });

  /**
   * A create-session whose headers are sent with `Expect: 100-continue` and whose body is held back: once the
   * server answers "100 Continue" (`admitted`) the request is in flight; `finish` sends the body and gives the
   * final status.
   */
  function holdCreate(baseUrl: string, key: string, externalId: string) {
    const url = new URL(baseUrl);
    const body = JSON.stringify({ amount: 100, currency: 'usd', external_id: externalId });
    const socket = connect(Number(url.port), url.hostname);
    let data = '';
    let onData = () => undefined as void;
    socket.on('data', (d) => {
      data += d;
      onData();
    });
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(
      `POST ${url.pathname}/create-session HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    );
    const admitted = new Promise<void>((resolve) => {
      onData = () => {
        if (data.includes('100 Continue')) resolve();
      };
    });
    return {
      admitted,
      async finish(): Promise<number> {
        socket.write(body);
        await closed;
        const statuses = [...data.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
        return statuses.at(-1)!;
      },
    };
  }

  /** Polls until the server no longer takes new requests (refused or 503). */
  async function untilClosing(url: string): Promise<void> {
    for (let i = 0; i < 200; i++) {
      try {
        const res = await fetch(`${url}/health`);
        await res.arrayBuffer();
        if (res.status === 503) return;
      } catch {
        return;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the server kept taking requests after SIGTERM');
  }

  describe('server start in the foreground', () => {
    /** Starts `payorch server start` in the foreground and resolves once it has printed its banner. */
    function foreground(dir: string) {
      const child = spawn(process.execPath, [BIN, 'server', 'start', '--port', '0', '--data-dir', dir], {
        env: { ...process.env, NO_COLOR: '1', PAYORCH_HOME: tempDir() },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      pids.add(child.pid!);
      let out = '';
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      const ready = new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d) => {
          out += d;
          if (out.includes('Press Ctrl-C')) resolve(out);
        });
        void exited.then(() => reject(new Error(`exited early: ${out}${err}`)));
      });
      return { child, ready, exited, stderr: () => err };
    }

    it('the first start prints the new key in full, later starts mask it; SIGTERM stops cleanly', async () => {
      const dir = join(tempDir(), 'fg');
      const first = foreground(dir);
      const banner = await first.ready;
      const key = /API key\s+(sk_test_[0-9A-Za-z]+)/.exec(banner)?.[1];
      expect(key).toBeDefined();
      expect(banner).toMatch(/new/);
      const url = /listening on (\S+)/.exec(banner)?.[1];
      expect((await fetch(`${url}/health`)).status).toBe(200);
      expect(JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')).api_key).toBe(key);

      // graceful shutdown: a request in flight when SIGTERM arrives still completes
      const held = holdCreate(url!, key!, 'in-flight-at-sigterm');
      await held.admitted;
      first.child.kill('SIGTERM');
      await untilClosing(url!);
      expect(await held.finish()).toBe(201);
      expect(await first.exited).toBe(0);
      expect(first.stderr()).toMatch(/stopped/);
      pids.delete(first.child.pid!);
      expect(existsSync(join(dir, 'server.lock'))).toBe(false);
      expect(readFileSync(join(dir, 'server.log'), 'utf8')).toMatch(/server stopped/);

      const second = foreground(dir);
      const banner2 = await second.ready;
      expect(banner2).not.toContain(key!);
      expect(banner2).toContain(`sk_test_…${key!.slice(-4)}`);
      const url2 = /listening on (\S+)/.exec(banner2)?.[1];
      const kept = await api(url2!, key!, 'GET', '/sessions?external_id=in-flight-at-sigterm');
      expect(kept.body.total_count).toBe(1);
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
      pids.delete(second.child.pid!);
    });
  });

  describe('server logs --follow', () => {
    it('prints new request lines of a running server as they come, until interrupted', async () => {
      const srv = await startTestServer();
      try {
        const child = spawn(process.execPath, [BIN, 'server', 'logs', '--follow', '--data-dir', srv.dataDir!], {
          env: { ...process.env, NO_COLOR: '1', PAYORCH_HOME: tempDir() },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        pids.add(child.pid!);
        let out = '';
        const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
        const seen = (text: string) =>
          new Promise<void>((resolve, reject) => {
            const check = () => out.includes(text) && resolve();
            child.stdout.on('data', (d) => {
              out += d;
              check();
            });
            check();
            void exited.then(() => reject(new Error(`logs --follow exited; output: ${out}`)));
          });
        const res = await srv.request('POST', '/create-session', { body: { amount: 1, currency: 'usd' } });
        expect(res.status).toBe(201);
        await seen(res.headers.get('request-id')!);
        expect(out).toContain('/functions/v1/create-session');
        expect(out).not.toContain(srv.apiKey);
        expect(out).not.toContain(res.body.client_secret);
        child.kill('SIGINT');
        expect(await exited).toBe(0);
        pids.delete(child.pid!);
      } finally {
        await srv.close();
      }
    });
  });

  describe('server start --detach (human output)', () => {
    it('prints the new key in full on the first start of a data directory, masked afterwards', async () => {
      const dir = join(tempDir(), 'human');
      const first = await runCli(['server', 'start', '--port', '0', '--data-dir', dir, '--detach']);
      expect(first.code, first.stderr).toBe(0);
      const key: string = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')).api_key;
      expect(first.stdout).toContain(key);
      const pid = Number(/pid (\d+)/.exec(first.stdout)?.[1]);
      pids.add(pid);
      expect((await runCli(['server', 'stop', '--data-dir', dir])).code).toBe(0);
      pids.delete(pid);
      const second = await runCli(['server', 'start', '--port', '0', '--data-dir', dir, '--detach']);
      expect(second.code, second.stderr).toBe(0);
      const pid2 = Number(/pid (\d+)/.exec(second.stdout)?.[1]);
      pids.add(pid2);
      expect(second.stdout).not.toContain(key);
      expect(second.stdout).toContain(`sk_test_…${key.slice(-4)}`);
      expect((await runCli(['server', 'stop', '--data-dir', dir])).code).toBe(0);
      pids.delete(pid2);
    });
  });

  describe('a lock left by a dead server', () => {
    it('does not block: status says not running (exit 4) and a new start takes the directory over', async () => {
      const dir = join(tempDir(), 'stale');
      mkdirSync(dir, { recursive: true });
      const dead = spawnSync(process.execPath, ['-e', '']).pid!;
      expect(alive(dead)).toBe(false);
      writeFileSync(
        join(dir, 'server.lock'),
        JSON.stringify({
          pid: dead,
          base_url: 'http://127.0.0.1:9/functions/v1',
          data_dir: dir,
          started_at: new Date().toISOString(),
        }),
      );
      const status = await runCli(['server', 'status', '--data-dir', dir]);
      expect(status.code).toBe(4);
      const srv = await startDetached(dir);
      expect((await fetch(`${srv.base_url}/health`)).status).toBe(200);
      expect(JSON.parse(readFileSync(join(dir, 'server.lock'), 'utf8')).pid).toBe(srv.pid);
      expect((await runCli(['server', 'stop', '--data-dir', dir])).code).toBe(0);
      pids.delete(srv.pid);
    });
  });

  describe('server start --memory with limits from flags', () => {
    it('applies --rate-limit-per-minute and reports data_dir null', async () => {
      const r = await runCli([
        'server',
        'start',
        '--port',
        '0',
        '--memory',
        '--detach',
        '--json',
        '--rate-limit-per-minute',
        '3',
        '--concurrency-limit',
        '7',
      ]);
      expect(r.code, r.stderr).toBe(0);
      const info = r.json<{ base_url: string; api_key: string; pid: number; data_dir: string | null }>();
      pids.add(info.pid);
      try {
        expect(info.data_dir).toBeNull();
        // Requests until the first 429. This server reads the machine's clock, so they may straddle the end of a
        // UTC minute: the count then starts over once. The window of the 429 (its X-RateLimit-Reset) holds
        // exactly three admitted requests before it.
        const seen: { status: number; limit: string | null; remaining: string | null; reset: string | null }[] = [];
        for (let i = 0; i < 8 && seen.at(-1)?.status !== 429; i++) {
          const res = await fetch(`${info.base_url}/sessions`, {
            headers: { authorization: `Bearer ${info.api_key}` },
          });
          const h = (name: string) => res.headers.get(name);
          seen.push({
            status: res.status,
            limit: h('x-ratelimit-limit'),
            remaining: h('x-ratelimit-remaining'),
            reset: h('x-ratelimit-reset'),
          });
        }
        const window = seen.filter((x) => x.reset === seen.at(-1)!.reset);
        expect(window.map((x) => [x.status, x.limit, x.remaining])).toEqual([
          [200, '3', '2'],
          [200, '3', '1'],
          [200, '3', '0'],
          [429, '3', '0'],
        ]);
        expect(seen.length).toBeLessThanOrEqual(7); // at most one window's end crossed
      } finally {
        process.kill(info.pid, 'SIGTERM');
        for (let i = 0; i < 100 && alive(info.pid); i++) await new Promise((res) => setTimeout(res, 50));
        expect(alive(info.pid)).toBe(false);
        pids.delete(info.pid);
      }
    });
  });
});
