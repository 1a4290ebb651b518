import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';

export default class BankAccountsDelete extends ApiCommand {
  static override summary = 'Delete a bank account';
  static override examples = ['<%= config.bin %> bank-accounts delete ba_…'];
  static override args = { id: Args.string({ description: 'Bank account id (ba_…)', required: true }) };
  static override flags = { 'idempotency-key': idempotencyFlag, yes: yesFlag };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(BankAccountsDelete);
    const client = await this.client(flags);
    await this.confirmChange(`delete bank account ${args.id}`, flags.yes);
    const r = await client.bankAccounts.delete(args.id, { idempotencyKey: flags['idempotency-key'] });
    return this.print(r, () => `Deleted bank account ${r.id}.`);
  }
}
