import { Args } from '@oclif/core';
import { BaseCommand } from '../../lib/cli/base.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { configPath, readProfiles } from '../../lib/cli/profiles.js';
import { DEFAULT_BASE_URL } from '../../lib/contract/prefix.js';
import { isLiveKey } from '../../lib/cli/target.js';
import { maskSecret } from '../../lib/output/mask.js';
import { detailText } from '../../lib/output/render.js';
import { modeLabel } from '../../lib/output/mode.js';

export default class ProfilesShow extends BaseCommand {
  static override summary = 'Show a profile (default: the active one), key masked';
  static override examples = ['<%= config.bin %> profiles show', '<%= config.bin %> profiles show prod'];
  static override args = { name: Args.string({ description: 'Profile name' }) };

  async run(): Promise<unknown> {
    const { args } = await this.parse(ProfilesShow);
    const data = readProfiles();
    const name = args.name ?? data.active;
    const p = name ? data.profiles[name] : undefined;
    if (!name || !p)
      throw new CliError(
        name ? `No profile named "${name}".` : 'No active profile. Add one with `payorch profiles add NAME`.',
        EXIT.AUTH,
      );
    const view = {
      name,
      active: data.active === name,
      live: isLiveKey(p.api_key),
      api_key: maskSecret(p.api_key),
      base_url: p.base_url ?? DEFAULT_BASE_URL,
      file: configPath(),
    };
    return this.print(view, () =>
      detailText(view, `Profile ${name}`, [
        { label: 'mode', value: () => modeLabel(p.api_key) },
        { label: 'active', value: (v) => (v.active ? 'yes' : 'no') },
        { label: 'api key', value: (v) => v.api_key },
        { label: 'base url', value: (v) => v.base_url },
        { label: 'stored in', value: (v) => v.file },
      ]),
    );
  }
}
