import { ApiCommand } from '../../lib/cli/base.js';
import { listFlags } from '../../lib/cli/list.js';
import { checkoutColumns } from '../../lib/output/views/billing.js';

export default class CheckoutList extends ApiCommand {
  static override summary = 'List checkout sessions, newest first';
  static override examples = [
    '<%= config.bin %> checkout list --limit 20',
    '<%= config.bin %> checkout list --all --json',
  ];
  static override flags = {
    ...listFlags,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(CheckoutList);
    const client = await this.client(flags);
    const list = await this.listOf(
      flags,
      {},
      (p) => client.checkoutSessions.list(p),
      (p) => client.checkoutSessions.listAll(p),
    );
    return await this.table(list, checkoutColumns, 'No checkout sessions.');
  }
}
