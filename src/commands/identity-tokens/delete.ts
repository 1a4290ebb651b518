import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';

export default class IdentityTokensDelete extends ApiCommand {
  static override summary = 'Delete an identity token and its sealed value';
  static override examples = ['<%= config.bin %> identity-tokens delete idt_…'];
  static override args = { id: Args.string({ description: 'Token id (idt_…)', required: true }) };
  static override flags = { 'idempotency-key': idempotencyFlag, yes: yesFlag };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(IdentityTokensDelete);
    const client = await this.client(flags);
    await this.confirmChange(`delete identity token ${args.id}`, flags.yes);
    const deleted = await client.identityTokens.delete(args.id, { idempotencyKey: flags['idempotency-key'] });
    return this.print(deleted, () => `Identity token ${deleted.token_id} deleted.`);
  }
}
