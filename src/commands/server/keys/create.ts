import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../lib/cli/base.js';
import { dataDirFlag, dirFlags } from '../../../lib/cli/server.js';
import { defaultDataDir } from '../../../lib/server/datadir.js';
import { databaseFlag, onDirectory } from '../../../lib/cli/directory.js';

export default class ServerKeysCreate extends BaseCommand {
  static override summary =
    'Create an API key — by default with a new, empty account of its own (--default-account: another key of the default account)';
  static override description =
    "Objects are never shared across accounts: a key made without --default-account does not see what the CLI's default key (the quick start's) made. The key is printed once, in full; only its hash is stored.";
  static override examples = [
    '<%= config.bin %> server keys create',
    '<%= config.bin %> server keys create --default-account --json',
  ];
  static override flags = {
    'data-dir': dataDirFlag,
    database: databaseFlag,
    'default-account': Flags.boolean({
      description:
        "A key of the data directory's default account (the objects of commands with no key configured), not a new account",
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerKeysCreate);
    const dir = flags['data-dir'] ?? defaultDataDir();
    const { api_key, key } = await onDirectory(dir, flags, this.io.env, async (db) =>
      flags['default-account'] ? db.accounts.addKey(await db.defaultAccount()) : db.accounts.createAccountWithKey(),
    );
    const account_id = key.account_id;
    // The one place a key is printed in full: it is shown once and cannot be recovered.
    if (this.jsonMode)
      process.stdout.write(
        JSON.stringify({ api_key, account_id, id: key.id, default_account: Boolean(flags['default-account']) }) + '\n',
      );
    else {
      const whose = flags['default-account']
        ? `the default account ${account_id} (the objects of commands with no key configured)`
        : `a new, empty account ${account_id}: it does not see the default account's objects (for that: --default-account, or \`payorch server keys reveal${dirFlags(dir)}\`)`;
      process.stdout.write(`${api_key}\n  key id ${key.id}, of ${whose}.\n  Store it now: it is not shown again.\n`);
    }
  }
}
