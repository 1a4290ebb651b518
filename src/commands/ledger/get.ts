import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { accountSummary } from '../../lib/output/views/ledger.js';

export default class LedgerGet extends ApiCommand {
  static override summary =
    'Show a ledger account: balances, active holds, recent entries and, when frozen, who froze it, why and when';
  static override examples = ['<%= config.bin %> ledger get la_…', '<%= config.bin %> ledger get la_… --json'];
  static override args = { id: Args.string({ description: 'Ledger account id (la_…)', required: true }) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(LedgerGet);
    const account = await (await this.client(flags)).ledgerAccounts.retrieve(args.id);
    return await this.print(account, () => accountSummary(account));
  }
}
