import { Flags } from '@oclif/core';
import { ApiCommand, listAll, listFlags } from '../../lib/cli/base.js';
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
    const params = { limit: flags.limit, starting_after: flags['starting-after'], ending_before: flags['ending-before'], subscription: flags.subscription };
    const list = flags.all ? await listAll(client.subscriptionItems.listAll(params), this.io, this.jsonMode) : await client.subscriptionItems.list(params);
    return await this.table(list, itemColumns, 'No items.');
  }
}
