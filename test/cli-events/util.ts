// Long-running CLI commands (listen, logs tail) as a user runs them: the real binary, lines read as they come,
// stopped with a signal. Waits are for lines, with generous deadlines — never for a speed.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

export const DEADLINE_MS = 30_000;

export interface Running {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once `test` holds for what the stream has printed so far; rejects after `ms`. */
  waitFor(stream: 'stdout' | 'stderr', test: (text: string) => boolean, ms?: number): Promise<string>;
  /** Sends `signal` and resolves with the exit code and signal. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `payorch listen --json` against a server, ready (its "Ready" line printed); `printed()`: the ids of the events it printed. */
export async function listenJson(baseUrl: string, apiKey: string): Promise<Running & { printed: () => string[] }> {
  const l = spawnCli(['listen', '--json', '--base-url', baseUrl, '--api-key', apiKey]);
  const printed = () =>
    l
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { id: string }).id);
  try {
    await l.waitFor('stderr', (t) => t.includes('Ready: listening'));
  } catch (err) {
    await l.stop();
    throw err;
  }
  return Object.assign(l, { printed });
}

export function spawnCli(args: string[], opts: { home?: string; env?: Record<string, string> } = {}): Running {
  const env: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PAYORCH_') && k !== 'FORCE_COLOR') env[k] = v;
  Object.assign(env, { NO_COLOR: '1', PAYORCH_HOME: opts.home ?? tempDir() }, opts.env);
  const child = spawn(process.execPath, [BIN, ...args], {
    env: env as NodeJS.ProcessEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((w) => w());
  child.stdout.on('data', (d) => ((out += d), wake()));
  child.stderr.on('data', (d) => ((err += d), wake()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => (resolve({ code, signal }), wake())),
  );
  let done = false;
  void exited.then(() => (done = true));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor(stream, test, ms = DEADLINE_MS) {
      const text = () => (stream === 'stdout' ? out : err);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no match on ${stream} within ${ms} ms.\nstdout:\n${out}\nstderr:\n${err}`)),
          ms,
        );
        const check = () => {
          if (test(text())) {
            clearTimeout(timer);
            resolve(text());
          } else if (done) {
            clearTimeout(timer);
            reject(new Error(`the command exited first.\nstdout:\n${out}\nstderr:\n${err}`));
          } else waiters.push(check);
        };
        check();
      });
    },
    async stop(signal = 'SIGINT') {
      if (!done) child.kill(signal);
      const killer = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS);
      const r = await exited;
      clearTimeout(killer);
      return r;
    },
  };
}

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A webhook receiver on 127.0.0.1:0: records every request; `answer` decides each one's status (or hangs). */
export async function receiver(
  answer: (r: Received) => number | 'hang' = () => 200,
): Promise<{ port: number; received: Received[]; server: Server; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const r = { headers: req.headers, body };
      received.push(r);
      const a = answer(r);
      if (a === 'hang') return;
      res.writeHead(a).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `check` until it returns something truthy, up to the deadline. */
export async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  ms = DEADLINE_MS,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > until) throw new Error('eventually: not within the deadline');
    await new Promise((r) => setTimeout(r, 50));
  }
}
