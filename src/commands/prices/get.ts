import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { priceFields } from '../../lib/output/views/billing.js';

export default class PricesGet extends ApiCommand {
  static override summary = 'Show a price';
  static override examples = ['<%= config.bin %> prices get price_…'];
  static override args = { id: Args.string({ description: 'Price id', required: true }) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(PricesGet);
    const obj = await (await this.client(flags)).prices.retrieve(args.id);
    return this.detail(obj, 'Price', priceFields);
  }
}
