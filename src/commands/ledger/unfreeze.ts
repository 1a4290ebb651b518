import { ApiCommand } from '../../lib/cli/base.js';
import { ledgerAccountArgs, statusChangeFlags } from '../../lib/cli/ledger.js';
import { cliActor } from '../../lib/cli/actor.js';
import { accountFields, accountSummary } from '../../lib/output/views/ledger.js';

export default class LedgerUnfreeze extends ApiCommand {
  static override summary = 'Unfreeze a ledger account, after showing it and asking for confirmation';
  static override description =
    'Shows the account (balances, holds, recent entries, who froze it, why and when) and asks for confirmation. With a live key it always asks, before the change is sent, and the confirmation is typing the account id; with a test key it asks when the account is frozen (otherwise the server answers 409). --yes skips the question; without a terminal and without --yes the command refuses (exit 2).';
  static override examples = [
    '<%= config.bin %> ledger unfreeze la_123',
    '<%= config.bin %> ledger unfreeze la_123 --reason "cleared by risk" --yes',
  ];
  static override args = ledgerAccountArgs;
  static override flags = { ...statusChangeFlags };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(LedgerUnfreeze);
    const client = await this.client(flags);
    const account = await client.ledgerAccounts.retrieve(args.id);
    // Asked before the write itself: with a live key always (typing the id); with a test key when there is a
    // frozen account to show — anything else goes to the server, which answers 409.
    await this.confirmChange(`unfreeze ledger account ${args.id}`, flags.yes, {
      typed: args.id,
      testToo: account.status === 'frozen',
      show: () => accountSummary(account, 'About to unfreeze'),
    });
    // The operation has no body of its own: one is sent only when --reason or --actor says something.
    const body =
      flags.reason !== undefined || flags.actor !== undefined
        ? { reason: flags.reason, actor: cliActor(flags.actor) }
        : undefined;
    const updated = await client.ledgerAccounts.unfreeze(args.id, body, { idempotencyKey: flags['idempotency-key'] });
    return this.detail(updated, 'Ledger account unfrozen', accountFields);
  }
}
