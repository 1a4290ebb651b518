import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { subscriptionFields } from '../../lib/output/views/billing.js';

export default class SubscriptionsResume extends ApiCommand {
  static override summary = 'Resume a paused subscription (a new period and invoice start now)';
  static override examples = ['<%= config.bin %> subscriptions resume sub_…'];
  static override args = { id: Args.string({ description: 'Subscription id', required: true }) };
  static override flags = { 'idempotency-key': idempotencyFlag, yes: yesFlag };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(SubscriptionsResume);
    const client = await this.client(flags);
    await this.confirmChange(`resume subscription ${args.id}`, flags.yes);
    const sub = await client.subscriptions.resume(args.id, { idempotencyKey: flags['idempotency-key'] });
    return this.detail(sub, 'Subscription resumed', subscriptionFields);
  }
}
