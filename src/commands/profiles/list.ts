import { BaseCommand } from '../../lib/cli/base.js';
import { readProfiles } from '../../lib/cli/profiles.js';
import { maskSecret } from '../../lib/output/mask.js';
import { DEFAULT_BASE_URL } from '../../lib/contract/prefix.js';
import { modeLabel } from '../../lib/output/mode.js';

export default class ProfilesList extends BaseCommand {
  static override summary = 'List stored profiles (keys masked)';
  static override examples = ['<%= config.bin %> profiles list'];

  async run(): Promise<unknown> {
    await this.parse(ProfilesList);
    const data = readProfiles();
    const rows = Object.entries(data.profiles).map(([name, p]) => ({
      name,
      active: data.active === name,
      mode: modeLabel(p.api_key),
      api_key: maskSecret(p.api_key),
      base_url: p.base_url ?? DEFAULT_BASE_URL,
    }));
    return await this.table(
      { data: rows },
      [
        { header: '', value: (r) => (r.active ? '*' : '') },
        { header: 'NAME', value: (r) => r.name },
        { header: 'MODE', value: (r) => r.mode },
        { header: 'KEY', value: (r) => r.api_key },
        { header: 'BASE URL', value: (r) => r.base_url },
      ],
      'No profiles. Add one with `payorch profiles add NAME --api-key KEY`.',
    );
  }
}
