import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { threedsFields } from '../../lib/output/views/payments.js';

export default class ThreedsResult extends ApiCommand {
  static override summary = 'Show the 3D Secure result of a session';
  static override examples = ['<%= config.bin %> threeds result 0190f3c2-…'];
  static override args = { session: Args.string({ description: 'Session id (UUID)', required: true }) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(ThreedsResult);
    const result = await (await this.client(flags)).threeds.result(args.session);
    return this.detail(result, '3D Secure', threedsFields);
  }
}
