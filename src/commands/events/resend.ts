import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { tableText } from '../../lib/output/render.js';
import { eventDeliveryColumns } from '../../lib/output/views/events.js';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export default class EventsResend extends ApiCommand {
  static override summary =
    'Send an event again to every matching enabled webhook endpoint and every running `payorch listen`, or to the endpoint named';
  static override examples = [
    '<%= config.bin %> events resend evt_…',
    '<%= config.bin %> events resend evt_… --webhook-endpoint we_…',
  ];
  static override args = { id: Args.string({ description: 'Event id (evt_…)', required: true }) };
  static override flags = {
    'webhook-endpoint': Flags.string({ description: 'Only to this endpoint (we_…): no listener gets it' }),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(EventsResend);
    const client = await this.client(flags);
    await this.confirmChange(
      `resend event ${args.id} to ${flags['webhook-endpoint'] ?? 'every matching webhook endpoint and running listener'}`,
      flags.yes,
    );
    const result = await client.events.resend(
      args.id,
      { webhook_endpoint: flags['webhook-endpoint'] },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.print(result, async () => {
      const endpoints = result.data.length;
      // `listeners` is absent from servers that do not queue resends for listeners: they reached none.
      const listeners = result.listeners ?? 0;
      const table = endpoints > 0 ? (await tableText(result.data, eventDeliveryColumns)) + '\n' : '';
      if (flags['webhook-endpoint'] !== undefined) return table.trimEnd();
      if (endpoints === 0 && listeners === 0) {
        return result.listeners === undefined
          ? 'No endpoint takes this event: nothing was sent.'
          : 'No endpoint takes this event and no listener (`payorch listen`) is running: nothing was sent.';
      }
      return `${table}Resent to ${plural(endpoints, 'webhook endpoint', 'webhook endpoints')} and ${plural(listeners, 'running listener', 'running listeners')} (\`payorch listen\`).`;
    });
  }
}
