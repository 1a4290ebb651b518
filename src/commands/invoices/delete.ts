import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';

export default class InvoicesDelete extends ApiCommand {
  static override summary = 'Delete an invoice (drafts only)';
  static override examples = ['<%= config.bin %> invoices delete in_…  # drafts only'];
  static override args = { id: Args.string({ description: 'Invoice id', required: true }) };
  static override flags = { 'idempotency-key': idempotencyFlag, yes: yesFlag };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(InvoicesDelete);
    const client = await this.client(flags);
    await this.confirmChange(`delete invoice ${args.id}`, flags.yes);
    const out = await client.invoices.del(args.id, { idempotencyKey: flags['idempotency-key'] });
    return this.print(out, () => `Deleted invoice ${out.id}.`);
  }
}
