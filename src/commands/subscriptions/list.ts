import { Flags } from '@oclif/core';
import { ApiCommand, listAll, listFlags } from '../../lib/cli/base.js';
import { subscriptionColumns } from '../../lib/output/views/billing.js';

export default class SubscriptionsList extends ApiCommand {
  static override summary = 'List subscriptions, newest first';
  static override examples = ['<%= config.bin %> subscriptions list --customer cus_… --status past_due'];
  static override flags = {
    ...listFlags,
    customer: Flags.string({ description: 'Only subscriptions of this customer' }),
    status: Flags.string({ description: 'Only subscriptions in this status', options: ['trialing', 'active', 'past_due', 'paused', 'canceled', 'unpaid'] }),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(SubscriptionsList);
    const client = await this.client(flags);
    const params = { limit: flags.limit, starting_after: flags['starting-after'], ending_before: flags['ending-before'], customer: flags.customer, status: flags.status as 'active' | undefined };
    const list = flags.all ? await listAll(client.subscriptions.listAll(params), this.io, this.jsonMode) : await client.subscriptions.list(params);
    return await this.table(list, subscriptionColumns, 'No subscriptions.');
  }
}
