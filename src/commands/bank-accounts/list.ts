import { Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { listFlags } from '../../lib/cli/list.js';
import { bankAccountColumns } from '../../lib/output/views/payments.js';

export default class BankAccountsList extends ApiCommand {
  static override summary = 'List bank accounts, newest first';
  static override examples = ['<%= config.bin %> bank-accounts list --customer cus_… --status verified'];
  static override flags = {
    ...listFlags,
    customer: Flags.string({ description: 'Only this customer’s accounts' }),
    status: Flags.option({
      options: ['unverified', 'pending', 'verified', 'failed'] as const,
      description: 'Only accounts with this verification status',
    })(),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(BankAccountsList);
    const client = await this.client(flags);
    const list = await this.listOf(
      flags,
      { customer_id: flags.customer, verification_status: flags.status },
      (p) => client.bankAccounts.list(p),
      (p) => client.bankAccounts.listAll(p),
    );
    return await this.table(list, bankAccountColumns, 'No bank accounts.');
  }
}
