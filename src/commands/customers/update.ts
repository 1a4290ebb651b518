import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { customerFlags, customerParams } from '../../lib/cli/billing.js';
import { customerFields } from '../../lib/output/views/billing.js';

export default class CustomersUpdate extends ApiCommand {
  static override summary = 'Update a customer';
  static override examples = ['<%= config.bin %> customers update cus_… --name "Jenny Rosen" --metadata tier=gold'];
  static override args = { id: Args.string({ description: 'Customer id', required: true }) };
  static override flags = {
    ...customerFlags,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(CustomersUpdate);
    const client = await this.client(flags);
    await this.confirmChange(`update customer ${args.id}`, flags.yes);
    const c = await client.customers.update(args.id, customerParams(flags), {
      idempotencyKey: flags['idempotency-key'],
    });
    return this.detail(c, 'Customer updated', customerFields);
  }
}
