import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { cursor, cursorFlags } from '../../lib/cli/list.js';
import { endpointDeliveryColumns } from '../../lib/output/views/events.js';

export default class WebhooksDeliveries extends ApiCommand {
  static override summary =
    "A webhook endpoint's deliveries, newest first (status, attempts, next attempt, last response)";
  static override examples = ['<%= config.bin %> webhooks deliveries we_… --status failed'];
  static override args = { id: Args.string({ description: 'Webhook endpoint id (we_…)', required: true }) };
  static override flags = {
    ...cursorFlags,
    status: Flags.option({
      description: 'Only deliveries in this status',
      options: ['pending', 'succeeded', 'failed'] as const,
    })(),
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(WebhooksDeliveries);
    const client = await this.client(flags);
    const list = await client.webhookEndpoints.deliveries(args.id, {
      ...cursor(flags),
      status: flags.status,
    });
    return this.table(list, endpointDeliveryColumns, 'No deliveries.');
  }
}
