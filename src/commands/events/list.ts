import { Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { listFlags } from '../../lib/cli/list.js';
import { eventPatterns } from '../../lib/cli/events.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { eventColumns } from '../../lib/output/views/events.js';

export default class EventsList extends ApiCommand {
  static override summary = 'List events, newest first';
  static override examples = [
    '<%= config.bin %> events list --type "payment.*" --limit 20',
    '<%= config.bin %> events list --object pay_… --json',
  ];
  static override flags = {
    ...listFlags,
    type: Flags.string({ description: 'Only this event type, or a pattern with `*` (payment.*, *.created)' }),
    object: Flags.string({ description: 'Only events about this object id' }),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(EventsList);
    if (flags.type !== undefined && flags.type.includes(','))
      throw new CliError('--type takes one type or pattern (the API filters by one).', EXIT.USAGE);
    const type = flags.type !== undefined ? (await eventPatterns('--type', flags.type))[0] : undefined;
    const client = await this.client(flags);
    const list = await this.listOf(
      flags,
      { type, object_id: flags.object },
      (p) => client.events.list(p),
      (p) => client.events.listAll(p),
    );
    return this.table(list, eventColumns, 'No events.');
  }
}
