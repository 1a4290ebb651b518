import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { invoiceFields } from '../../lib/output/views/billing.js';

export default class InvoicesFinalize extends ApiCommand {
  static override summary = 'Finalize a draft invoice (draft → open; numbers it)';
  static override examples = ['<%= config.bin %> invoices finalize in_…'];
  static override args = { id: Args.string({ description: 'Invoice id', required: true }) };
  static override flags = { 'idempotency-key': idempotencyFlag, yes: yesFlag };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(InvoicesFinalize);
    const client = await this.client(flags);
    await this.confirmChange(`finalize invoice ${args.id}`, flags.yes);
    const inv = await client.invoices.finalize(args.id, { idempotencyKey: flags['idempotency-key'] });
    return this.detail(inv, 'Invoice finalized', invoiceFields);
  }
}
