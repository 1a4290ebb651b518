import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../../lib/cli/base.js';
import { holdFields } from '../../../lib/output/views/ledger.js';

export default class HoldsRelease extends ApiCommand {
  static override summary = 'Release a hold';
  static override examples = ['<%= config.bin %> ledger holds release hold_…'];
  static override args = { id: Args.string({ description: 'Hold id (hold_…)', required: true }) };
  static override flags = { 'idempotency-key': idempotencyFlag, yes: yesFlag };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(HoldsRelease);
    const client = await this.client(flags);
    await this.confirmChange(`release hold ${args.id}`, flags.yes);
    const hold = await client.holds.release(args.id, { idempotencyKey: flags['idempotency-key'] });
    return this.detail(hold, 'Hold released', holdFields);
  }
}
