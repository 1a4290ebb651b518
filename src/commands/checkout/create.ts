import { Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from '../../lib/cli/base.js';
import { parsePriceQuantity } from '../../lib/cli/billing.js';
import { checkoutFields } from '../../lib/output/views/billing.js';

export default class CheckoutCreate extends ApiCommand {
  static override summary = 'Create a checkout session (one-time payment or subscription)';
  static override examples = [
    '<%= config.bin %> checkout create --mode payment --price price_123:2 --customer-email jo@example.com',
    '<%= config.bin %> checkout create --mode subscription --price price_456 --customer cus_123 --trial-days 7',
  ];
  static override flags = {
    mode: Flags.option({ description: 'payment or subscription', options: ['payment', 'subscription'] as const })(),
    price: Flags.string({ description: 'PRICE_ID or PRICE_ID:QUANTITY (repeatable)', multiple: true }),
    customer: Flags.string({ description: 'Existing customer id' }),
    'customer-email': Flags.string({ description: 'Customer email' }),
    'success-url': Flags.string({ description: 'Where to send the customer after paying' }),
    'cancel-url': Flags.string({ description: 'Where to send the customer on cancel' }),
    'trial-days': Flags.integer({ description: 'Trial days (subscription mode)', min: 1 }),
    metadata: metadataFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(CheckoutCreate);
    const mode = await this.need(flags.mode, { flag: 'mode', message: 'Mode (payment or subscription)' });
    const prices = flags.price ?? [
      await this.need<string>(undefined, { flag: 'price', message: 'Price id (PRICE or PRICE:QUANTITY)' }),
    ];
    const client = await this.client(flags);
    await this.confirmChange(`create a ${mode} checkout session`, flags.yes);
    const c = await client.checkoutSessions.create(
      {
        mode: mode,
        line_items: prices.map((p) => parsePriceQuantity(p, 'price')),
        customer: flags.customer,
        customer_email: flags['customer-email'],
        success_url: flags['success-url'],
        cancel_url: flags['cancel-url'],
        trial_period_days: flags['trial-days'],
        metadata: parseMetadata(flags.metadata),
      },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(c, 'Checkout session created', checkoutFields);
  }
}
