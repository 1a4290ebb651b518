import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from '../../../lib/cli/base.js';
import { holdFields } from '../../../lib/output/views/ledger.js';
import { amountFlag, MINOR_UNITS } from '../../../lib/cli/amount.js';

export default class HoldsCreate extends ApiCommand {
  static override summary = 'Place a hold on a ledger account';
  static override examples = ['<%= config.bin %> ledger holds create la_… --amount 2000 --description "pending auth"'];
  static override args = { account: Args.string({ description: 'Ledger account id (la_…)', required: true }) };
  static override flags = {
    amount: amountFlag({ description: 'Amount in minor units' }),
    description: Flags.string({ description: 'Description' }),
    'expires-at': Flags.string({ description: 'ISO 8601 date-time (default: 7 days)' }),
    metadata: metadataFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(HoldsCreate);
    const amount = await this.need(flags.amount, {
      flag: 'amount',
      message: `Amount in ${MINOR_UNITS}`,
      kind: 'amount',
    });
    const client = await this.client(flags);
    await this.confirmChange(`hold ${amount} on ledger account ${args.account}`, flags.yes);
    const hold = await client.ledgerAccounts.createHold(
      args.account,
      {
        amount,
        description: flags.description,
        expires_at: flags['expires-at'],
        metadata: parseMetadata(flags.metadata),
      },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(hold, 'Hold placed', holdFields);
  }
}
