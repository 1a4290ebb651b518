// Runs the real binary (bin/run.js → dist/) as a user or a CI script would, without a terminal.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tempDir } from './tmp.js';

export const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (throws if it is not). */
  json<T = any>(): T;
}

export interface CliOptions {
  /** Extra environment; PAYORCH_* from the parent are dropped first. */
  env?: Record<string, string | undefined>;
  /** PAYORCH_HOME (profiles + embedded data); a fresh temp dir when omitted. */
  home?: string;
  input?: string;
  timeoutMs?: number;
  /** The working directory (default: the test's). */
  cwd?: string;
}

export function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  const env: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PAYORCH_') && k !== 'FORCE_COLOR') env[k] = v;
  Object.assign(env, { NO_COLOR: '1', PAYORCH_HOME: opts.home ?? tempDir() }, opts.env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: env as NodeJS.ProcessEnv,
      cwd: opts.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        code,
        stdout,
        stderr,
        json() {
          return JSON.parse(stdout);
        },
      });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** CLI flags that point the binary at a test server. */
export const against = (s: { baseUrl: string; apiKey: string }) => ['--base-url', s.baseUrl, '--api-key', s.apiKey];

/**
 * runCli with a 90 s limit, for commands that start a detached server (a second process: on 2 shared cores under
 * a full test run it took 10–20 s, over the default 20 s — a kill, not a verdict). Nothing is timed.
 */
export const runCliSlow = (args: string[], opts: CliOptions = {}) => runCli(args, { timeoutMs: 90_000, ...opts });
