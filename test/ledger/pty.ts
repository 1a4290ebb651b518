// Runs the real binary on a pseudo-terminal (util-linux `script`), so that prompts are shown and answered as
// a person would: wait for some output, then type. Skips cleanly where `script` is missing.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { BIN } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

export const SCRIPT = '/usr/bin/script';
export const hasPty = existsSync(SCRIPT);

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export interface PtySession {
  /** Resolves once the terminal output (ANSI stripped) contains `text`. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<string>;
  type(text: string): void;
  done: Promise<{ code: number | null; output: string }>;
}

export function runPty(args: string[], opts: { env?: Record<string, string>; home?: string } = {}): PtySession {
  const env: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PAYORCH_')) env[k] = v;
  Object.assign(env, { NO_COLOR: '1', TERM: 'xterm', COLUMNS: '200', PAYORCH_HOME: opts.home ?? tempDir() }, opts.env);
  const cmd = [process.execPath, BIN, ...args].map(quote).join(' ');
  const child = spawn(SCRIPT, ['-qfec', cmd, '/dev/null'], {
    env: env as NodeJS.ProcessEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  const waiters: { re: RegExp | string; resolve: (s: string) => void }[] = [];
  const clean = () => output.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
  const matches = (re: RegExp | string) => (typeof re === 'string' ? clean().includes(re) : re.test(clean()));
  const onData = (d: Buffer) => {
    output += d.toString();
    for (const w of [...waiters])
      if (matches(w.re)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(clean());
      }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const killer = setTimeout(() => child.kill('SIGKILL'), 25_000);
  const done = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, output: clean() });
    }),
  );
  return {
    waitFor(re, timeoutMs = 15_000) {
      if (matches(re)) return Promise.resolve(clean());
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`timed out waiting for ${String(re)}; got:\n${clean()}`)),
          timeoutMs,
        );
        waiters.push({ re, resolve: (s) => (clearTimeout(t), resolve(s)) });
      });
    },
    type(text) {
      child.stdin.write(text);
    },
    done,
  };
}
