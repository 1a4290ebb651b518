import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag } from '../../lib/cli/base.js';
import { cryptogramFields } from '../../lib/output/views/payments.js';

export default class NetworkTokensCryptogram extends ApiCommand {
  static override summary = 'Get a one-time cryptogram for a network token';
  static override examples = ['<%= config.bin %> network-tokens cryptogram nt_…'];
  static override args = { id: Args.string({ description: 'Network token id (nt_…)', required: true }) };
  static override flags = { 'idempotency-key': idempotencyFlag };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(NetworkTokensCryptogram);
    return this.detail(
      await (await this.client(flags)).networkTokens.cryptogram(args.id, { idempotencyKey: flags['idempotency-key'] }),
      'Cryptogram',
      cryptogramFields,
    );
  }
}
