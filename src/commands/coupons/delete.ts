import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';

export default class CouponsDelete extends ApiCommand {
  static override summary = 'Delete a coupon (discounts already applied keep running)';
  static override examples = ['<%= config.bin %> coupons delete co_…'];
  static override args = { id: Args.string({ description: 'Coupon id', required: true }) };
  static override flags = { 'idempotency-key': idempotencyFlag, yes: yesFlag };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(CouponsDelete);
    const client = await this.client(flags);
    await this.confirmChange(`delete coupon ${args.id}`, flags.yes);
    const out = await client.coupons.del(args.id, { idempotencyKey: flags['idempotency-key'] });
    return this.print(out, () => `Deleted coupon ${out.id}.`);
  }
}
