import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from '../../lib/cli/base.js';
import { customerFields } from '../../lib/output/views/billing.js';

export default class CustomersUpdate extends ApiCommand {
  static override summary = 'Update a customer';
  static override args = { id: Args.string({ description: 'Customer id', required: true }) };
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
    const { args, flags } = await this.parse(CustomersUpdate);
    const client = await this.client(flags);
    await this.confirmChange(`update customer ${args.id}`, flags.yes);
    const c = await client.customers.update(args.id, { email: flags.email, name: flags.name, phone: flags.phone, description: flags.description, default_payment_method: flags['payment-method'], metadata: parseMetadata(flags.metadata) }, { idempotencyKey: flags['idempotency-key'] });
    this.detail(c, 'Customer updated', customerFields);
  }
}
