// Amounts on the command line: whole numbers of the currency's minor unit, as the API takes them. One wording for
// a flag's error, a prompt and the prompt's check, so that `19.99` is answered the same way wherever it is typed.
import { Flags } from '@oclif/core';
import { CliError, EXIT } from './errors.js';

export const MINOR_UNITS = 'minor units (1999 for 19.99)';

/** What an amount is, for a prompt's check and a flag's error: "a whole number of minor units (1999 for 19.99), 1 or more". */
export const amountRule = (min = 1) => `a whole number of ${MINOR_UNITS}, ${min} or more`;

/** Whether `input` is an amount: a whole number, at least `min`. */
export const isAmount = (input: string, min = 1) =>
  /^\d+$/.test(input.trim()) && Number.isSafeInteger(Number(input)) && Number(input) >= min;

/** An amount flag (`--amount 1999`): anything else, `19.99` included, is a usage error saying what it takes. */
export const amountFlag = (opts: { description: string; min?: number; exclusive?: string[] }) =>
  Flags.custom<number>({
    description: opts.description,
    exclusive: opts.exclusive,
    parse: async (input, _ctx, flag) => {
      if (isAmount(input, opts.min)) return Number(input.trim());
      throw new CliError(`--${flag.name} takes ${amountRule(opts.min)}; got "${input}".`, EXIT.USAGE);
    },
  })();
