import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { customerFlags, customerParams } from '../../lib/cli/billing.js';
import { customerFields } from '../../lib/output/views/billing.js';

export default class CustomersCreate extends ApiCommand {
  static override summary = 'Create a customer';
  static override examples = [
    '<%= config.bin %> customers create --email jo@example.com --name Jo --payment-method tok_visa',
  ];
  static override flags = {
    ...customerFlags,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(CustomersCreate);
    const client = await this.client(flags);
    await this.confirmChange(`create customer ${flags.email ?? flags.name ?? ''}`, flags.yes);
    const c = await client.customers.create(customerParams(flags), { idempotencyKey: flags['idempotency-key'] });
    return this.detail(c, 'Customer created', customerFields);
  }
}
