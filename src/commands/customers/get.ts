import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { customerFields } from '../../lib/output/views/billing.js';

export default class CustomersGet extends ApiCommand {
  static override summary = 'Show a customer';
  static override examples = ['<%= config.bin %> customers get cus_…', '<%= config.bin %> customers get cus_… --json'];
  static override args = { id: Args.string({ description: 'Customer id', required: true }) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(CustomersGet);
    const obj = await (await this.client(flags)).customers.retrieve(args.id);
    return this.detail(obj, 'Customer', customerFields);
  }
}
