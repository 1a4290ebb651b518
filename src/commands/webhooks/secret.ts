import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { maskSecret } from '../../lib/output/mask.js';

export default class WebhooksSecret extends ApiCommand {
  static override summary = "A webhook endpoint's signing secret (masked unless --show), or a new one with --roll";
  static override examples = [
    '<%= config.bin %> webhooks secret we_… --show',
    '<%= config.bin %> webhooks secret we_… --roll --expires-in 3600',
  ];
  static override args = { id: Args.string({ description: 'Webhook endpoint id (we_…)', required: true }) };
  static override flags = {
    show: Flags.boolean({ description: 'Print the secret in full (mind who sees your terminal)' }),
    roll: Flags.boolean({ description: 'Replace the secret with a new one (printed in full)' }),
    'expires-in': Flags.integer({
      description: 'With --roll: seconds the old secret still signs too (0–86400, default 0)',
      min: 0,
      max: 86_400,
      dependsOn: ['roll'],
    }),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(WebhooksSecret);
    const client = await this.client(flags);
    if (flags.roll) {
      await this.confirmChange(`roll the signing secret of webhook endpoint ${args.id}`, flags.yes);
      const endpoint = await client.webhookEndpoints.rollSecret(
        args.id,
        { expires_in_seconds: flags['expires-in'] },
        { idempotencyKey: flags['idempotency-key'] },
      );
      const old = flags['expires-in']
        ? `the old one keeps signing too for ${flags['expires-in']} s`
        : 'the old one no longer signs';
      return this.print(endpoint, () => `${endpoint.secret}\n  new signing secret of ${endpoint.id}; ${old}.`);
    }
    const secret = await client.webhookEndpoints.revealSecret(args.id);
    return this.print(secret, () =>
      flags.show
        ? secret.secret
        : `${maskSecret(secret.secret)}\n  \`payorch webhooks secret ${args.id} --show\` prints it in full.`,
    );
  }
}
