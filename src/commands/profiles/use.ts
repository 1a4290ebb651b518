import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../lib/cli/base.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { clearActive, readProfiles, setActive } from '../../lib/cli/profiles.js';
import { isLiveKey } from '../../lib/cli/target.js';
import { keyLabel } from '../../lib/output/mode.js';

export default class ProfilesUse extends BaseCommand {
  static override summary = 'Make a profile the active one';
  static override examples = ['<%= config.bin %> profiles use local', '<%= config.bin %> profiles use --none'];
  static override args = { name: Args.string({ description: 'Profile name' }) };
  static override flags = {
    none: Flags.boolean({
      description: 'No active profile: back to the local test-mode server (the default data directory)',
    }),
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(ProfilesUse);
    if (flags.none || args.name === undefined) {
      if (!flags.none || args.name !== undefined)
        throw new CliError(
          'Name a profile, or pass --none (no active profile: the local test-mode server).',
          EXIT.USAGE,
          'usage_error',
        );
      await clearActive();
      return this.print(
        { active: null },
        () => 'No active profile: commands with no key configured use the local test-mode server.',
      );
    }
    const profile = readProfiles().profiles[args.name];
    if (!profile) throw new CliError(`No profile named "${args.name}".`, EXIT.AUTH);
    await setActive(args.name);
    const live = isLiveKey(profile.api_key);
    return this.print(
      { active: args.name, live },
      () =>
        `Active profile: ${args.name} (${keyLabel(profile.api_key)}).${live ? ' Commands without --profile or a key now use its LIVE key.' : ''}`,
    );
  }
}
