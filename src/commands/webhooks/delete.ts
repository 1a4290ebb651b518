import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { canAsk } from '../../lib/cli/io.js';

export default class WebhooksDelete extends ApiCommand {
  static override summary = 'Delete a webhook endpoint (asks first at a terminal; --yes skips)';
  static override examples = ['<%= config.bin %> webhooks delete we_…', '<%= config.bin %> webhooks delete we_… --yes'];
  static override args = { id: Args.string({ description: 'Webhook endpoint id (we_…)', required: true }) };
  static override flags = { 'idempotency-key': idempotencyFlag, yes: yesFlag };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(WebhooksDelete);
    const client = await this.client(flags);
    if (this.isLive) await this.confirmChange(`delete webhook endpoint ${args.id}`, flags.yes);
    else if (!flags.yes && canAsk(this.io, this.jsonMode))
      await this.confirmOrAbort(`Delete webhook endpoint ${args.id}? Nothing more is delivered to it.`, 'not deleted');
    const out = await client.webhookEndpoints.del(args.id, { idempotencyKey: flags['idempotency-key'] });
    return this.print(out, () => `Deleted webhook endpoint ${out.id}.`);
  }
}
