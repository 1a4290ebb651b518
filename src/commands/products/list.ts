import { Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { listFlags } from '../../lib/cli/list.js';
import { productColumns } from '../../lib/output/views/billing.js';

export default class ProductsList extends ApiCommand {
  static override summary = 'List products, newest first';
  static override examples = ['<%= config.bin %> products list --active'];
  static override flags = {
    ...listFlags,
    active: Flags.boolean({ description: 'Only active (--active) or archived (--no-active) products', allowNo: true }),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(ProductsList);
    const client = await this.client(flags);
    const list = await this.listOf(
      flags,
      { active: flags.active },
      (p) => client.products.list(p),
      (p) => client.products.listAll(p),
    );
    return await this.table(list, productColumns, 'No products.');
  }
}
