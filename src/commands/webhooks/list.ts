import { ApiCommand } from '../../lib/cli/base.js';
import { listFlags } from '../../lib/cli/list.js';
import { webhookEndpointColumns } from '../../lib/output/views/events.js';

export default class WebhooksList extends ApiCommand {
  static override summary = 'List webhook endpoints, newest first';
  static override examples = ['<%= config.bin %> webhooks list', '<%= config.bin %> webhooks list --json'];
  static override flags = { ...listFlags };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(WebhooksList);
    const client = await this.client(flags);
    const list = await this.listOf(
      flags,
      {},
      (p) => client.webhookEndpoints.list(p),
      (p) => client.webhookEndpoints.listAll(p),
    );
    return this.table(
      list,
      webhookEndpointColumns,
      'No webhook endpoints. Add one with `payorch webhooks create --url …`.',
    );
  }
}
