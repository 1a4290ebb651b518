import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from '../../lib/cli/base.js';
import { sessionFields } from '../../lib/output/views/sessions.js';
import { amountFlag } from '../../lib/cli/amount.js';

export default class SessionsUpdate extends ApiCommand {
  static override summary = 'Update a payment session (only while it requires a payment method)';
  static override examples = ['<%= config.bin %> sessions update 0190f3c2-… --amount 2500 --metadata order=42'];
  static override args = { id: Args.string({ description: 'Session id (UUID)', required: true }) };
  static override flags = {
    amount: amountFlag({ description: 'New amount in minor units' }),
    currency: Flags.string({ description: 'New currency' }),
    description: Flags.string({ description: 'New description' }),
    'customer-email': Flags.string({ description: 'Customer email' }),
    'customer-name': Flags.string({ description: 'Customer name' }),
    metadata: metadataFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(SessionsUpdate);
    const customer =
      flags['customer-email'] || flags['customer-name']
        ? { email: flags['customer-email'], name: flags['customer-name'] }
        : undefined;
    const client = await this.client(flags);
    await this.confirmChange(`update payment session ${args.id}`, flags.yes);
    const session = await client.sessions.update(
      args.id,
      {
        amount: flags.amount,
        currency: flags.currency,
        description: flags.description,
        customer,
        metadata: parseMetadata(flags.metadata),
      },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(session, 'Payment session updated', sessionFields);
  }
}
