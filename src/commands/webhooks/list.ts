import { ApiCommand, listAll, listFlags } from '../../lib/cli/base.js';
import { webhookEndpointColumns } from '../../lib/output/views/events.js';

export default class WebhooksList extends ApiCommand {
  static override summary = 'List webhook endpoints, newest first';
  static override examples = ['<%= config.bin %> webhooks list', '<%= config.bin %> webhooks list --json'];
  static override flags = { ...listFlags };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(WebhooksList);
    const client = await this.client(flags);
    const params = { limit: flags.limit, starting_after: flags['starting-after'], ending_before: flags['ending-before'] };
    const list = flags.all ? await listAll(client.webhookEndpoints.listAll(params), this.io, this.jsonMode) : await client.webhookEndpoints.list(params);
    return this.table(list, webhookEndpointColumns, 'No webhook endpoints. Add one with `payorch webhooks create --url …`.');
  }
}
