import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { sessionFields } from '../../lib/output/views/sessions.js';

export default class SessionsGet extends ApiCommand {
  static override summary = 'Show a payment session';
  static override examples = [
    '<%= config.bin %> sessions get 0190f3c2-…',
    '<%= config.bin %> sessions get "$ID" --json | jq -r .status',
  ];
  static override args = { id: Args.string({ description: 'Session id (UUID)', required: true }) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(SessionsGet);
    const session = await (await this.client(flags)).sessions.retrieve(args.id);
    return this.detail(session, 'Payment session', sessionFields);
  }
}
