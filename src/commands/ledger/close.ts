import { ApiCommand } from '../../lib/cli/base.js';
import { ledgerAccountArgs, statusChangeFlags } from '../../lib/cli/ledger.js';
import { cliActor } from '../../lib/cli/actor.js';
import { accountFields } from '../../lib/output/views/ledger.js';

export default class LedgerClose extends ApiCommand {
  static override summary = 'Close a ledger account (zero balance, no active holds; cannot be undone)';
  static override examples = ['<%= config.bin %> ledger close la_… --reason "customer left"'];
  static override args = ledgerAccountArgs;
  static override flags = { ...statusChangeFlags };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(LedgerClose);
    const client = await this.client(flags);
    await this.confirmChange(`close ledger account ${args.id} (terminal)`, flags.yes);
    const account = await client.ledgerAccounts.close(
      args.id,
      { reason: flags.reason, actor: cliActor(flags.actor) },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(account, 'Ledger account closed', accountFields);
  }
}
