import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { productFields } from '../../lib/output/views/billing.js';

export default class ProductsGet extends ApiCommand {
  static override summary = 'Show a product';
  static override examples = ['<%= config.bin %> products get prod_… --expand-prices'];
  static override args = { id: Args.string({ description: 'Product id', required: true }) };
  static override flags = {
    'expand-prices': Flags.boolean({ description: "Include the product's prices (expand[]=prices)" }),
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(ProductsGet);
    const p = await (await this.client(flags)).products.retrieve(args.id, { expandPrices: flags['expand-prices'] });
    return this.detail(p, 'Product', productFields);
  }
}
