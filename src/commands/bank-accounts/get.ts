import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { bankAccountFields } from '../../lib/output/views/payments.js';

export default class BankAccountsGet extends ApiCommand {
  static override summary = 'Show a bank account';
  static override examples = ['<%= config.bin %> bank-accounts get ba_…'];
  static override args = { id: Args.string({ description: 'Bank account id (ba_…)', required: true }) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(BankAccountsGet);
    return this.detail(
      await (await this.client(flags)).bankAccounts.retrieve(args.id),
      'Bank account',
      bankAccountFields,
    );
  }
}
