import { Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { listFlags } from '../../lib/cli/list.js';
import { itemColumns } from '../../lib/output/views/billing.js';

export default class SubscriptionItemsList extends ApiCommand {
  static override summary = 'List the items of a subscription, newest first';
  static override examples = ['<%= config.bin %> subscription-items list --subscription sub_…'];
  static override flags = {
    ...listFlags,
    subscription: Flags.string({ description: 'Subscription id', required: true }),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(SubscriptionItemsList);
    const client = await this.client(flags);
    const list = await this.listOf(
      flags,
      { subscription: flags.subscription },
      (p) => client.subscriptionItems.list(p),
      (p) => client.subscriptionItems.listAll(p),
    );
    return await this.table(list, itemColumns, 'No items.');
  }
}
