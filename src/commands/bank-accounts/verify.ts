import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';

export default class BankAccountsVerify extends ApiCommand {
  static override summary = 'Verify a bank account with the two micro-deposit amounts (cents)';
  static override examples = ['<%= config.bin %> bank-accounts verify ba_… --amounts 32,45'];
  static override args = { id: Args.string({ description: 'Bank account id (ba_…)', required: true }) };
  static override flags = {
    amounts: Flags.string({ description: 'The two amounts in cents, comma-separated', required: true }),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(BankAccountsVerify);
    const amounts = flags.amounts.split(',').map((a) => a.trim());
    if (amounts.length !== 2 || !amounts.every((a) => /^\d+$/.test(a)))
      throw new CliError('--amounts takes two whole numbers of cents, e.g. 32,45.', EXIT.USAGE);
    const client = await this.client(flags);
    await this.confirmChange(`verify bank account ${args.id}`, flags.yes);
    const r = await client.bankAccounts.verify(args.id, amounts.map(Number), {
      idempotencyKey: flags['idempotency-key'],
    });
    await this.print(r, () =>
      r.verified
        ? `Bank account ${args.id} verified.`
        : `Wrong amounts: ${r.attempts_remaining} attempt${r.attempts_remaining === 1 ? '' : 's'} left (status ${r.verification_status}).`,
    );
    if (!r.verified) this.io.setExitCode(EXIT.API);
    return r;
  }
}
