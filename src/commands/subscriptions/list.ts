import { Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { listFlags } from '../../lib/cli/list.js';
import { subscriptionColumns } from '../../lib/output/views/billing.js';

export default class SubscriptionsList extends ApiCommand {
  static override summary = 'List subscriptions, newest first';
  static override examples = ['<%= config.bin %> subscriptions list --customer cus_… --status past_due'];
  static override flags = {
    ...listFlags,
    customer: Flags.string({ description: 'Only subscriptions of this customer' }),
    status: Flags.option({
      description: 'Only subscriptions in this status',
      options: ['trialing', 'active', 'past_due', 'paused', 'canceled', 'unpaid'] as const,
    })(),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(SubscriptionsList);
    const client = await this.client(flags);
    const list = await this.listOf(
      flags,
      { customer: flags.customer, status: flags.status },
      (p) => client.subscriptions.list(p),
      (p) => client.subscriptions.listAll(p),
    );
    return await this.table(list, subscriptionColumns, 'No subscriptions.');
  }
}
