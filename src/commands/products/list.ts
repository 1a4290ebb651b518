import { Flags } from '@oclif/core';
import { ApiCommand, listAll, listFlags } from '../../lib/cli/base.js';
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
    const params = { limit: flags.limit, starting_after: flags['starting-after'], ending_before: flags['ending-before'], active: flags.active };
    const list = flags.all ? await listAll(client.products.listAll(params), this.io, this.jsonMode) : await client.products.list(params);
    return await this.table(list, productColumns, 'No products.');
  }
}
