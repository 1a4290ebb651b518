import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { subscriptionFields } from '../../lib/output/views/billing.js';

export default class SubscriptionsPause extends ApiCommand {
  static override summary = 'Pause a subscription (no renewals while paused)';
  static override examples = ['<%= config.bin %> subscriptions pause sub_…'];
  static override args = { id: Args.string({ description: 'Subscription id', required: true }) };
  static override flags = { 'idempotency-key': idempotencyFlag, yes: yesFlag };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(SubscriptionsPause);
    const client = await this.client(flags);
    await this.confirmChange(`pause subscription ${args.id}`, flags.yes);
    const sub = await client.subscriptions.pause(args.id, { idempotencyKey: flags['idempotency-key'] });
    return this.detail(sub, 'Subscription paused', subscriptionFields);
  }
}
