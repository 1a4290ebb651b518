import { Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from '../../lib/cli/base.js';
import { parseDate } from '../../lib/cli/billing.js';
import { couponFields } from '../../lib/output/views/billing.js';
import { amountFlag } from '../../lib/cli/amount.js';

export default class CouponsCreate extends ApiCommand {
  static override summary = 'Create a coupon (percent or amount off; once, repeating or forever)';
  static override examples = [
    '<%= config.bin %> coupons create --percent-off 25 --duration repeating --duration-in-months 3',
    '<%= config.bin %> coupons create --id SAVE5 --amount-off 500 --currency usd --duration forever',
  ];
  static override flags = {
    id: Flags.string({ description: 'Your own id for the coupon (letters, digits, _ and -)' }),
    name: Flags.string({ description: 'Name shown on invoices' }),
    'percent-off': Flags.integer({ description: 'Percent off (1–100)', exclusive: ['amount-off'] }),
    'amount-off': amountFlag({
      description: 'Amount off in minor units (needs --currency)',
      exclusive: ['percent-off'],
    }),
    currency: Flags.string({ description: 'Currency of --amount-off' }),
    duration: Flags.option({
      description: 'once (default), repeating or forever',
      options: ['once', 'repeating', 'forever'] as const,
    })(),
    'duration-in-months': Flags.integer({ description: 'Months a repeating coupon lasts', min: 1 }),
    'max-redemptions': Flags.integer({ description: 'How many times it can be redeemed', min: 1 }),
    'redeem-by': Flags.string({ description: 'Last date it can be redeemed (2027-01-31 or Unix seconds)' }),
    'applies-to-product': Flags.string({ description: 'Only discount this product (repeatable)', multiple: true }),
    metadata: metadataFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(CouponsCreate);
    const client = await this.client(flags);
    await this.confirmChange('create a coupon', flags.yes);
    const c = await client.coupons.create(
      {
        id: flags.id,
        name: flags.name,
        percent_off: flags['percent-off'],
        amount_off: flags['amount-off'],
        currency: flags.currency,
        duration: flags.duration,
        duration_in_months: flags['duration-in-months'],
        max_redemptions: flags['max-redemptions'],
        redeem_by: flags['redeem-by'] !== undefined ? parseDate(flags['redeem-by'], 'redeem-by') : undefined,
        applies_to: flags['applies-to-product'] ? { products: flags['applies-to-product'] } : undefined,
        metadata: parseMetadata(flags.metadata),
      },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(c, 'Coupon created', couponFields);
  }
}
