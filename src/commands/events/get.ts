import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { eventFields } from '../../lib/output/views/events.js';

export default class EventsGet extends ApiCommand {
  static override summary = 'Show an event (--json: the whole event, its object included)';
  static override examples = [
    '<%= config.bin %> events get evt_…',
    '<%= config.bin %> events get evt_… --json | jq .data.object',
  ];
  static override args = { id: Args.string({ description: 'Event id (evt_…)', required: true }) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(EventsGet);
    const event = await (await this.client(flags)).events.retrieve(args.id);
    return this.detail(event, `Event ${event.type}`, eventFields);
  }
}
