import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { prorationFlag } from '../../lib/cli/billing.js';

export default class SubscriptionItemsDelete extends ApiCommand {
  static override summary = 'Remove an item from its subscription (not the last one)';
  static override examples = ['<%= config.bin %> subscription-items delete si_… --proration-behavior none'];
  static override args = { id: Args.string({ description: 'Subscription item id', required: true }) };
  static override flags = {
    'proration-behavior': prorationFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(SubscriptionItemsDelete);
    const client = await this.client(flags);
    await this.confirmChange(`remove subscription item ${args.id}`, flags.yes);
    const out = await client.subscriptionItems.del(
      args.id,
      { proration_behavior: flags['proration-behavior'] },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.print(out, () => `Removed subscription item ${out.id}.`);
  }
}
