import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { productDetailFlags, productDetails } from '../../lib/cli/products.js';
import { productFields } from '../../lib/output/views/billing.js';

export default class ProductsUpdate extends ApiCommand {
  static override summary = 'Update a product';
  static override examples = ['<%= config.bin %> products update prod_… --name "Pro plan" --unit-label seat'];
  static override args = { id: Args.string({ description: 'Product id', required: true }) };
  static override flags = {
    name: Flags.string({ description: 'Name' }),
    active: Flags.boolean({
      description: 'Activate (--active) or archive (--no-active); sent as is_active',
      allowNo: true,
    }),
    'default-price': Flags.string({ description: 'Default price id' }),
    ...productDetailFlags,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(ProductsUpdate);
    const client = await this.client(flags);
    await this.confirmChange(`update product ${args.id}`, flags.yes);
    const p = await client.products.update(
      args.id,
      { name: flags.name, is_active: flags.active, default_price: flags['default-price'], ...productDetails(flags) },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(p, 'Product updated', productFields);
  }
}
