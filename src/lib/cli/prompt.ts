// Asking for what is missing: only when stdin and stdout are terminals (and not --json); otherwise a usage
// error naming the flag and the real reason (exit 2). The prompts come from the command's IO (io.ts):
// @inquirer/prompts, loaded only when a question is actually asked.
import { CliError, EXIT } from './errors.js';
import { canAsk, processIO, type CliIO } from './io.js';
import { amountRule, isAmount } from './amount.js';

export const interactive = (json = false, io: CliIO = processIO()) => canAsk(io, json);

export interface AskOptions {
  flag: string;
  message: string;
  kind?: 'text' | 'integer' | 'password' | 'amount';
  json?: boolean;
}

/** Why nothing can be asked: --json never prompts; otherwise there is no terminal. */
const whyNot = (json: boolean | undefined) => (json ? '--json never asks' : 'no terminal to ask on');

export async function ask(opts: AskOptions, io: CliIO = processIO()): Promise<string> {
  if (!canAsk(io, opts.json)) {
    throw new CliError(`Missing required flag --${opts.flag} (${whyNot(opts.json)}).`, EXIT.USAGE);
  }
  const prompts = await io.prompter();
  if (opts.kind === 'password') return prompts.password({ message: opts.message });
  const value = await prompts.input({
    message: opts.message,
    validate:
      opts.kind === 'integer'
        ? (v) => (/^\d+$/.test(v.trim()) ? true : 'a whole number, please')
        : opts.kind === 'amount'
          ? (v) => (isAmount(v) ? true : amountRule())
          : (v) => (v.trim() ? true : 'required'),
  });
  return value.trim();
}

export async function askInteger(opts: Omit<AskOptions, 'kind'>, io: CliIO = processIO()): Promise<number> {
  return Number(await ask({ ...opts, kind: 'integer' }, io));
}

/** Yes/no on a terminal; without one (or with --json), a refusal telling the user to pass --yes. */
export async function confirm(message: string, json = false, io: CliIO = processIO()): Promise<boolean> {
  if (!canAsk(io, json))
    throw new CliError(
      `${message} — refusing without confirmation: pass --yes to go ahead (${whyNot(json)}).`,
      EXIT.USAGE,
    );
  return (await io.prompter()).confirm({ message });
}

/** The stronger confirmation: the user types `expected` (used for live-key changes to ledger accounts). */
export async function confirmByTyping(
  message: string,
  expected: string,
  json = false,
  io: CliIO = processIO(),
): Promise<boolean> {
  if (!canAsk(io, json))
    throw new CliError(
      `${message} — refusing without confirmation: pass --yes to go ahead (${whyNot(json)}).`,
      EXIT.USAGE,
    );
  const matches = (value: string) => value.trim() === expected;
  return matches(await (await io.prompter()).typed({ message: `${message}\n  Type ${expected} to confirm:`, matches }));
}

/** "No" at a confirmation: nothing was changed; exit 2, as gh does. */
export const declined = (what?: string) =>
  new CliError(`Aborted${what ? ` (${what})` : ''}; nothing was changed.`, EXIT.USAGE, 'aborted');
