import { Args } from '@oclif/core';
import { ApiCommand } from '../../../lib/cli/base.js';

export default class ServerFaultsClear extends ApiCommand {
  static override summary = "Delete your account's fault rules, or the one named (the server's --faults rules stay)";
  static override examples = ['<%= config.bin %> server faults clear', '<%= config.bin %> server faults clear flt_2'];
  static override args = { id: Args.string({ description: 'Only this rule (flt_…)' }) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(ServerFaultsClear);
    const client = await this.client(flags);
    if (args.id !== undefined) {
      const out = await client.faultRules.del(args.id);
      return this.print(out, () => `Deleted fault rule ${out.id}.`);
    }
    const out = await client.faultRules.clear();
    return this.print(out, () =>
      out.deleted
        ? `Deleted ${out.deleted} fault rule${out.deleted === 1 ? '' : 's'}.`
        : 'No fault rules of yours to delete.',
    );
  }
}
