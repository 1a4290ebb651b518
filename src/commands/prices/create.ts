import { Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from '../../lib/cli/base.js';
import { parseTier } from '../../lib/cli/billing.js';
import { priceFields } from '../../lib/output/views/billing.js';
import { amountFlag } from '../../lib/cli/amount.js';

export default class PricesCreate extends ApiCommand {
  static override summary = 'Create a price (per unit or tiered; one-time or recurring, licensed or metered)';
  static override examples = [
    '<%= config.bin %> prices create --product prod_123 --currency usd --unit-amount 2000 --interval month',
    '<%= config.bin %> prices create --product prod_123 --currency usd --interval month --usage-type metered --aggregate-usage max --unit-amount 3',
    '<%= config.bin %> prices create --product prod_123 --currency usd --interval month --tiers-mode graduated --tier 100:3 --tier inf:2:150',
  ];
  static override flags = {
    product: Flags.string({ description: 'Product id' }),
    'product-name': Flags.string({ description: 'Create a new product with this name instead of --product' }),
    currency: Flags.string({ description: 'Three-letter ISO currency code' }),
    'unit-amount': amountFlag({ description: 'Amount per unit in minor units (per-unit prices)', min: 0 }),
    interval: Flags.option({
      description: 'Bill every day, week, month or year (makes the price recurring)',
      options: ['day', 'week', 'month', 'year'] as const,
    })(),
    'interval-count': Flags.integer({ description: 'Number of intervals between bills (default 1)', min: 1 }),
    'usage-type': Flags.option({
      description: 'licensed (default) or metered',
      options: ['licensed', 'metered'] as const,
    })(),
    'aggregate-usage': Flags.option({
      description: 'How metered usage adds up (default sum)',
      options: ['sum', 'last_during_period', 'last_ever', 'max'] as const,
    })(),
    'tiers-mode': Flags.option({
      description: 'Tiered price: graduated or volume',
      options: ['graduated', 'volume'] as const,
    })(),
    tier: Flags.string({
      description: 'A tier UP_TO:UNIT_AMOUNT[:FLAT_AMOUNT] (repeatable; the last UP_TO is inf)',
      multiple: true,
    }),
    nickname: Flags.string({ description: 'Nickname' }),
    metadata: metadataFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(PricesCreate);
    const currency = await this.need(flags.currency, { flag: 'currency', message: 'Currency (e.g. usd)' });
    const tiered = flags['tiers-mode'] !== undefined || flags.tier !== undefined;
    const client = await this.client(flags);
    await this.confirmChange(`create a price for ${flags.product ?? flags['product-name'] ?? 'a product'}`, flags.yes);
    const price = await client.prices.create(
      {
        product: flags.product,
        product_data: flags['product-name'] ? { name: flags['product-name'] } : undefined,
        currency,
        unit_amount: flags['unit-amount'],
        billing_scheme: tiered ? 'tiered' : undefined,
        tiers_mode: flags['tiers-mode'],
        tiers: flags.tier?.map(parseTier),
        recurring: flags.interval
          ? {
              interval: flags.interval,
              interval_count: flags['interval-count'],
              usage_type: flags['usage-type'],
              aggregate_usage: flags['aggregate-usage'],
            }
          : undefined,
        nickname: flags.nickname,
        metadata: parseMetadata(flags.metadata),
      },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(price, 'Price created', priceFields);
  }
}
