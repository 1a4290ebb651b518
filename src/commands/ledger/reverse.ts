import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { journalFields } from '../../lib/output/views/ledger.js';

export default class LedgerReverse extends ApiCommand {
  static override summary = 'Reverse a journal entry (posts a new, opposite entry; the original stays)';
  static override examples = ['<%= config.bin %> ledger reverse je_… --description "posted twice"'];
  static override args = { id: Args.string({ description: 'Journal entry id (je_…)', required: true }) };
  static override flags = {
    description: Flags.string({ description: 'Description of the reversal' }),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(LedgerReverse);
    const client = await this.client(flags);
    await this.confirmChange(`reverse journal entry ${args.id}`, flags.yes);
    const entry = await client.journalEntries.reverse(
      args.id,
      { description: flags.description },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(entry, 'Reversal posted', journalFields);
  }
}
