import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../lib/cli/base.js';
import { checkEventType, eventCatalog } from '../lib/cli/events.js';
import { CliError, EXIT } from '../lib/cli/errors.js';
import { tableText } from '../lib/output/render.js';
import { eventColumns } from '../lib/output/views/events.js';
import { threedsCommand } from '../lib/output/views/payments.js';
import { amountFlag } from '../lib/cli/amount.js';

export default class Trigger extends ApiCommand {
  static override summary =
    'Make an event happen for real (creates the objects that produce it) and show the events it caused';
  static override examples = [
    '<%= config.bin %> trigger payment.captured',
    '<%= config.bin %> trigger payment.captured --amount 500 --currency eur --json',
    '<%= config.bin %> trigger --list',
  ];
  static override args = {
    event: Args.string({ description: 'Event type, e.g. payment.captured (`--list` shows every type)' }),
  };
  static override flags = {
    list: Flags.boolean({ description: 'List every event type and when it happens' }),
    amount: amountFlag({ description: 'Amount in minor units, for scenarios that take one' }),
    currency: Flags.string({ description: 'Currency, for scenarios that take one' }),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(Trigger);
    if (flags.list) {
      const { EVENT_TYPES, eventTypes } = await eventCatalog();
      const types = eventTypes.map((type) => ({
        type,
        object: EVENT_TYPES[type].object,
        when: EVENT_TYPES[type].when,
      }));
      return this.print(types, () =>
        tableText(types, [
          { header: 'TYPE', value: (t) => t.type },
          { header: 'OBJECT', value: (t) => t.object },
          { header: 'WHEN', value: (t) => t.when, shrink: 'wrap' },
        ]),
      );
    }
    if (args.event === undefined)
      throw new CliError(
        'Name the event type to trigger (e.g. payment.captured), or pass --list to see them all.',
        EXIT.USAGE,
      );
    const type = await checkEventType('EVENT', args.event);
    const client = await this.client(flags);
    await this.confirmChange(`trigger ${type} (creates the objects that produce it)`, flags.yes);
    const out = await client.testHelpers.trigger(
      type,
      { amount: flags.amount, currency: flags.currency },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.print(out, async () => {
      const objects = Object.entries(out.objects ?? {})
        .map(([k, v]) => `${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(', ');
      const session = out.objects?.payment_session;
      const next =
        out.event_type === 'payment.requires_action' && typeof session === 'string'
          ? [`Next: run \`${threedsCommand(session)}\` to complete the 3D Secure challenge.`]
          : [];
      return [
        `Triggered ${out.event_type}: ${out.events.length} event${out.events.length === 1 ? '' : 's'}.`,
        await tableText(out.events, eventColumns),
        ...(objects ? [`Objects: ${objects}`] : []),
        ...next,
      ].join('\n');
    });
  }
}
