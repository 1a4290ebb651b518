import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { checkoutFields } from '../../lib/output/views/billing.js';

export default class CheckoutGet extends ApiCommand {
  static override summary = 'Show a checkout session';
  static override examples = ['<%= config.bin %> checkout get cks_…'];
  static override args = { id: Args.string({ description: 'Checkout session id', required: true }) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(CheckoutGet);
    const obj = await (await this.client(flags)).checkoutSessions.retrieve(args.id);
    return this.detail(obj, 'Checkout session', checkoutFields);
  }
}
