import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { networkTokenFields } from '../../lib/output/views/payments.js';

export default class NetworkTokensGet extends ApiCommand {
  static override summary = 'Show a network token';
  static override examples = ['<%= config.bin %> network-tokens get nt_…'];
  static override args = { id: Args.string({ description: 'Network token id (nt_…)', required: true }) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(NetworkTokensGet);
    return this.detail(
      await (await this.client(flags)).networkTokens.retrieve(args.id),
      'Network token',
      networkTokenFields,
    );
  }
}
