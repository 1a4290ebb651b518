import { ApiCommand } from '../../../lib/cli/base.js';
import { faultRuleColumns } from '../../../lib/output/views/faults.js';

export default class ServerFaultsList extends ApiCommand {
  static override summary =
    "The fault rules that apply to your account (the server's --faults, then yours), with what each matched and injected";
  static override examples = ['<%= config.bin %> server faults list', '<%= config.bin %> server faults list --json'];

  async run(): Promise<unknown> {
    const { flags } = await this.parse(ServerFaultsList);
    const client = await this.client(flags);
    const list = await client.faultRules.list();
    return this.table(list, faultRuleColumns, 'No fault rules. Add one with `payorch server faults add --fault …`.');
  }
}
