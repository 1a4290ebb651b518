import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { checkoutFields } from '../../lib/output/views/billing.js';

export default class CheckoutComplete extends ApiCommand {
  static override summary =
    'Complete a subscription checkout session with a payment method (what the hosted page does)';
  static override examples = ['<%= config.bin %> checkout complete cks_… --payment-method tok_visa'];
  static override args = { id: Args.string({ description: 'Checkout session id', required: true }) };
  static override flags = {
    'payment-method': Flags.string({ description: 'Payment method (e.g. tok_visa)' }),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(CheckoutComplete);
    const pm = await this.need(flags['payment-method'], {
      flag: 'payment-method',
      message: 'Payment method (e.g. tok_visa)',
    });
    const client = await this.client(flags);
    await this.confirmChange(`complete checkout session ${args.id}`, flags.yes);
    const c = await client.checkoutSessions.complete(
      args.id,
      { payment_method: pm },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(c, 'Checkout session completed', checkoutFields);
  }
}
