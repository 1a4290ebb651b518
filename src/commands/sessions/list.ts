import { Flags } from '@oclif/core';
import { ApiCommand, listFlags, listAll } from '../../lib/cli/base.js';
import { sessionColumns } from '../../lib/output/views/sessions.js';

export default class SessionsList extends ApiCommand {
  static override summary = 'List payment sessions, newest first';
  static override examples = ['<%= config.bin %> sessions list --status requires_payment_method --limit 20', '<%= config.bin %> sessions list --external-id order_42 --json'];
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
    const params = {
      limit: flags.limit,
      starting_after: flags['starting-after'],
      ending_before: flags['ending-before'],
      status: flags.status,
      external_id: flags['external-id'],
    };
    const list = flags.all ? await listAll(client.sessions.listAll(params), this.io, this.jsonMode) : await client.sessions.list(params);
    return await this.table(list, sessionColumns, 'No payment sessions.');
  }
}
