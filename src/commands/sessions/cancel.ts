import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { sessionFields } from '../../lib/output/views/sessions.js';

export default class SessionsCancel extends ApiCommand {
  static override summary = 'Cancel a payment session';
  static override examples = [
    '<%= config.bin %> sessions cancel 0190f3c2-…',
    '<%= config.bin %> sessions cancel 0190f3c2-… --reason duplicate',
  ];
  static override args = { id: Args.string({ description: 'Session id (UUID)', required: true }) };
  static override flags = {
    reason: Flags.option({
      options: ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'] as const,
      description: 'Cancellation reason (default requested_by_customer)',
    })(),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(SessionsCancel);
    const client = await this.client(flags);
    await this.confirmChange(`cancel payment session ${args.id}`, flags.yes);
    const session = await client.sessions.cancel(
      args.id,
      { cancellation_reason: flags.reason },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(session, 'Payment session canceled', sessionFields);
  }
}
