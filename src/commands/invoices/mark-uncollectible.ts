import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { invoiceFields } from '../../lib/output/views/billing.js';

export default class InvoicesMarkUncollectible extends ApiCommand {
  static override summary = 'Mark an invoice uncollectible (open or past_due → uncollectible)';
  static override examples = ['<%= config.bin %> invoices mark-uncollectible in_…'];
  static override args = { id: Args.string({ description: 'Invoice id', required: true }) };
  static override flags = { 'idempotency-key': idempotencyFlag, yes: yesFlag };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(InvoicesMarkUncollectible);
    const client = await this.client(flags);
    await this.confirmChange(`mark uncollectible invoice ${args.id}`, flags.yes);
    const inv = await client.invoices.markUncollectible(args.id, { idempotencyKey: flags['idempotency-key'] });
    return this.detail(inv, 'Invoice marked uncollectible', invoiceFields);
  }
}
