import { BaseCommand } from '../../../lib/cli/base.js';
import { dataDirFlag } from '../../../lib/cli/server.js';
import { defaultDataDir, openDataDir } from '../../../lib/server/datadir.js';
import { Accounts } from '../../../lib/server/domain/accounts.js';

export default class ServerKeysCreate extends BaseCommand {
  static override summary = 'Create an API key with a new account of its own (objects are not shared across accounts)';
  static override examples = ['<%= config.bin %> server keys create', '<%= config.bin %> server keys create --json'];
  static override description = 'The key is printed once, in full; only its hash is stored.';
  static override flags = { 'data-dir': dataDirFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerKeysCreate);
    const { store } = openDataDir(flags['data-dir'] ?? defaultDataDir());
    try {
      const { api_key, account_id, key } = new Accounts(store).createAccountWithKey();
      // The one place a key is printed in full: it is shown once and cannot be recovered.
      if (this.jsonMode) process.stdout.write(JSON.stringify({ api_key, account_id, id: key.id }) + '\n');
      else process.stdout.write(`${api_key}\n  account ${account_id}, key id ${key.id} — store it now: it is not shown again.\n`);
    } finally {
      store.close();
    }
  }
}
