import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { paymentFields } from '../../lib/output/views/payments.js';
import { amountFlag } from '../../lib/cli/amount.js';

export default class PaymentsRefund extends ApiCommand {
  static override summary = 'Refund a captured payment (the rest of it, or --amount)';
  static override examples = [
    '<%= config.bin %> payments refund 0190f3c2-…',
    '<%= config.bin %> payments refund 0190f3c2-… --amount 250 --reason requested_by_customer',
  ];
  static override args = { id: Args.string({ description: 'Payment id (UUID)', required: true }) };
  static override flags = {
    amount: amountFlag({ description: 'Amount to refund in minor units (default: everything not yet refunded)' }),
    reason: Flags.option({
      options: ['duplicate', 'fraudulent', 'requested_by_customer'] as const,
      description: 'Reason',
    })(),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(PaymentsRefund);
    const client = await this.client(flags);
    await this.confirmChange(`refund payment ${args.id}${flags.amount ? ` (${flags.amount})` : ''}`, flags.yes);
    const payment = await client.payments.refund(
      args.id,
      { amount: flags.amount, reason: flags.reason },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(payment, 'Payment refunded', paymentFields);
  }
}
