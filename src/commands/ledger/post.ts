import { Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from '../../lib/cli/base.js';
import { readJsonData } from '../../lib/cli/data.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { journalFields } from '../../lib/output/views/ledger.js';
import type { CreateJournalEntryBody, JournalLineInput } from '../../lib/contract/ledger.js';

function lines(values: string[] | undefined, direction: 'debit' | 'credit'): JournalLineInput[] {
  return (values ?? []).map((v) => {
    const m = /^([^=:\s]+)[=:](\d+)$/.exec(v.trim());
    if (!m) throw new CliError(`--${direction} takes ACCOUNT_ID=AMOUNT in minor units (got "${v}").`, EXIT.USAGE);
    return { account_id: m[1]!, direction, amount: Number(m[2]) };
  });
}

export default class LedgerPost extends ApiCommand {
  static override summary = 'Post a balanced journal entry';
  static override description =
    'Lines come from --debit/--credit ACCOUNT_ID=AMOUNT (repeatable), or the whole body from --data (inline JSON, @file or - for stdin).';
  static override examples = [
    '<%= config.bin %> ledger post --description "top-up" --debit la_cash=5000 --credit la_wallet=5000',
    '<%= config.bin %> ledger post --data @entry.json',
  ];
  static override flags = {
    debit: Flags.string({ description: 'A debit line: ACCOUNT_ID=AMOUNT (repeatable)', multiple: true }),
    credit: Flags.string({ description: 'A credit line: ACCOUNT_ID=AMOUNT (repeatable)', multiple: true }),
    description: Flags.string({ description: 'Description' }),
    data: Flags.string({
      char: 'd',
      description: 'The JSON body: inline, @file or - (stdin)',
      exclusive: ['debit', 'credit'],
    }),
    metadata: metadataFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(LedgerPost);
    let body: CreateJournalEntryBody;
    if (flags.data !== undefined) {
      body = readJsonData(flags.data) as CreateJournalEntryBody;
    } else {
      const entries = [...lines(flags.debit, 'debit'), ...lines(flags.credit, 'credit')];
      if (entries.length === 0)
        throw new CliError(
          'Give the lines with --debit/--credit ACCOUNT_ID=AMOUNT, or the body with --data.',
          EXIT.USAGE,
        );
      body = { description: flags.description, entries, metadata: parseMetadata(flags.metadata) };
    }
    const client = await this.client(flags);
    await this.confirmChange(`post a journal entry of ${(body.entries ?? []).length} lines`, flags.yes);
    const entry = await client.journalEntries.create(body, { idempotencyKey: flags['idempotency-key'] });
    return this.detail(entry, 'Journal entry posted', journalFields);
  }
}
