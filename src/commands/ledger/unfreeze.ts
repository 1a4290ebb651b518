import { ApiCommand } from '../../lib/cli/base.js';
import { ledgerAccountArgs, statusChangeFlags } from '../../lib/cli/ledger.js';
import { cliActor } from '../../lib/cli/actor.js';
import { confirm, confirmByTyping, declined } from '../../lib/cli/prompt.js';
import { accountFields, accountSummary } from '../../lib/output/views/ledger.js';

export default class LedgerUnfreeze extends ApiCommand {
  static override summary = 'Unfreeze a ledger account, after showing it and asking for confirmation';
  static override description =
    'Shows the account (balances, holds, recent entries, who froze it, why and when) and asks for confirmation. With a live key the confirmation is typing the account id. --yes skips the question; without a terminal and without --yes the command refuses (exit 2).';
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
    // Only a frozen account can change; anything else goes straight to the server, which answers 409.
    if (!flags.yes && account.status === 'frozen') {
      // The summary goes to stderr: stdout stays the command's result.
      if (!this.jsonMode)
        this.io.stderr.write(
          `${await this.render(this.io.stderr, () => accountSummary(account, 'About to unfreeze'))}\n\n`,
        );
      const ok = this.isLive
        ? await confirmByTyping(`Unfreeze ledger account ${args.id} with a LIVE key?`, args.id, this.jsonMode, this.io)
        : await confirm(`Unfreeze ledger account ${args.id}?`, this.jsonMode, this.io);
      if (!ok) throw declined();
    }
    // The operation has no body of its own: one is sent only when --reason or --actor says something.
    const body =
      flags.reason !== undefined || flags.actor !== undefined
        ? { reason: flags.reason, actor: cliActor(flags.actor) }
        : undefined;
    const updated = await client.ledgerAccounts.unfreeze(args.id, body, { idempotencyKey: flags['idempotency-key'] });
    return this.detail(updated, 'Ledger account unfrozen', accountFields);
  }
}
