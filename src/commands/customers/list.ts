import { Flags } from '@oclif/core';
import { ApiCommand, listAll, listFlags } from '../../lib/cli/base.js';
import { customerColumns } from '../../lib/output/views/billing.js';

export default class CustomersList extends ApiCommand {
  static override summary = 'List customers, newest first';
  static override examples = ['<%= config.bin %> customers list --email jenny@example.com', '<%= config.bin %> customers list --all --json'];
  static override flags = {
    ...listFlags,
    email: Flags.string({ description: 'Only customers with this email' }),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(CustomersList);
    const client = await this.client(flags);
    const params = { limit: flags.limit, starting_after: flags['starting-after'], ending_before: flags['ending-before'], email: flags.email };
    const list = flags.all ? await listAll(client.customers.listAll(params), this.io, this.jsonMode) : await client.customers.list(params);
    return await this.table(list, customerColumns, 'No customers.');
  }
}
