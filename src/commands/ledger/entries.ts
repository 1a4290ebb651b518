import { Args } from '@oclif/core';
import { ApiCommand, listFlags, listAll } from '../../lib/cli/base.js';
import { entryColumns } from '../../lib/output/views/ledger.js';

export default class LedgerEntries extends ApiCommand {
  static override summary = "List a ledger account's entries with running balances, newest first";
  static override examples = ['<%= config.bin %> ledger entries la_… --limit 50'];
  static override args = { id: Args.string({ description: 'Ledger account id (la_…)', required: true }) };
  static override flags = { ...listFlags };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(LedgerEntries);
    const client = await this.client(flags);
    const params = { limit: flags.limit, starting_after: flags['starting-after'], ending_before: flags['ending-before'] };
    const list = flags.all ? await listAll(client.ledgerAccounts.allEntries(args.id, params), this.io, this.jsonMode) : await client.ledgerAccounts.entries(args.id, params);
    return await this.table(list, entryColumns, 'No entries.');
  }
}
