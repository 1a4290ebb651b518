import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../../lib/cli/base.js';
import { holdFields } from '../../../lib/output/views/ledger.js';
import { amountFlag } from '../../../lib/cli/amount.js';

export default class HoldsCapture extends ApiCommand {
  static override summary = 'Capture a hold into a destination account (posts the journal entry)';
  static override examples = [
    '<%= config.bin %> ledger holds capture hold_… --destination la_…',
    '<%= config.bin %> ledger holds capture hold_… --destination la_… --amount 500',
  ];
  static override args = { id: Args.string({ description: 'Hold id (hold_…)', required: true }) };
  static override flags = {
    destination: Flags.string({ description: 'Destination ledger account id' }),
    amount: amountFlag({ description: 'Capture less than the held amount (the rest is released)' }),
    description: Flags.string({ description: 'Description of the journal entry' }),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(HoldsCapture);
    const destination = await this.need(flags.destination, {
      flag: 'destination',
      message: 'Destination ledger account id',
    });
    const client = await this.client(flags);
    await this.confirmChange(`capture hold ${args.id} into ${destination}`, flags.yes);
    const hold = await client.holds.capture(
      args.id,
      { destination_account_id: destination, amount: flags.amount, description: flags.description },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(hold, 'Hold captured', holdFields);
  }
}
