import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { invoiceFields } from '../../lib/output/views/billing.js';

export default class InvoicesGet extends ApiCommand {
  static override summary = 'Show an invoice';
  static override examples = ['<%= config.bin %> invoices get in_…'];
  static override args = { id: Args.string({ description: 'Invoice id', required: true }) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(InvoicesGet);
    const obj = await (await this.client(flags)).invoices.retrieve(args.id);
    return this.detail(obj, 'Invoice', invoiceFields);
  }
}
