import { Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { listFlags } from '../../lib/cli/list.js';
import { accountColumns } from '../../lib/output/views/ledger.js';

export default class LedgerList extends ApiCommand {
  static override summary = 'List ledger accounts, newest first';
  static override examples = [
    '<%= config.bin %> ledger list --status frozen',
    '<%= config.bin %> ledger list --customer cus_… --currency usd',
  ];
  static override flags = {
    ...listFlags,
    status: Flags.option({
      options: ['active', 'frozen', 'closed'] as const,
      description: 'Only accounts in this status',
    })(),
    customer: Flags.string({ description: 'Only accounts of this customer id' }),
    currency: Flags.string({ description: 'Only accounts in this currency' }),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(LedgerList);
    const client = await this.client(flags);
    const list = await this.listOf(
      flags,
      { status: flags.status, customer: flags.customer, currency: flags.currency },
      (p) => client.ledgerAccounts.list(p),
      (p) => client.ledgerAccounts.listAll(p),
    );
    return await this.table(list, accountColumns, 'No ledger accounts.');
  }
}
