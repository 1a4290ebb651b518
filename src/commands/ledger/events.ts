import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { cursor, cursorFlags } from '../../lib/cli/list.js';
import { eventColumns } from '../../lib/output/views/ledger.js';

export default class LedgerEvents extends ApiCommand {
  static override summary = "A ledger account's audit trail: created, frozen, unfrozen, closed — who, why, when";
  static override examples = ['<%= config.bin %> ledger events la_…'];
  static override args = { id: Args.string({ description: 'Ledger account id (la_…)', required: true }) };
  static override flags = { limit: cursorFlags.limit, 'starting-after': cursorFlags['starting-after'] };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(LedgerEvents);
    const list = await (await this.client(flags)).ledgerAccounts.events(args.id, cursor(flags));
    return await this.table(list, eventColumns, 'No events.');
  }
}
