import { Args } from '@oclif/core';
import { BaseCommand } from '../../lib/cli/base.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { readProfiles, removeProfile } from '../../lib/cli/profiles.js';

export default class ProfilesRemove extends BaseCommand {
  static override summary = 'Delete a stored profile';
  static override examples = ['<%= config.bin %> profiles remove staging'];
  static override args = { name: Args.string({ required: true, description: 'Profile name' }) };

  async run(): Promise<unknown> {
    const { args } = await this.parse(ProfilesRemove);
    if (!readProfiles().profiles[args.name]) throw new CliError(`No profile named "${args.name}".`, EXIT.AUTH);
    await removeProfile(args.name);
    return this.print({ removed: args.name }, () => `Removed profile ${args.name}.`);
  }
}
