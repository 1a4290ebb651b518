import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { cursor, cursorFlags } from '../../lib/cli/list.js';
import { eventDeliveryColumns } from '../../lib/output/views/events.js';

export default class EventsDeliveries extends ApiCommand {
  static override summary = "An event's deliveries to webhook endpoints (status, attempts, last response)";
  static override examples = ['<%= config.bin %> events deliveries evt_…'];
  static override args = { id: Args.string({ description: 'Event id (evt_…)', required: true }) };
  static override flags = { ...cursorFlags };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(EventsDeliveries);
    const list = await (await this.client(flags)).events.deliveries(args.id, cursor(flags));
    return this.table(list, eventDeliveryColumns, 'No deliveries of this event.');
  }
}
