import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { paymentFields } from '../../lib/output/views/payments.js';

export default class PaymentsGet extends ApiCommand {
  static override summary = 'Show a payment (with its processor attempts)';
  static override examples = ['<%= config.bin %> payments get 0190f3c2-…'];
  static override args = { id: Args.string({ description: 'Payment id (UUID)', required: true }) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(PaymentsGet);
    const payment = await (await this.client(flags)).payments.retrieve(args.id);
    return this.detail(payment, 'Payment', paymentFields);
  }
}
