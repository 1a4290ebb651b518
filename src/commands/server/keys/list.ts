import { BaseCommand } from '../../../lib/cli/base.js';
import { dataDirFlag } from '../../../lib/cli/server.js';
import { defaultDataDir, openDataDir } from '../../../lib/server/datadir.js';
import { sqliteEngine } from '../../../lib/server/adapters/sqlite/engine.js';
import { formatTime } from '../../../lib/output/format.js';

export default class ServerKeysList extends BaseCommand {
  static override summary = 'List the API keys of the local server (masked)';
  static override examples = ['<%= config.bin %> server keys list'];
  static override flags = { 'data-dir': dataDirFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerKeysList);
    const { store } = await openDataDir(sqliteEngine, flags['data-dir'] ?? defaultDataDir());
    try {
      const keys = await sqliteEngine.accounts(store).listKeys();
      await this.table({ data: keys }, [
        { header: 'ID', value: (k) => k.id },
        { header: 'KEY', value: (k) => k.masked },
        { header: 'ACCOUNT', value: (k) => k.account_id },
        { header: 'STATUS', value: (k) => (k.revoked_at ? 'revoked' : 'active'), status: true },
        { header: 'CREATED', value: (k) => formatTime(k.created_at) },
      ]);
    } finally {
      store.close();
    }
  }
}
