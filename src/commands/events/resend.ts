import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { deliveryColumns } from '../../lib/output/views/events.js';

export default class EventsResend extends ApiCommand {
  static override summary = 'Send an event again to every matching enabled webhook endpoint, or to the one named';
  static override examples = ['<%= config.bin %> events resend evt_…', '<%= config.bin %> events resend evt_… --webhook-endpoint we_…'];
  static override args = { id: Args.string({ description: 'Event id (evt_…)', required: true }) };
  static override flags = {
    'webhook-endpoint': Flags.string({ description: 'Only to this endpoint (we_…)' }),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(EventsResend);
    const client = await this.client(flags);
    await this.confirmChange(`resend event ${args.id} to ${flags['webhook-endpoint'] ?? 'every matching webhook endpoint'}`, flags.yes);
    const deliveries = await client.events.resend(args.id, { webhook_endpoint: flags['webhook-endpoint'] }, { idempotencyKey: flags['idempotency-key'] });
    return this.table(deliveries, deliveryColumns, 'No endpoint takes this event: nothing was sent.');
  }
}
