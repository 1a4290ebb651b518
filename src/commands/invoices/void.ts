import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { invoiceFields } from '../../lib/output/views/billing.js';

export default class InvoicesVoid extends ApiCommand {
  static override summary = 'Void an invoice (open, past_due or uncollectible → void)';
  static override examples = ['<%= config.bin %> invoices void in_…'];
  static override args = { id: Args.string({ description: 'Invoice id', required: true }) };
  static override flags = { 'idempotency-key': idempotencyFlag, yes: yesFlag };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(InvoicesVoid);
    const client = await this.client(flags);
    await this.confirmChange(`void invoice ${args.id}`, flags.yes);
    const inv = await client.invoices.void(args.id, { idempotencyKey: flags['idempotency-key'] });
    return this.detail(inv, 'Invoice voided', invoiceFields);
  }
}
