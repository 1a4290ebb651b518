import { Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';
import { IDENTITY_TOKEN_TYPES } from '../../lib/contract/limits.js';
import { tokenColumns } from '../../lib/output/views/identity.js';
import { color, tableText } from '../../lib/output/render.js';

export default class IdentityTokensList extends ApiCommand {
  static override summary = 'List identity tokens (masked), newest first';
  static override examples = ['<%= config.bin %> identity-tokens list --type ssn --limit 20'];
  static override flags = {
    type: Flags.option({ options: IDENTITY_TOKEN_TYPES, description: 'Only tokens of this type' })(),
    limit: Flags.integer({ description: 'Page size, 1–100 (default 10)', min: 1, max: 100 }),
    offset: Flags.integer({ description: 'Skip this many tokens (default 0)', min: 0 }),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(IdentityTokensList);
    const page = await (
      await this.client(flags)
    ).identityTokens.list({ type: flags.type, limit: flags.limit, offset: flags.offset });
    return await this.print(page, async () => {
      if (page.data.length === 0) return 'No identity tokens.';
      const p = page.pagination;
      const more = p.has_more
        ? `\n${color().dim(`… ${p.total} in all; next page: --offset ${p.offset + page.data.length}`)}`
        : '';
      return (await tableText(page.data, tokenColumns)) + more;
    });
  }
}
