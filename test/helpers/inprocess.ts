// Runs a command in this process through its IO seam (src/lib/cli/io.ts): the real command class from dist/,
// oclif's real parsing, the real client and transport — only stdout/stderr/TTY/prompts are captured. Fast
// enough to sweep every command; the end-to-end tests (runCli) still drive bin/run.js.
import { fileURLToPath } from 'node:url';
import { Config } from '@oclif/core';
import { captureIO } from '../../dist/lib/cli/io.js';
import type { TransportRequest } from '../../dist/lib/client/transport.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let config: Promise<Config> | undefined;
export const cliConfig = () => (config ??= Config.load(ROOT));

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
  result: unknown;
  requests: TransportRequest[];
}

/** `id` is the command id with spaces (`sessions get`). */
/** `tty`: stdin, stdout and stderr are terminals, `columns` wide (tables fit it). */
export async function runInProcess(
  id: string,
  argv: string[],
  opts: {
    env?: NodeJS.ProcessEnv;
    tty?: boolean;
    columns?: number;
    answers?: (string | boolean)[];
    stdin?: string;
  } = {},
): Promise<InProcessResult> {
  const cfg = await cliConfig();
  const found = cfg.findCommand(id.split(' ').join(':'));
  if (!found) throw new Error(`no command ${id}`);
  const C = (await found.load()) as unknown as new (
    argv: string[],
    config: Config,
  ) => { io: unknown; id?: string; _run(): Promise<unknown> };
  const requests: TransportRequest[] = [];
  const io = captureIO({ ...opts, env: opts.env ?? {}, onRequest: (r) => requests.push(structuredClone(r)) });
  const cmd = new C(argv, cfg);
  cmd.io = io;
  cmd.id = found.id;
  let result: unknown;
  try {
    result = await cmd._run();
  } catch (err) {
    const exit = (err as { oclif?: { exit?: number } }).oclif?.exit;
    if (exit === undefined) throw err;
    io.exitCode = exit;
    io.err += String((err as Error).message) + '\n';
  }
  return { code: io.exitCode, stdout: io.out, stderr: io.err, result, requests };
}
