import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';

export default class CustomersDelete extends ApiCommand {
  static override summary = 'Delete a customer (refused while it has subscriptions that are not canceled)';
  static override examples = ['<%= config.bin %> customers delete cus_…'];
  static override args = { id: Args.string({ description: 'Customer id', required: true }) };
  static override flags = { 'idempotency-key': idempotencyFlag, yes: yesFlag };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(CustomersDelete);
    const client = await this.client(flags);
    await this.confirmChange(`delete customer ${args.id}`, flags.yes);
    const out = await client.customers.del(args.id, { idempotencyKey: flags['idempotency-key'] });
    return this.print(out, () => `Deleted customer ${out.id}.`);
  }
}
