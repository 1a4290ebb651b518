import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';

export default class NetworkTokensDelete extends ApiCommand {
  static override summary = 'Delete a network token';
  static override examples = ['<%= config.bin %> network-tokens delete nt_…'];
  static override args = { id: Args.string({ description: 'Network token id (nt_…)', required: true }) };
  static override flags = { 'idempotency-key': idempotencyFlag, yes: yesFlag };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(NetworkTokensDelete);
    const client = await this.client(flags);
    await this.confirmChange(`delete network token ${args.id}`, flags.yes);
    const r = await client.networkTokens.delete(args.id, { idempotencyKey: flags['idempotency-key'] });
    return this.print(r, () => `Deleted network token ${r.id}.`);
  }
}
