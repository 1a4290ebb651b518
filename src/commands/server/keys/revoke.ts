import { Args } from '@oclif/core';
import { BaseCommand, yesFlag } from '../../../lib/cli/base.js';
import { dataDirFlag } from '../../../lib/cli/server.js';
import { defaultDataDir, openDataDir } from '../../../lib/server/datadir.js';
import { sqliteEngine } from '../../../lib/server/adapters/sqlite/engine.js';
import { ServiceError } from '../../../lib/server/errors.js';
import { CliError, EXIT } from '../../../lib/cli/errors.js';

export default class ServerKeysRevoke extends BaseCommand {
  static override summary =
    'Revoke an API key (by key id or the key itself); requests with it then get 401 api_key_revoked';
  static override examples = ['<%= config.bin %> server keys revoke key_…'];
  static override args = { key: Args.string({ required: true, description: 'key_… id or the sk_test_… key' }) };
  static override flags = { 'data-dir': dataDirFlag, yes: yesFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ServerKeysRevoke);
    const dir = flags['data-dir'] ?? defaultDataDir();
    const { store } = await openDataDir(sqliteEngine, dir);
    try {
      const key = await sqliteEngine.accounts(store).revoke(args.key);
      await this.print(key, () => `Revoked ${key.masked} (${key.id}).`);
    } catch (err) {
      if (err instanceof ServiceError) throw new CliError(err.message, EXIT.API, err.code);
      throw err;
    } finally {
      store.close();
    }
    // The default key revoked: the default account gets a new one at once (credentials.json), so that
    // commands with no key configured keep working against a server already running on the directory.
    (await openDataDir(sqliteEngine, dir)).store.close();
  }
}
