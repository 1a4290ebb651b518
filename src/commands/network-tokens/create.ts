import { Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { networkTokenFields } from '../../lib/output/views/payments.js';

export default class NetworkTokensCreate extends ApiCommand {
  static override summary = 'Create a network token from a card token';
  static override examples = ['<%= config.bin %> network-tokens create --token tok_visa'];
  static override flags = {
    token: Flags.string({ description: 'Card token (tok_…)', required: true }),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(NetworkTokensCreate);
    const client = await this.client(flags);
    await this.confirmChange(`create a network token from ${flags.token}`, flags.yes);
    return this.detail(
      await client.networkTokens.create(flags.token, { idempotencyKey: flags['idempotency-key'] }),
      'Network token created',
      networkTokenFields,
    );
  }
}
