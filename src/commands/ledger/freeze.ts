import { ApiCommand } from '../../lib/cli/base.js';
import { ledgerAccountArgs, statusChangeFlags } from '../../lib/cli/ledger.js';
import { cliActor } from '../../lib/cli/actor.js';
import { accountFields } from '../../lib/output/views/ledger.js';

export default class LedgerFreeze extends ApiCommand {
  static override summary = 'Freeze a ledger account (no entries or holds until it is unfrozen)';
  static override examples = ['<%= config.bin %> ledger freeze la_123 --reason "chargeback investigation #4411"'];
  static override args = ledgerAccountArgs;
  static override flags = { ...statusChangeFlags };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(LedgerFreeze);
    const reason = await this.need(flags.reason, { flag: 'reason', message: 'Reason for freezing' });
    const client = await this.client(flags);
    await this.confirmChange(`freeze ledger account ${args.id} (${reason})`, flags.yes);
    const account = await client.ledgerAccounts.freeze(
      args.id,
      { reason, actor: cliActor(flags.actor) },
      { idempotencyKey: flags['idempotency-key'] },
    );
    return this.detail(account, 'Ledger account frozen', accountFields);
  }
}
