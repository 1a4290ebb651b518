import { Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from '../../lib/cli/base.js';
import { productFields } from '../../lib/output/views/billing.js';

export default class ProductsCreate extends ApiCommand {
  static override summary = 'Create a product';
  static override examples = ['<%= config.bin %> products create --name "Pro plan"'];
  static override flags = {
    name: Flags.string({ description: 'Name' }),
    inactive: Flags.boolean({ description: 'Create it archived (active: false)' }),
    description: Flags.string({ description: 'Description' }),
    'unit-label': Flags.string({ description: 'Unit label (e.g. seat)' }),
    'statement-descriptor': Flags.string({ description: 'Statement descriptor (≤ 22 characters)' }),
    image: Flags.string({ description: 'Image URL (repeatable)', multiple: true }),
    metadata: metadataFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(ProductsCreate);
    const name = await this.need(flags.name, { flag: 'name', message: 'Product name' });
    const client = await this.client(flags);
    await this.confirmChange(`create product ${name}`, flags.yes);
    const p = await client.products.create(
      { name, active: flags.inactive ? false : undefined, description: flags.description, unit_label: flags['unit-label'], statement_descriptor: flags['statement-descriptor'], images: flags.image, metadata: parseMetadata(flags.metadata) },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(p, 'Product created', productFields);
  }
}
