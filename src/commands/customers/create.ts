import { Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from '../../lib/cli/base.js';
import { customerFields } from '../../lib/output/views/billing.js';

export default class CustomersCreate extends ApiCommand {
  static override summary = 'Create a customer';
  static override examples = ['<%= config.bin %> customers create --email jo@example.com --name Jo --payment-method tok_visa'];
  static override flags = {
    email: Flags.string({ description: 'Email' }),
    name: Flags.string({ description: 'Name' }),
    phone: Flags.string({ description: 'Phone' }),
    description: Flags.string({ description: 'Description' }),
    'payment-method': Flags.string({ description: 'Default payment method (a card token such as tok_visa)' }),
    metadata: metadataFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(CustomersCreate);
    const client = await this.client(flags);
    await this.confirmChange(`create customer ${flags.email ?? flags.name ?? ''}`, flags.yes);
    const c = await client.customers.create({ email: flags.email, name: flags.name, phone: flags.phone, description: flags.description, default_payment_method: flags['payment-method'], metadata: parseMetadata(flags.metadata) }, { idempotencyKey: flags['idempotency-key'] });
    this.detail(c, 'Customer created', customerFields);
  }
}
