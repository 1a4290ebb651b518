import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../lib/cli/base.js';
import { dataDirFlag, dirFlags } from '../../../lib/cli/server.js';
import { CliError, EXIT } from '../../../lib/cli/errors.js';
import { defaultDataDir, readCredentials, readLock } from '../../../lib/server/lock.js';
import { maskSecret } from '../../../lib/output/mask.js';

export default class ServerKeysReveal extends BaseCommand {
  static override summary =
    "Show the data directory's default key — the one the CLI uses when no key is configured (masked unless --show)";
  static override description =
    'The default key belongs to the account that commands with no key configured (the quick start) work in: with it, a script, `curl` or the library sees the same objects. It is kept in the data directory (credentials.json, mode 0600).';
  static override examples = [
    '<%= config.bin %> server keys reveal',
    '<%= config.bin %> server keys reveal --show',
    'export PAYORCH_API_KEY=$(<%= config.bin %> server keys reveal --show --json | jq -r .api_key)',
  ];
  static override flags = {
    'data-dir': dataDirFlag,
    show: Flags.boolean({ description: 'Print the key in full (it is a secret: mind who sees your terminal)' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerKeysReveal);
    const dir = flags['data-dir'] ?? defaultDataDir();
    const creds = readCredentials(dir);
    if (!creds) {
      throw new CliError(
        `No key in ${dir} yet: it is made by the first command with no key configured, or by \`payorch server start${dirFlags(dir)}\`.`,
        EXIT.USAGE,
        'no_key',
      );
    }
    const lock = readLock(dir);
    const key = flags.show ? creds.api_key : maskSecret(creds.api_key);
    const view = { api_key: key, account_id: creds.account_id, data_dir: dir, base_url: lock?.base_url ?? null };
    // --json prints the view as it is (the key in full only with --show): the shared JSON printer masks keys.
    if (this.jsonMode) {
      process.stdout.write(JSON.stringify(view, null, 2) + '\n');
      return;
    }
    await this.print(view, () =>
      [
        key,
        `  account ${creds.account_id}, data ${dir}`,
        lock?.base_url
          ? `  served at ${lock.base_url} (pid ${lock.pid})`
          : `  no server runs on it now: \`payorch server start${dirFlags(dir)}\` serves it`,
        ...(flags.show ? [] : [`  \`payorch server keys reveal --show${dirFlags(dir)}\` prints it in full.`]),
      ].join('\n'),
    );
  }
}
