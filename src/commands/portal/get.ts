import { Args } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { portalFields } from '../../lib/output/views/billing.js';

export default class PortalGet extends ApiCommand {
  static override summary = 'Show a portal session';
  static override examples = ['<%= config.bin %> portal get pts_…'];
  static override args = { id: Args.string({ description: 'Portal session id', required: true }) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(PortalGet);
    const obj = await (await this.client(flags)).portalSessions.retrieve(args.id);
    return this.detail(obj, 'Portal session', portalFields);
  }
}
