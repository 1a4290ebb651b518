import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from '../../lib/cli/base.js';
import { priceFields } from '../../lib/output/views/billing.js';

export default class PricesUpdate extends ApiCommand {
  static override summary = 'Update a price (nickname, active, metadata)';
  static override examples = ['<%= config.bin %> prices update price_… --nickname Monthly --no-active'];
  static override args = { id: Args.string({ description: 'Price id', required: true }) };
  static override flags = {
    nickname: Flags.string({ description: 'Nickname' }),
    active: Flags.boolean({ description: 'Activate (--active) or deactivate (--no-active)', allowNo: true }),
    metadata: metadataFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(PricesUpdate);
    const client = await this.client(flags);
    await this.confirmChange(`update price ${args.id}`, flags.yes);
    const p = await client.prices.update(
      args.id,
      { nickname: flags.nickname, active: flags.active, metadata: parseMetadata(flags.metadata) },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(p, 'Price updated', priceFields);
  }
}
