import { Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from '../../lib/cli/base.js';
import { eventPatterns } from '../../lib/cli/events.js';
import { webhookEndpointWithSecretFields } from '../../lib/output/views/events.js';

export default class WebhooksCreate extends ApiCommand {
  static override summary =
    'Add a webhook endpoint (prints its signing secret: the one time it is shown without asking)';
  static override examples = [
    '<%= config.bin %> webhooks create --url https://example.test/webhooks --events "payment.*,refund.succeeded"',
    '<%= config.bin %> webhooks create --url http://localhost:3000/webhooks --json | jq -r .secret',
  ];
  static override flags = {
    url: Flags.string({ description: 'Where deliveries are POSTed (http or https URL)', required: true }),
    events: Flags.string({ description: 'Event types or `*` patterns, comma-separated (default: every event, `*`)' }),
    description: Flags.string({ description: 'A note for people' }),
    disabled: Flags.boolean({ description: 'Create it disabled (nothing is delivered until enabled)' }),
    metadata: metadataFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(WebhooksCreate);
    const events = flags.events !== undefined ? await eventPatterns('--events', flags.events) : undefined;
    const client = await this.client(flags);
    await this.confirmChange(`create webhook endpoint ${flags.url}`, flags.yes);
    const endpoint = await client.webhookEndpoints.create(
      {
        url: flags.url,
        enabled_events: events,
        description: flags.description,
        enabled: flags.disabled ? false : undefined,
        metadata: parseMetadata(flags.metadata),
      },
      { idempotencyKey: flags['idempotency-key'] },
    );
    await this.detail(endpoint, 'Webhook endpoint', webhookEndpointWithSecretFields);
    if (!this.jsonMode)
      this.notice(
        'Keep the signing secret with your app (it verifies deliveries); `payorch webhooks secret ID --show` prints it again.',
      );
    return endpoint;
  }
}
