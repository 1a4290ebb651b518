import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { subscriptionFields } from '../../lib/output/views/billing.js';

export default class SubscriptionsGet extends ApiCommand {
  static override summary = 'Show a subscription';
  static override examples = ['<%= config.bin %> subscriptions get sub_…'];
  static override args = { id: Args.string({ description: 'Subscription id', required: true }) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(SubscriptionsGet);
    const obj = await (await this.client(flags)).subscriptions.retrieve(args.id);
    return this.detail(obj, 'Subscription', subscriptionFields);
  }
}
