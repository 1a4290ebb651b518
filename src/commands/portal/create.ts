import { Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { portalFields } from '../../lib/output/views/billing.js';

export default class PortalCreate extends ApiCommand {
  static override summary = "Create a link to a customer's self-service portal";
  static override examples = [
    '<%= config.bin %> portal create --customer cus_… --return-url https://example.com/account',
  ];
  static override flags = {
    customer: Flags.string({ description: 'Customer id' }),
    'return-url': Flags.string({ description: 'Where the portal sends the customer back to' }),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(PortalCreate);
    const customer = await this.need(flags.customer, { flag: 'customer', message: 'Customer id' });
    const client = await this.client(flags);
    await this.confirmChange(`create a portal session for ${customer}`, flags.yes);
    const p = await client.portalSessions.create(
      { customer, return_url: flags['return-url'] },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(p, 'Portal session created', portalFields);
  }
}
