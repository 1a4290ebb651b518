import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../lib/cli/base.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { PROFILE_NAME, activeByDefault, readProfiles, saveProfile } from '../../lib/cli/profiles.js';
import { maskSecret } from '../../lib/output/mask.js';
import { keyLabel } from '../../lib/output/mode.js';
import { isLiveKey } from '../../lib/cli/target.js';
import { parseBaseUrl } from '../../lib/client/url.js';
import { DEFAULT_BASE_URL } from '../../lib/contract/prefix.js';

export default class ProfilesAdd extends BaseCommand {
  static override summary = 'Store an API key (and base URL) under a name';
  static override description =
    'Without --api-key the key is asked for on a terminal (input hidden). The first profile becomes the active one, unless its key is live: a live profile becomes active only with --use, `profiles use`, or yes at a terminal.';
  static override examples = [
    `<%= config.bin %> profiles add local --api-key sk_test_... --base-url ${DEFAULT_BASE_URL}`,
  ];
  static override args = { name: Args.string({ required: true, description: 'Profile name' }) };
  static override flags = {
    'api-key': Flags.string({ description: 'sk_test_… or sk_live_… key' }),
    'base-url': Flags.string({ description: `API base URL (default ${DEFAULT_BASE_URL})` }),
    use: Flags.boolean({ description: 'Make it the active profile' }),
    force: Flags.boolean({ description: 'Replace an existing profile of that name' }),
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(ProfilesAdd);
    if (!PROFILE_NAME.test(args.name))
      throw new CliError('Profile names are letters, digits, ".", "_" and "-" (up to 64).', EXIT.USAGE);
    const stored = readProfiles();
    if (stored.profiles[args.name] && !flags.force)
      throw new CliError(`Profile "${args.name}" exists; pass --force to replace it.`, EXIT.USAGE);
    const apiKey = await this.need(flags['api-key'], {
      flag: 'api-key',
      message: `API key for "${args.name}"`,
      kind: 'password',
    });
    if (!/^(sk|rk)_(test|live)_\S+$/.test(apiKey))
      throw new CliError('That does not look like an API key (sk_test_… or sk_live_…).', EXIT.USAGE);
    const baseUrl = flags['base-url'];
    if (baseUrl !== undefined) {
      try {
        parseBaseUrl(baseUrl);
      } catch (err) {
        throw new CliError((err as Error).message, EXIT.USAGE);
      }
    }
    const live = isLiveKey(apiKey);
    // A live profile becomes active only when asked: --use, or yes at a terminal. Otherwise every later command
    // without a key would go to live unnoticed.
    const byDefault = activeByDefault(stored, args.name);
    const active =
      flags.use ||
      (byDefault &&
        (!live ||
          (await this.askIfTerminal(
            `Make "${args.name}" the active profile? Commands without --profile or a key would then use its LIVE key.`,
          )) === true));
    await saveProfile(args.name, baseUrl ? { api_key: apiKey, base_url: baseUrl } : { api_key: apiKey }, active);
    // A stored key is never printed whole, --json included (it is not an API object: nothing needs it back).
    const view = {
      name: args.name,
      api_key: maskSecret(apiKey),
      base_url: baseUrl ?? null,
      live,
      active: readProfiles().active === args.name,
    };
    const held =
      byDefault && !view.active
        ? `, not active: a live profile becomes active only when asked (\`payorch profiles use ${args.name}\`)`
        : '';
    return this.print(
      view,
      () => `Saved profile ${args.name} (${keyLabel(apiKey)})${view.active ? ', active' : held}.`,
    );
  }
}
