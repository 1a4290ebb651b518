import { Flags } from '@oclif/core';
import { prorationFlag } from '../../lib/cli/billing.js';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { itemFields } from '../../lib/output/views/billing.js';

export default class SubscriptionItemsCreate extends ApiCommand {
  static override summary = 'Add an item to a subscription';
  static override examples = [
    '<%= config.bin %> subscription-items create --subscription sub_… --price price_… --quantity 2',
  ];
  static override flags = {
    subscription: Flags.string({ description: 'Subscription id' }),
    price: Flags.string({ description: 'Price id' }),
    quantity: Flags.integer({ description: 'Quantity (default 1; not for metered prices)', min: 0 }),
    'proration-behavior': prorationFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(SubscriptionItemsCreate);
    const subscription = await this.need(flags.subscription, { flag: 'subscription', message: 'Subscription id' });
    const price = await this.need(flags.price, { flag: 'price', message: 'Price id' });
    const client = await this.client(flags);
    await this.confirmChange(`add ${price} to ${subscription}`, flags.yes);
    const item = await client.subscriptionItems.create(
      { subscription, price, quantity: flags.quantity, proration_behavior: flags['proration-behavior'] },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(item, 'Subscription item added', itemFields);
  }
}
