import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { listFlags } from '../../lib/cli/list.js';
import { entryColumns } from '../../lib/output/views/ledger.js';

export default class LedgerEntries extends ApiCommand {
  static override summary = "List a ledger account's entries with running balances, newest first";
  static override examples = ['<%= config.bin %> ledger entries la_… --limit 50'];
  static override args = { id: Args.string({ description: 'Ledger account id (la_…)', required: true }) };
  static override flags = { ...listFlags };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(LedgerEntries);
    const client = await this.client(flags);
    const list = await this.listOf(
      flags,
      {},
      (p) => client.ledgerAccounts.entries(args.id, p),
      (p) => client.ledgerAccounts.allEntries(args.id, p),
    );
    return await this.table(list, entryColumns, 'No entries.');
  }
}
