import { Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from '../../lib/cli/base.js';
import { parseDate, parsePriceQuantity, collectionMethodFlag } from '../../lib/cli/billing.js';
import { subscriptionFields } from '../../lib/output/views/billing.js';

export default class SubscriptionsCreate extends ApiCommand {
  static override summary = 'Create a subscription (a trial, or the first invoice at once)';
  static override examples = [
    '<%= config.bin %> subscriptions create --customer cus_123 --price price_123:2 --trial-days 14',
    '<%= config.bin %> subscriptions create --customer cus_123 --price price_123 --collection-method send_invoice --days-until-due 30',
  ];
  static override flags = {
    customer: Flags.string({ description: 'Customer id' }),
    price: Flags.string({ description: 'PRICE_ID or PRICE_ID:QUANTITY (repeatable; at least one)', multiple: true }),
    'trial-days': Flags.integer({ description: 'Trial length in days', min: 1 }),
    'trial-end': Flags.string({ description: 'Trial end (date or Unix seconds)', exclusive: ['trial-days'] }),
    'billing-cycle-anchor': Flags.string({
      description: 'First full period starts here (date or Unix seconds); the time before it is prorated',
    }),
    coupon: Flags.string({ description: 'Coupon id' }),
    'collection-method': collectionMethodFlag,
    'days-until-due': Flags.integer({ description: 'Days to pay a send_invoice invoice', min: 0 }),
    'payment-method': Flags.string({ description: 'Default payment method for this subscription (e.g. tok_visa)' }),
    'cancel-at-period-end': Flags.boolean({ description: 'End it at the end of the first period' }),
    metadata: metadataFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(SubscriptionsCreate);
    const customer = await this.need(flags.customer, { flag: 'customer', message: 'Customer id' });
    const prices = flags.price ?? [
      await this.need<string>(undefined, { flag: 'price', message: 'Price id (PRICE or PRICE:QUANTITY)' }),
    ];
    const client = await this.client(flags);
    await this.confirmChange(`subscribe ${customer} to ${prices.join(', ')}`, flags.yes);
    const sub = await client.subscriptions.create(
      {
        customer,
        items: prices.map((p) => parsePriceQuantity(p, 'price')),
        trial_period_days: flags['trial-days'],
        trial_end: flags['trial-end'] !== undefined ? parseDate(flags['trial-end'], 'trial-end') : undefined,
        billing_cycle_anchor:
          flags['billing-cycle-anchor'] !== undefined
            ? parseDate(flags['billing-cycle-anchor'], 'billing-cycle-anchor')
            : undefined,
        coupon: flags.coupon,
        collection_method: flags['collection-method'],
        days_until_due: flags['days-until-due'],
        default_payment_method: flags['payment-method'],
        cancel_at_period_end: flags['cancel-at-period-end'] || undefined,
        metadata: parseMetadata(flags.metadata),
      },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(sub, 'Subscription created', subscriptionFields);
  }
}
