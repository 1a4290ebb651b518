import { Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { listFlags } from '../../lib/cli/list.js';
import { sessionColumns } from '../../lib/output/views/sessions.js';

export default class SessionsList extends ApiCommand {
  static override summary = 'List payment sessions, newest first';
  static override examples = [
    '<%= config.bin %> sessions list --status requires_payment_method --limit 20',
    '<%= config.bin %> sessions list --external-id order_42 --json',
  ];
  static override flags = {
    ...listFlags,
    status: Flags.option({
      description: 'Only sessions in this status',
      options: ['requires_payment_method', 'requires_action', 'processing', 'succeeded', 'failed', 'canceled'] as const,
    })(),
    'external-id': Flags.string({ description: 'Only sessions with this external id' }),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(SessionsList);
    const client = await this.client(flags);
    const list = await this.listOf(
      flags,
      { status: flags.status, external_id: flags['external-id'] },
      (p) => client.sessions.list(p),
      (p) => client.sessions.listAll(p),
    );
    return await this.table(list, sessionColumns, 'No payment sessions.');
  }
}
