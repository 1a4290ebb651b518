import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { couponFields } from '../../lib/output/views/billing.js';

export default class CouponsGet extends ApiCommand {
  static override summary = 'Show a coupon';
  static override examples = ['<%= config.bin %> coupons get co_…'];
  static override args = { id: Args.string({ description: 'Coupon id', required: true }) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(CouponsGet);
    const obj = await (await this.client(flags)).coupons.retrieve(args.id);
    return this.detail(obj, 'Coupon', couponFields);
  }
}
