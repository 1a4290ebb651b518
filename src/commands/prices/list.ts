import { Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { listFlags } from '../../lib/cli/list.js';
import { priceColumns } from '../../lib/output/views/billing.js';

export default class PricesList extends ApiCommand {
  static override summary = 'List prices, newest first';
  static override examples = ['<%= config.bin %> prices list --product prod_… --type recurring'];
  static override flags = {
    ...listFlags,
    type: Flags.option({
      description: 'Only one_time or recurring prices',
      options: ['one_time', 'recurring'] as const,
    })(),
    product: Flags.string({ description: 'Only prices of this product' }),
    active: Flags.boolean({ description: 'Only active (--active) or inactive (--no-active) prices', allowNo: true }),
    currency: Flags.string({ description: 'Only prices in this currency' }),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(PricesList);
    const client = await this.client(flags);
    const list = await this.listOf(
      flags,
      { type: flags.type, product: flags.product, active: flags.active, currency: flags.currency },
      (p) => client.prices.list(p),
      (p) => client.prices.listAll(p),
    );
    return await this.table(list, priceColumns, 'No prices.');
  }
}
