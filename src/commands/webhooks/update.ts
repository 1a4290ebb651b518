import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from '../../lib/cli/base.js';
import { eventPatterns } from '../../lib/cli/events.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { webhookEndpointFields } from '../../lib/output/views/events.js';

export default class WebhooksUpdate extends ApiCommand {
  static override summary = 'Change a webhook endpoint: url, events, description, enabled, metadata';
  static override examples = [
    '<%= config.bin %> webhooks update we_… --events "payment.*"',
    '<%= config.bin %> webhooks update we_… --disable',
  ];
  static override args = { id: Args.string({ description: 'Webhook endpoint id (we_…)', required: true }) };
  static override flags = {
    url: Flags.string({ description: 'New URL (http or https)' }),
    events: Flags.string({ description: 'Event types or `*` patterns, comma-separated (replaces the list)' }),
    description: Flags.string({ description: 'New description ("" removes it)' }),
    enable: Flags.boolean({ description: 'Deliver to it again', exclusive: ['disable'] }),
    disable: Flags.boolean({
      description: 'Stop delivering to it (events are not queued meanwhile)',
      exclusive: ['enable'],
    }),
    metadata: metadataFlag,
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(WebhooksUpdate);
    const params = {
      url: flags.url,
      enabled_events: flags.events !== undefined ? await eventPatterns('--events', flags.events) : undefined,
      description: flags.description === undefined ? undefined : flags.description === '' ? null : flags.description,
      enabled: flags.enable ? true : flags.disable ? false : undefined,
      metadata: parseMetadata(flags.metadata),
    };
    if (Object.values(params).every((v) => v === undefined))
      throw new CliError(
        'Nothing to change: pass --url, --events, --description, --enable, --disable or --metadata.',
        EXIT.USAGE,
      );
    const client = await this.client(flags);
    await this.confirmChange(`update webhook endpoint ${args.id}`, flags.yes);
    const endpoint = await client.webhookEndpoints.update(args.id, params, {
      idempotencyKey: flags['idempotency-key'],
    });
    return this.detail(endpoint, 'Webhook endpoint', webhookEndpointFields);
  }
}
