import { Args } from '@oclif/core';
import { BaseCommand } from '../../lib/cli/base.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { readProfiles, setActive } from '../../lib/profiles/store.js';

export default class ProfilesUse extends BaseCommand {
  static override summary = 'Make a profile the active one';
  static override examples = ['<%= config.bin %> profiles use local'];
  static override args = { name: Args.string({ required: true, description: 'Profile name' }) };

  async run(): Promise<unknown> {
    const { args } = await this.parse(ProfilesUse);
    if (!readProfiles().profiles[args.name]) throw new CliError(`No profile named "${args.name}".`, EXIT.AUTH);
    await setActive(args.name);
    return this.print({ active: args.name }, () => `Active profile: ${args.name}`);
  }
}
