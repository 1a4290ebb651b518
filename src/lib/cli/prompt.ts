// Asking for what is missing: only when stdin and stdout are terminals (and not --json); otherwise a usage
// error naming the flag (exit 2). @inquirer/prompts is loaded only when a prompt is actually shown.
import { CliError, EXIT } from './errors.js';

export const interactive = (json = false) => !json && Boolean(process.stdin.isTTY && process.stdout.isTTY);

export interface AskOptions {
  flag: string;
  message: string;
  kind?: 'text' | 'integer' | 'password';
  json?: boolean;
}

export async function ask(opts: AskOptions): Promise<string> {
  if (!interactive(opts.json)) {
    throw new CliError(`Missing required flag --${opts.flag} (no terminal to ask on).`, EXIT.USAGE);
  }
  const prompts = await import('@inquirer/prompts');
  if (opts.kind === 'password') {
    return prompts.password({ message: opts.message, mask: '•', validate: (v) => (v.trim() ? true : 'required') });
  }
  const value = await prompts.input({
    message: opts.message,
    required: true,
    validate: opts.kind === 'integer' ? (v) => (/^\d+$/.test(v.trim()) ? true : 'a whole number, please') : undefined,
  });
  return value.trim();
}

export async function askInteger(opts: Omit<AskOptions, 'kind'>): Promise<number> {
  return Number(await ask({ ...opts, kind: 'integer' }));
}

/** Yes/no on a terminal; without one, a refusal telling the user to pass --yes. */
export async function confirm(message: string, json = false): Promise<boolean> {
  if (!interactive(json)) throw new CliError(`${message} — refusing without confirmation: pass --yes to go ahead (no terminal to ask on).`, EXIT.USAGE);
  const prompts = await import('@inquirer/prompts');
  return prompts.confirm({ message, default: false });
}

/** The stronger confirmation: the user types `expected` (used for live-key changes to ledger accounts). */
export async function confirmByTyping(message: string, expected: string, json = false): Promise<boolean> {
  if (!interactive(json)) throw new CliError(`${message} — refusing without confirmation: pass --yes to go ahead (no terminal to ask on).`, EXIT.USAGE);
  const prompts = await import('@inquirer/prompts');
  const typed = await prompts.input({ message: `${message}\n  Type ${expected} to confirm:` });
  return typed.trim() === expected;
}
