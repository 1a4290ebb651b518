// Starts test/reliability/child-server.mjs (the real server from dist/) as a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface Child {
  proc: ChildProcess;
  baseUrl: string;
  apiKey: string;
  pid: number;
  /** Everything the child wrote to stdout/stderr. */
  output(): string;
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

/** How long a child server may take to stop after SIGTERM (ms). */
const STOP_MS = 20_000;

const SCRIPT = fileURLToPath(new URL('./child-server.mjs', import.meta.url));

/** `options`: more ServerOptions (JSON), e.g. `{dueWorkIntervalMs: 0}` for a server whose clock work runs only when asked. */
export function startChild(dataDir: string, limits?: object, options?: object): Promise<Child> {
  const args = [
    SCRIPT,
    dataDir,
    ...(limits || options ? [JSON.stringify(limits ?? { perMinute: 1e9, perDay: 1e12, concurrency: 10_000 })] : []),
    ...(options ? [JSON.stringify(options)] : []),
  ];
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`child server did not start: ${out}`)), 20_000);
    proc.stderr!.on('data', (d) => (out += d));
    proc.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (!line) return;
      clearTimeout(timer);
      const info = JSON.parse(line) as { baseUrl: string; apiKey: string; pid: number };
      resolve({
        proc,
        ...info,
        output: () => out,
        async kill9() {
          proc.kill('SIGKILL');
          await exited;
        },
        async stop() {
          if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
          // A server that does not stop is a failure of the test that stops it, with what it wrote.
          let hung = false;
          const timer = setTimeout(() => {
            hung = true;
            proc.kill('SIGKILL');
          }, STOP_MS);
          await exited;
          clearTimeout(timer);
          if (hung)
            throw new Error(
              `the child server did not stop within ${STOP_MS / 1000} s of SIGTERM (killed); it wrote:\n${out.slice(-4000)}`,
            );
        },
      });
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`child server exited (${code}): ${out}`));
    });
  });
}
