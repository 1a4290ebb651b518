import { Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { listFlags } from '../../lib/cli/list.js';
import { paymentColumns } from '../../lib/output/views/payments.js';

export default class PaymentsList extends ApiCommand {
  static override summary = 'List payments, newest first';
  static override examples = [
    '<%= config.bin %> payments list --session 0190f3c2-…',
    '<%= config.bin %> payments list --status captured --all --json',
  ];
  static override flags = {
    ...listFlags,
    session: Flags.string({ description: 'Only payments of this session' }),
    status: Flags.option({
      options: ['pending', 'authorized', 'captured', 'failed', 'canceled', 'refunded'] as const,
      description: 'Only payments in this status',
    })(),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(PaymentsList);
    const client = await this.client(flags);
    const list = await this.listOf(
      flags,
      { session_id: flags.session, status: flags.status },
      (p) => client.payments.list(p),
      (p) => client.payments.listAll(p),
    );
    return await this.table(list, paymentColumns, 'No payments.');
  }
}
