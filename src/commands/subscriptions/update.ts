import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from '../../lib/cli/base.js';
import { parsePriceQuantity, prorationFlag } from '../../lib/cli/billing.js';
import { subscriptionFields } from '../../lib/output/views/billing.js';

export default class SubscriptionsUpdate extends ApiCommand {
  static override summary = 'Update a subscription (quantity, items, cancel at period end, coupon, payment method)';
  static override examples = [
    '<%= config.bin %> subscriptions update sub_… --quantity 3',
    '<%= config.bin %> subscriptions update sub_… --coupon co_… --proration-behavior none',
  ];
  static override args = { id: Args.string({ description: 'Subscription id', required: true }) };
  static override flags = {
    quantity: Flags.integer({ description: 'New quantity (subscriptions with one item)', min: 0 }),
    'add-price': Flags.string({
      description: 'Add an item: PRICE_ID or PRICE_ID:QUANTITY (repeatable)',
      multiple: true,
    }),
    'remove-item': Flags.string({ description: 'Remove this item id (repeatable)', multiple: true }),
    'cancel-at-period-end': Flags.boolean({
      description: 'End at period end (--no-cancel-at-period-end to keep going)',
      allowNo: true,
    }),
    coupon: Flags.string({ description: 'Apply this coupon ("" removes the discount)' }),
    'payment-method': Flags.string({ description: 'Default payment method for this subscription' }),
    'proration-behavior': prorationFlag,
    metadata: metadataFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(SubscriptionsUpdate);
    const items = [
      ...(flags['add-price'] ?? []).map((p) => parsePriceQuantity(p, 'add-price')),
      ...(flags['remove-item'] ?? []).map((id) => ({ id, deleted: true })),
    ];
    const client = await this.client(flags);
    await this.confirmChange(`update subscription ${args.id}`, flags.yes);
    const sub = await client.subscriptions.update(
      args.id,
      {
        quantity: flags.quantity,
        items: items.length ? items : undefined,
        cancel_at_period_end: flags['cancel-at-period-end'],
        coupon: flags.coupon,
        default_payment_method: flags['payment-method'],
        proration_behavior: flags['proration-behavior'],
        metadata: parseMetadata(flags.metadata),
      },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(sub, 'Subscription updated', subscriptionFields);
  }
}
