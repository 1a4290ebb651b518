import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { webhookEndpointFields } from '../../lib/output/views/events.js';

export default class WebhooksGet extends ApiCommand {
  static override summary = 'Show a webhook endpoint';
  static override examples = ['<%= config.bin %> webhooks get we_…'];
  static override args = { id: Args.string({ description: 'Webhook endpoint id (we_…)', required: true }) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(WebhooksGet);
    const endpoint = await (await this.client(flags)).webhookEndpoints.retrieve(args.id);
    return this.detail(endpoint, 'Webhook endpoint', webhookEndpointFields);
  }
}
