import { Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { color, tableText } from '../../lib/output/render.js';

export default class ServerProcessors extends ApiCommand {
  static override summary =
    "The eleven processors (up or down for the key's account) and the routing rules; mark one down or up";
  static override examples = [
    '<%= config.bin %> server processors',
    '<%= config.bin %> server processors --down aurora',
    '<%= config.bin %> server processors --up aurora',
  ];
  static override flags = {
    down: Flags.string({
      description: "Mark this processor down for the key's account (its payments fail over past it)",
      multiple: true,
    }),
    up: Flags.string({ description: 'Mark this processor up again', multiple: true }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerProcessors);
    const client = await this.client(flags);
    let state = await client.processors.state();
    for (const id of flags.down ?? []) state = await client.processors.setStatus(id, 'down');
    for (const id of flags.up ?? []) state = await client.processors.setStatus(id, 'up');
    await this.print(state, async () => {
      const c = color();
      const procs = state.processors
        .map((p) => `${p.id} ${p.status === 'up' ? c.green('up') : c.red('down')}`)
        .join('  ');
      const rules = await tableText(state.routing, [
        { header: 'RULE', value: (r) => r.name ?? '' },
        { header: 'METHODS', value: (r) => r.payment_method_types?.join(',') ?? 'any' },
        { header: 'CURRENCIES', value: (r) => r.currencies?.join(',') ?? 'any' },
        {
          header: 'AMOUNT',
          value: (r) =>
            r.min_amount === undefined && r.max_amount === undefined
              ? 'any'
              : `${r.min_amount ?? 0}–${r.max_amount ?? '∞'}`,
        },
        { header: 'CANDIDATES', value: (r) => r.candidates.join(' → '), shrink: 'wrap' },
      ]);
      return `Processors: ${procs}\n\nRouting (first matching rule; at most ${state.max_attempts} attempts, failover on retryable failures):\n${rules}`;
    });
  }
}
