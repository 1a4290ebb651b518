import { Args, Flags } from '@oclif/core';
import { BaseCommand, yesFlag } from '../../../lib/cli/base.js';
import { dataDirFlag } from '../../../lib/cli/server.js';
import { defaultDataDir } from '../../../lib/server/datadir.js';
import { databaseFlag, onDirectory, sealingKeyFileFlag } from '../../../lib/cli/directory.js';
import { ServiceError } from '../../../lib/server/errors.js';
import { CliError, EXIT } from '../../../lib/cli/errors.js';

export default class ServerKeysRevoke extends BaseCommand {
  static override summary =
    'Revoke an API key (by key id or the key itself); requests with it then get 401 api_key_revoked';
  static override examples = ['<%= config.bin %> server keys revoke key_…'];
  static override args = { key: Args.string({ required: true, description: 'key_… id or the sk_test_… key' }) };
  static override flags = {
    'data-dir': dataDirFlag,
    database: databaseFlag,
    'sealing-key-file': Flags.string({
      description: `${sealingKeyFileFlag.description} — needed on PostgreSQL to revoke the default key, which is re-issued at once`,
    }),
    yes: yesFlag,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerKeysRevoke);
    const dir = flags['data-dir'] ?? defaultDataDir();
    const key = await onDirectory(dir, flags, this.io.env, async (db) => {
      await db.mayRevoke(args.key);
      const revoked = await db.accounts.revoke(args.key).catch((err: unknown) => {
        throw err instanceof ServiceError ? new CliError(err.message, EXIT.API, err.code) : err;
      });
      // The default key revoked: the default account gets a new one at once (credentials.json), so that
      // commands with no key configured keep working against a server already running on the directory.
      await db.keepDefaultKey();
      return revoked;
    });
    await this.print(key, () => `Revoked ${key.masked} (${key.id}).`);
  }
}
