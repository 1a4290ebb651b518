import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { paymentFields } from '../../lib/output/views/payments.js';
import { amountFlag } from '../../lib/cli/amount.js';

export default class PaymentsCapture extends ApiCommand {
  static override summary = 'Capture an authorized payment (all of it, or --amount)';
  static override examples = [
    '<%= config.bin %> payments capture 0190f3c2-…',
    '<%= config.bin %> payments capture 0190f3c2-… --amount 500',
  ];
  static override args = { id: Args.string({ description: 'Payment id (UUID)', required: true }) };
  static override flags = {
    amount: amountFlag({ description: 'Amount to capture in minor units (default: the whole authorization)' }),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(PaymentsCapture);
    const client = await this.client(flags);
    await this.confirmChange(`capture payment ${args.id}${flags.amount ? ` (${flags.amount})` : ''}`, flags.yes);
    const payment = await client.payments.capture(
      args.id,
      { amount: flags.amount },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(payment, 'Payment captured', paymentFields);
  }
}
