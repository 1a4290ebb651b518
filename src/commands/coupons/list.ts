import { ApiCommand, listAll, listFlags } from '../../lib/cli/base.js';
import { couponColumns } from '../../lib/output/views/billing.js';

export default class CouponsList extends ApiCommand {
  static override summary = 'List coupons, newest first';
  static override examples = ['<%= config.bin %> coupons list --limit 20'];
  static override flags = {
    ...listFlags,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(CouponsList);
    const client = await this.client(flags);
    const params = { limit: flags.limit, starting_after: flags['starting-after'], ending_before: flags['ending-before'] };
    const list = flags.all ? await listAll(client.coupons.listAll(params), this.io, this.jsonMode) : await client.coupons.list(params);
    return await this.table(list, couponColumns, 'No coupons.');
  }
}
