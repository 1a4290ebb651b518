import { ApiCommand } from '../../lib/cli/base.js';
import { clockFields } from '../../lib/output/views/billing.js';

export default class ClockGet extends ApiCommand {
  static override summary = "Show the account's test clock";
  static override examples = ['<%= config.bin %> clock get', '<%= config.bin %> clock get --json'];

  async run(): Promise<unknown> {
    const { flags } = await this.parse(ClockGet);
    const state = await (await this.client(flags)).testClock.retrieve();
    return this.detail(state, 'Test clock', clockFields);
  }
}
