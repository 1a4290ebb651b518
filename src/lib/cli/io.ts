// What a command may touch of the outside world: its output streams, whether there is a terminal to ask on,
// stdin, the environment and the prompts. BaseCommand uses `processIO()` unless it is given another (tests
// run commands in process with `captureIO()`: test/helpers/inprocess.ts).
import { readFileSync } from 'node:fs';
import type { TransportRequest } from '../client/transport.js';
import { color } from '../output/render.js';

export interface OutStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  /** A terminal's width in characters (tables fit it). */
  readonly columns?: number;
}

/** The questions a command can ask (on a terminal). */
export interface Prompter {
  input(opts: { message: string; validate?: (value: string) => true | string }): Promise<string>;
  password(opts: { message: string }): Promise<string>;
  confirm(opts: { message: string }): Promise<boolean>;
  /** A confirmation by typing a value: the answer, shown once given as accepted or not as `matches` says. */
  typed(opts: { message: string; matches: (value: string) => boolean }): Promise<string>;
}

export interface CliIO {
  stdout: OutStream;
  stderr: OutStream;
  /** True when stdin is a terminal. */
  readonly stdinIsTTY: boolean;
  /** All of stdin as text (for `--data -` and values piped in). */
  readStdin(): string;
  env: NodeJS.ProcessEnv;
  /** Loaded only when a question is actually asked. */
  prompter(): Promise<Prompter>;
  /** Sees each API request just before it is sent (tests of flag → request mapping). */
  onRequest?: (req: TransportRequest) => void;
  /** The process's exit status once the command ends. */
  setExitCode(code: number): void;
}

/** The real process: process.stdout/stderr/stdin/env and @inquirer/prompts. */
export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    get stdinIsTTY() {
      return Boolean(process.stdin.isTTY);
    },
    readStdin: () => readFileSyncFd0(),
    env: process.env,
    prompter: async () => {
      const p = await import('@inquirer/prompts');
      return {
        input: ({ message, validate }) => p.input({ message, required: true, validate }),
        password: ({ message }) => p.password({ message, mask: '•', validate: (v) => (v.trim() ? true : 'required') }),
        confirm: ({ message }) => p.confirm({ message, default: false }),
        // Inquirer marks every answer given with a ✔, a wrong one too: here the question keeps its "?" and the
        // answer says whether it matched.
        typed: async ({ message, matches }) => {
          const c = color();
          return p.input({
            message,
            theme: { prefix: { done: c.blue('?') } },
            transformer: (value, { isFinal }) =>
              !isFinal ? value : matches(value) ? `${value} ${c.green('✔')}` : `${value} ${c.red('✘ does not match')}`,
          });
        },
      };
    },
    setExitCode: (code) => void (process.exitCode = code),
  };
}

const readFileSyncFd0 = () => readFileSync(0, 'utf8');

/** A terminal to ask on: stdin and stdout are terminals (and the command is not in --json mode). */
export const canAsk = (io: CliIO, json = false) => !json && io.stdinIsTTY && Boolean(io.stdout.isTTY);

/** An IO that records what a command writes; `answers` are given to prompts in order. For in-process tests. */
export function captureIO(
  opts: {
    env?: NodeJS.ProcessEnv;
    stdin?: string;
    tty?: boolean;
    columns?: number;
    answers?: (string | boolean)[];
    onRequest?: (req: TransportRequest) => void;
  } = {},
): CliIO & { out: string; err: string; exitCode: number } {
  const answers = [...(opts.answers ?? [])];
  const next = () => {
    if (answers.length === 0) throw new Error('captureIO: a prompt was shown with no answer left');
    return answers.shift()!;
  };
  const io = {
    out: '',
    err: '',
    exitCode: 0,
    setExitCode: (code: number) => void (io.exitCode = code),
    stdout: { write: (t: string) => void (io.out += t), isTTY: Boolean(opts.tty), columns: opts.columns },
    stderr: { write: (t: string) => void (io.err += t), isTTY: Boolean(opts.tty), columns: opts.columns },
    stdinIsTTY: Boolean(opts.tty),
    readStdin: () => opts.stdin ?? '',
    onRequest: opts.onRequest,
    env: opts.env ?? {},
    prompter: async (): Promise<Prompter> => ({
      input: async () => String(next()),
      password: async () => String(next()),
      confirm: async () => Boolean(next()),
      typed: async () => String(next()),
    }),
  };
  return io;
}
