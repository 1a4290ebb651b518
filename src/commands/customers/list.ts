import { Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { listFlags } from '../../lib/cli/list.js';
import { customerColumns } from '../../lib/output/views/billing.js';

export default class CustomersList extends ApiCommand {
  static override summary = 'List customers, newest first';
  static override examples = [
    '<%= config.bin %> customers list --email jenny@example.com',
    '<%= config.bin %> customers list --all --json',
  ];
  static override flags = {
    ...listFlags,
    email: Flags.string({ description: 'Only customers with this email' }),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(CustomersList);
    const client = await this.client(flags);
    const list = await this.listOf(
      flags,
      { email: flags.email },
      (p) => client.customers.list(p),
      (p) => client.customers.listAll(p),
    );
    return await this.table(list, customerColumns, 'No customers.');
  }
}
