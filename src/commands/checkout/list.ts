import { ApiCommand, listAll, listFlags } from '../../lib/cli/base.js';
import { checkoutColumns } from '../../lib/output/views/billing.js';

export default class CheckoutList extends ApiCommand {
  static override summary = 'List checkout sessions, newest first';
  static override examples = ['<%= config.bin %> checkout list --limit 20', '<%= config.bin %> checkout list --all --json'];
  static override flags = {
    ...listFlags,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(CheckoutList);
    const client = await this.client(flags);
    const params = { limit: flags.limit, starting_after: flags['starting-after'], ending_before: flags['ending-before'] };
    const list = flags.all ? await listAll(client.checkoutSessions.listAll(params), this.io, this.jsonMode) : await client.checkoutSessions.list(params);
    return await this.table(list, checkoutColumns, 'No checkout sessions.');
  }
}
