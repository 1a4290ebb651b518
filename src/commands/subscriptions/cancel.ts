import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { subscriptionFields } from '../../lib/output/views/billing.js';

export default class SubscriptionsCancel extends ApiCommand {
  static override summary = 'Cancel a subscription now, or at the end of its period';
  static override examples = [
    '<%= config.bin %> subscriptions cancel sub_…',
    '<%= config.bin %> subscriptions cancel sub_… --at-period-end',
  ];
  static override args = { id: Args.string({ description: 'Subscription id', required: true }) };
  static override flags = {
    'at-period-end': Flags.boolean({ description: 'Keep it until the current period ends' }),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(SubscriptionsCancel);
    const client = await this.client(flags);
    await this.confirmChange(
      `cancel subscription ${args.id}${flags['at-period-end'] ? ' at period end' : ' now'}`,
      flags.yes,
    );
    const sub = await client.subscriptions.cancel(
      args.id,
      { at_period_end: flags['at-period-end'] || undefined },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(
      sub,
      flags['at-period-end'] ? 'Subscription cancels at period end' : 'Subscription canceled',
      subscriptionFields,
    );
  }
}
