import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { formatTime } from '../../lib/output/format.js';

export default class BankAccountsInitiateMicrodeposits extends ApiCommand {
  static override summary = 'Send the two micro-deposits to verify a bank account (test mode: 32 and 45 cents)';
  static override examples = ['<%= config.bin %> bank-accounts initiate-microdeposits ba_…'];
  static override args = { id: Args.string({ description: 'Bank account id (ba_…)', required: true }) };
  static override flags = { 'idempotency-key': idempotencyFlag, yes: yesFlag };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(BankAccountsInitiateMicrodeposits);
    const client = await this.client(flags);
    await this.confirmChange(`send micro-deposits to ${args.id}`, flags.yes);
    const r = await client.bankAccounts.initiateMicrodeposits(args.id, { idempotencyKey: flags['idempotency-key'] });
    return this.print(
      r,
      () =>
        `Micro-deposits ${r.status} for ${args.id}; verify before ${formatTime(r.expires_at)} with \`payorch bank-accounts verify ${args.id} --amounts A,B\`.`,
    );
  }
}
