import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { prorationFlag } from '../../lib/cli/billing.js';
import { itemFields } from '../../lib/output/views/billing.js';

export default class SubscriptionItemsUpdate extends ApiCommand {
  static override summary = "Change a subscription item's quantity";
  static override examples = ['<%= config.bin %> subscription-items update si_… --quantity 5'];
  static override args = { id: Args.string({ description: 'Subscription item id', required: true }) };
  static override flags = {
    quantity: Flags.integer({ description: 'New quantity', min: 0 }),
    'proration-behavior': prorationFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(SubscriptionItemsUpdate);
    const quantity = await this.need(flags.quantity, { flag: 'quantity', message: 'New quantity', kind: 'integer' });
    const client = await this.client(flags);
    await this.confirmChange(`set quantity of ${args.id} to ${quantity}`, flags.yes);
    const item = await client.subscriptionItems.update(
      args.id,
      { quantity, proration_behavior: flags['proration-behavior'] },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(item, 'Subscription item updated', itemFields);
  }
}
