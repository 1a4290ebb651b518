import { ApiCommand } from '../../lib/cli/base.js';
import { listFlags } from '../../lib/cli/list.js';
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
    const list = await this.listOf(
      flags,
      {},
      (p) => client.coupons.list(p),
      (p) => client.coupons.listAll(p),
    );
    return await this.table(list, couponColumns, 'No coupons.');
  }
}
