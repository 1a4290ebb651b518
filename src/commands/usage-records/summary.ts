import { Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { listFlags } from '../../lib/cli/list.js';
import { usageSummaryColumns } from '../../lib/output/views/billing.js';

export default class UsageRecordsSummary extends ApiCommand {
  static override summary = "A metered item's usage per billing period, newest first";
  static override examples = ['<%= config.bin %> usage-records summary --subscription-item si_…'];
  static override flags = {
    ...listFlags,
    'subscription-item': Flags.string({ description: 'Subscription item id', required: true }),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(UsageRecordsSummary);
    const client = await this.client(flags);
    const list = await this.listOf(
      flags,
      { subscription_item: flags['subscription-item'] },
      (p) => client.usageRecords.summaries(p),
      (p) => client.usageRecords.summariesAll(p),
    );
    return await this.table(list, usageSummaryColumns, 'No usage periods.');
  }
}
