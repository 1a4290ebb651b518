import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { itemFields } from '../../lib/output/views/billing.js';

export default class SubscriptionItemsGet extends ApiCommand {
  static override summary = 'Show a subscription item';
  static override examples = ['<%= config.bin %> subscription-items get si_…'];
  static override args = { id: Args.string({ description: 'Subscription item id', required: true }) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(SubscriptionItemsGet);
    const obj = await (await this.client(flags)).subscriptionItems.retrieve(args.id);
    return this.detail(obj, 'Subscription item', itemFields);
  }
}
