import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { invoiceFields } from '../../lib/output/views/billing.js';

export default class InvoicesPay extends ApiCommand {
  static override summary = 'Pay an invoice (charges the payment method, or records payment out of band)';
  static override examples = [
    '<%= config.bin %> invoices pay in_…',
    '<%= config.bin %> invoices pay in_… --out-of-band',
  ];
  static override args = { id: Args.string({ description: 'Invoice id', required: true }) };
  static override flags = {
    'payment-method': Flags.string({
      description: "Charge this payment method instead of the customer's default (e.g. tok_visa)",
    }),
    'out-of-band': Flags.boolean({
      description: 'Mark it paid without a charge (paid elsewhere)',
      exclusive: ['payment-method'],
    }),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(InvoicesPay);
    const client = await this.client(flags);
    await this.confirmChange(`pay invoice ${args.id}`, flags.yes);
    const inv = await client.invoices.pay(
      args.id,
      { payment_method: flags['payment-method'], paid_out_of_band: flags['out-of-band'] || undefined },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(inv, 'Invoice paid', invoiceFields);
  }
}
