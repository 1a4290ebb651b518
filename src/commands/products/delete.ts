import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';

export default class ProductsDelete extends ApiCommand {
  static override summary = 'Delete a product (one with prices is archived instead)';
  static override examples = ['<%= config.bin %> products delete prod_…'];
  static override args = { id: Args.string({ description: 'Product id', required: true }) };
  static override flags = { 'idempotency-key': idempotencyFlag, yes: yesFlag };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(ProductsDelete);
    const client = await this.client(flags);
    await this.confirmChange(`delete product ${args.id}`, flags.yes);
    const out = await client.products.del(args.id, { idempotencyKey: flags['idempotency-key'] });
    return this.print(out, () =>
      out.deleted ? `Deleted product ${out.id}.` : `Product ${out.id} has prices: archived it (active: false) instead.`,
    );
  }
}
