import { Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { parseDate } from '../../lib/cli/billing.js';
import { usageFields } from '../../lib/output/views/billing.js';

export default class UsageRecordsCreate extends ApiCommand {
  static override summary = 'Report usage of a metered subscription item';
  static override examples = [
    '<%= config.bin %> usage-records create --subscription-item si_123 --quantity 120',
    '<%= config.bin %> usage-records create --subscription-item si_123 --quantity 7 --action set',
  ];
  static override flags = {
    'subscription-item': Flags.string({ description: 'Subscription item id (metered price)' }),
    quantity: Flags.integer({ description: 'Usage quantity', min: 0 }),
    timestamp: Flags.string({ description: 'When the usage happened (date or Unix seconds; default now)' }),
    action: Flags.option({
      description: 'increment (default) adds; set replaces the usage at that timestamp',
      options: ['increment', 'set'] as const,
    })(),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(UsageRecordsCreate);
    const item = await this.need(flags['subscription-item'], {
      flag: 'subscription-item',
      message: 'Subscription item id',
    });
    const quantity = await this.need(flags.quantity, { flag: 'quantity', message: 'Quantity', kind: 'integer' });
    const client = await this.client(flags);
    await this.confirmChange(`report ${quantity} units on ${item}`, flags.yes);
    const rec = await client.usageRecords.create(
      {
        subscription_item: item,
        quantity,
        timestamp: flags.timestamp !== undefined ? parseDate(flags.timestamp, 'timestamp') : undefined,
        action: flags.action,
      },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(rec, 'Usage recorded', usageFields);
  }
}
