import { Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { productDetailFlags, productDetails } from '../../lib/cli/products.js';
import { productFields } from '../../lib/output/views/billing.js';

export default class ProductsCreate extends ApiCommand {
  static override summary = 'Create a product';
  static override examples = ['<%= config.bin %> products create --name "Pro plan"'];
  static override flags = {
    name: Flags.string({ description: 'Name' }),
    inactive: Flags.boolean({ description: 'Create it archived (active: false)' }),
    ...productDetailFlags,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(ProductsCreate);
    const name = await this.need(flags.name, { flag: 'name', message: 'Product name' });
    const client = await this.client(flags);
    await this.confirmChange(`create product ${name}`, flags.yes);
    const p = await client.products.create(
      { name, active: flags.inactive ? false : undefined, ...productDetails(flags) },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(p, 'Product created', productFields);
  }
}
